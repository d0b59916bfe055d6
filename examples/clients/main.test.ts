import { describe, expect, it } from "vitest";
import { connect } from "./connect.js";
import { execPlugin } from "./exec-plugin.js";
import { informer } from "./informer.js";
import { kubeconfig } from "./kubeconfig.js";
import { main } from "./main.js";
import { ownKinds, typedAccessors } from "./typed.js";

/** Runs `example` and returns what it returned and printed. */
async function run<T>(example: (log: (line: string) => void) => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const result = await example((line) => lines.push(line));
  return { result, lines };
}

describe("client examples", () => {
  it("connect: the same client in-process and over HTTPS, where a CredentialSource replaces a refused token", async () => {
    const { result, lines } = await run(connect);
    expect(result).toEqual(["admin", "dana"]);
    expect(lines).toEqual(["in-process: admin; over HTTPS: dana (after one 401)"]);
  });

  it("kubeconfig: a relative CA file and a token file, re-read when it changes; errors name the file and entry", async () => {
    const { result, lines } = await run(kubeconfig);
    expect(result).toEqual({ namespaces: ["default", "orch-public", "orch-system"], namespace: "team-a", users: ["alice", "bob"] });
    expect(lines).toEqual([
      "namespaces: default, orch-public, orch-system; the context's namespace: team-a",
      "the token file's user: alice, then bob",
      'ClientConfigError: context "broken" in <dir>/broken: user "carol" is not defined',
    ]);
  });

  it("exec plugin: one run for concurrent requests, the cluster handed over, a missing plugin named with its hint", async () => {
    const { result, lines } = await run(execPlugin);
    expect(result.user).toBe("carol");
    expect(result.runs).toBe(1);
    expect(result.input).toMatchObject({ interactive: false, cluster: { server: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+$/) } });
    expect(result.input.cluster?.["certificate-authority-data"]).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(lines.slice(0, 2)).toEqual([
      "the plugin's token is carol's; it ran 1 time(s) for 4 requests",
      "it was told: interactive false, server the cluster's",
    ]);
    expect(lines[2]).toBe(
      'getting credentials for user "ghost" in <dir>/config: exec plugin: executable <dir>/not-installed not found\n\nInstall not-installed from your team\'s tools page.',
    );
  });

  it("typed accessors: a pod bound and running under its service account, whose token authenticates it", async () => {
    const { result, lines } = await run(typedAccessors);
    expect(result).toEqual({ nodeName: "node-1", phase: "Running", tokenUser: "system:serviceaccount:default:builder" });
    expect(lines[0]).toBe("created pod build-1 (phase Pending, service account builder)");
  });

  it("own kinds: forType creates, patches and patches the status of a Widget", async () => {
    const { result, lines } = await run(ownKinds);
    expect(result).toEqual({ size: 4, status: { ready: "true" } });
    expect(lines).toEqual(['example.orch.io/v1 Widget w1: size 4, status {"ready":"true"}']);
  });

  it("informer: handlers see every change, the label index follows it, shared informers are shared", async () => {
    const { result, lines } = await run(informer);
    expect(result).toEqual({ web: ["frontend"], db: ["assets", "schema"], replayed: ["assets", "frontend", "schema"] });
    expect(lines).toEqual([
      "added frontend; added assets; added schema; assets: app web -> db",
      "app=web: frontend; app=db: assets, schema",
      "shared: one informer for configmaps; a late handler was replayed 3 objects",
    ]);
  });

  it("main runs them all", async () => {
    const { lines } = await run(main);
    expect(lines.length).toBeGreaterThan(10);
  });
});
