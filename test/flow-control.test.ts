/**
 * API Priority and Fairness end to end: `orch-apiserver` over HTTPS with token users. A user
 * routed by a FlowSchema to a one-seat `Reject` level gets 429s with `Retry-After` and the PF
 * headers while its seat is held; a flood of LISTs from one user leaves another user's GETs
 * answered; kubectl lists the built-in FlowSchemas and priority levels.
 */
import { Agent, request as httpsRequest } from "node:https";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";

const tokens = {
  alice: "alice-apf-token-0123456789",
  bob: "bob-apf-token-0123456789",
  carol: "carol-apf-token-0123456789",
};
const fcBase = "/apis/flowcontrol.apiserver.orch.io/v1beta2";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Record<string, unknown> | undefined;
}

describe("API Priority and Fairness of orch-apiserver", () => {
  let server: RunningAPIServer;
  let dir: string;
  let agent: Agent;
  let kubectl: Kubectl;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "orch-apf-e2e-"));
    await writeFile(
      join(dir, "tokens.csv"),
      Object.entries(tokens)
        .map(([user, token]) => `${token},${user},uid-${user}`)
        .join("\n") + "\n",
    );
    // 200 seats in all: the e2e level (1 share of 246) gets 1 seat, global-default 17.
    server = await startAPIServer({
      flags: [
        "--token-auth-file",
        join(dir, "tokens.csv"),
        "--authorization-mode",
        "AlwaysAllow",
        "--max-requests-inflight",
        "100",
        "--max-mutating-requests-inflight",
        "100",
      ],
    });
    agent = new Agent({ keepAlive: true, maxSockets: 64, ca: await readFile(join(server.dataDir, "ca.crt"), "utf8") });
    kubectl = await kubectlFor(server);
  }, 20_000);

  afterAll(async () => {
    agent?.destroy();
    await kubectl?.close();
    expect(await server?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  /** One request as a token user, over the shared keep-alive agent, bounded at 15 s. */
  const as = (user: keyof typeof tokens, path: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(`${server.url}${path}`, { agent, headers: { Authorization: `Bearer ${tokens[user]}` }, timeout: 15_000 }, (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (c: string) => (text += c));
        res.on("error", reject);
        res.on("end", () => {
          let json: Record<string, unknown> | undefined;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      });
      req.on("timeout", () => req.destroy(new Error(`${path} timed out`)));
      req.on("error", reject);
      req.end();
    });

  const create = async (resource: string, object: unknown) => {
    const res = await adminRequest(server, {
      method: "POST",
      path: `${fcBase}/${resource}`,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(object),
    });
    expect(res.status, res.text).toBe(201);
    return res.json as { metadata: { uid: string } };
  };

  it("refuses a user's requests 429 with Retry-After and the PF headers while its one-seat Reject level is busy", async () => {
    const level = await create("prioritylevelconfigurations", {
      metadata: { name: "e2e-reject" },
      spec: { type: "Limited", limited: { assuredConcurrencyShares: 1, limitResponse: { type: "Reject" } } },
    });
    const schema = await create("flowschemas", {
      metadata: { name: "e2e-alice" },
      spec: {
        priorityLevelConfiguration: { name: "e2e-reject" },
        matchingPrecedence: 100,
        distinguisherMethod: { type: "ByUser" },
        rules: [
          {
            subjects: [{ kind: "User", user: { name: "alice" } }],
            resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true }],
          },
        ],
      },
    });
    // The configuration reaches the classifier through the watch: wait until alice is served by the new level.
    let routed = false;
    for (let i = 0; i < 200 && !routed; i++) {
      const res = await as("alice", "/api/v1/namespaces/default/configmaps");
      routed = res.headers["x-orch-pf-flowschema-uid"] === schema.metadata.uid;
      if (!routed) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(routed).toBe(true);
    // A LIST at a revision the store has not reached waits (3 s) holding alice's one seat; her
    // other requests meanwhile are refused at once.
    let refused: Answer | undefined;
    for (let round = 0; round < 3 && !refused; round++) {
      let held = true;
      const slow = as("alice", "/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan").finally(
        () => (held = false),
      );
      while (held && !refused) {
        const answers = await Promise.all(Array.from({ length: 5 }, () => as("alice", "/api/v1/namespaces/default/configmaps")));
        refused = answers.find((a) => a.status === 429);
      }
      await slow;
    }
    expect(refused).toBeDefined();
    expect(refused!.headers["retry-after"]).toBe("1");
    expect(refused!.headers["x-orch-pf-flowschema-uid"]).toBe(schema.metadata.uid);
    expect(refused!.headers["x-orch-pf-prioritylevel-uid"]).toBe(level.metadata.uid);
    expect(refused!.json).toMatchObject({ kind: "Status", code: 429, reason: "TooManyRequests", message: "Too many requests, please try again later." });
  }, 20_000);

  it("answers another user's GETs while one user floods the server with LISTs", async () => {
    const flood = Array.from({ length: 300 }, () => as("bob", "/api/v1/namespaces/default/configmaps"));
    const gets = Array.from({ length: 5 }, () => as("carol", "/api/v1/namespaces/default"));
    const answers = await Promise.all(gets);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]!.headers["x-orch-pf-flowschema-uid"]).toBeTruthy();
    const floodStatuses = (await Promise.all(flood)).map((a) => a.status);
    // The flood is served or refused 429, nothing else.
    expect(floodStatuses.every((s) => s === 200 || s === 429)).toBe(true);
  }, 20_000);

  it("lists the built-in FlowSchemas and priority levels with kubectl", async () => {
    const schemas = await kubectl(["get", "flowschemas.flowcontrol.apiserver.orch.io"]);
    expect(schemas.code, schemas.stderr).toBe(0);
    for (const name of ["exempt", "probes", "system-leader-election", "global-default", "catch-all"])
      expect(schemas.stdout).toMatch(new RegExp(`^${name}\\s`, "m"));
    const levels = await kubectl(["get", "prioritylevelconfigurations.flowcontrol.apiserver.orch.io"]);
    expect(levels.code, levels.stderr).toBe(0);
    for (const name of ["exempt", "catch-all", "workload-low", "global-default"]) expect(levels.stdout).toMatch(new RegExp(`^${name}\\s`, "m"));
  }, 20_000);
});
