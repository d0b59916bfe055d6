/**
 * `/metrics` end to end: `orch-apiserver` over HTTPS, scraped in the Prometheus text format as
 * the admin (system:masters) and as a member of `system:monitoring` after some requests; an
 * anonymous caller and an unprivileged user get 403.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, httpsRequestTo, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

/** One sample of the text exposition format. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * The samples of a Prometheus text exposition (`# HELP`/`# TYPE` lines skipped): enough of the
 * format for these tests (label values with escaped `\\`, `\"` and `\n`; no timestamps).
 */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$/;
  const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;
  for (const raw of text.split("\n")) {
    if (raw === "" || raw.startsWith("#")) continue;
    const m = line.exec(raw);
    if (!m) throw new Error(`not an exposition line: ${raw}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(label)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

const users = {
  monitor: { token: "monitor-metrics-token-0123456789", line: 'monitor-metrics-token-0123456789,prom,uid-prom,"system:monitoring"' },
  alice: { token: "alice-metrics-token-0123456789", line: "alice-metrics-token-0123456789,alice,uid-alice" },
};

describe("/metrics of orch-apiserver", () => {
  let server: RunningAPIServer;
  let dir: string;
  let ca: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "orch-metrics-e2e-"));
    await writeFile(join(dir, "tokens.csv"), `${users.monitor.line}\n${users.alice.line}\n`);
    server = await startAPIServer({ flags: ["--token-auth-file", join(dir, "tokens.csv")] });
    ca = await readFile(join(server.dataDir, "ca.crt"), "utf8");
  });

  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  const asToken = (token: string, path: string) => httpsRequestTo(server.url, { ca }, { path, headers: { Authorization: `Bearer ${token}` } });

  it("counts requests, times them and counts stored objects, for the admin to scrape", async () => {
    expect((await adminRequest(server, { path: "/api/v1/namespaces" })).status).toBe(200);
    expect((await adminRequest(server, { path: "/api/v1/namespaces/default/configmaps/absent" })).status).toBe(404);
    expect((await asToken(users.alice.token, "/api/v1/namespaces")).status).toBe(403);
    const res = await adminRequest(server, { path: "/metrics" });
    expect(res.status, res.text).toBe(200);
    expect(String(res.headers["content-type"])).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parseExposition(res.text);
    const find = (name: string, labels: Record<string, string>) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

    const lists = find("apiserver_request_total", { verb: "LIST", resource: "namespaces", scope: "cluster", component: "apiserver", code: "200" });
    expect(lists).toHaveLength(1);
    expect(lists[0]!.value).toBeGreaterThanOrEqual(1);
    expect(lists[0]!.labels).toMatchObject({ group: "", version: "v1", subresource: "" });
    expect(find("apiserver_request_total", { verb: "GET", resource: "configmaps", scope: "resource", code: "404" })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(find("apiserver_request_total", { verb: "LIST", resource: "namespaces", code: "403" })[0]?.value).toBeGreaterThanOrEqual(1);

    const buckets = find("apiserver_request_duration_seconds_bucket", { verb: "LIST", resource: "namespaces" });
    expect(buckets.map((b) => b.labels.le)).toEqual([
      ...["0.005", "0.025", "0.05", "0.1", "0.2", "0.4", "0.6", "0.8", "1", "1.25", "1.5", "2", "3", "4", "5", "6", "8", "10", "15", "20", "30", "45", "60"],
      "+Inf",
    ]);
    expect(buckets.at(-1)!.value).toBe(lists.reduce((n, s) => n + s.value, 0) + 1);
    expect(find("apiserver_request_duration_seconds_count", { verb: "LIST", resource: "namespaces" })[0]?.value).toBe(buckets.at(-1)!.value);

    // The scrape itself is in flight while it renders.
    expect(find("apiserver_current_inflight_requests", { request_kind: "readOnly" })[0]?.value).toBe(1);
    expect(find("apiserver_current_inflight_requests", { request_kind: "mutating" })[0]?.value).toBe(0);
    expect(find("apiserver_storage_objects", { resource: "namespaces" })[0]?.value).toBeGreaterThanOrEqual(3);
    expect(find("apiserver_storage_objects", { resource: "clusterroles.rbac.authorization.orch.io" })[0]?.value).toBeGreaterThan(10);
  });

  it("counts an open watch as long-running until it ends", async () => {
    // In-process controllers watch configmaps of every namespace (scope cluster): this one watches a namespace.
    const watching = adminRequest(server, { path: "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=2", timeoutMs: 10_000 });
    const longRunning = async () =>
      parseExposition((await adminRequest(server, { path: "/metrics" })).text).find(
        (s) => s.name === "apiserver_longrunning_requests" && s.labels.verb === "WATCH" && s.labels.resource === "configmaps" && s.labels.scope === "namespace",
      )?.value;
    for (let i = 0; i < 50 && (await longRunning()) !== 1; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await longRunning()).toBe(1);
    expect((await watching).status).toBe(200);
    for (let i = 0; i < 50 && (await longRunning()) !== 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await longRunning()).toBe(0);
    const scrape = parseExposition((await adminRequest(server, { path: "/metrics" })).text);
    const watches = scrape.find(
      (s) => s.name === "apiserver_request_total" && s.labels.verb === "WATCH" && s.labels.resource === "configmaps" && s.labels.scope === "namespace",
    );
    expect(watches).toMatchObject({ labels: { scope: "namespace", code: "200" }, value: 1 });
  });

  it("is readable by system:monitoring, and 403 for anonymous and unprivileged callers", async () => {
    const monitor = await asToken(users.monitor.token, "/metrics");
    expect(monitor.status, monitor.text).toBe(200);
    expect(monitor.text).toContain("# TYPE apiserver_request_total counter");

    const alice = await asToken(users.alice.token, "/metrics");
    expect({ status: alice.status, json: alice.json }).toMatchObject({
      status: 403,
      json: { kind: "Status", reason: "Forbidden", code: 403, message: 'forbidden: User "alice" cannot get path "/metrics"' },
    });
    const anonymous = await httpsRequestTo(server.url, { ca }, { path: "/metrics" });
    expect({ status: anonymous.status, json: anonymous.json }).toMatchObject({
      status: 403,
      json: { code: 403, message: 'forbidden: User "system:anonymous" cannot get path "/metrics"' },
    });
  });
});

describe("/metrics of orch-apiserver: authentication, authorization, admission, storage, deprecation and audit", () => {
  let server: RunningAPIServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "orch-metrics-families-"));
    await writeFile(join(dir, "policy.yaml"), "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n");
    server = await startAPIServer({ flags: ["--audit-policy-file", join(dir, "policy.yaml"), "--audit-log-path", join(dir, "audit.log")] });
  });

  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it("records the new metric families after requests", async () => {
    const created = await adminRequest(server, {
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ metadata: { name: "measured" } }),
    });
    expect(created.status).toBe(201);
    const deprecated = await adminRequest(server, { path: "/apis/admissionregistration.orch.io/v1beta1/validatingwebhookconfigurations" });
    expect(deprecated.status).toBe(200);
    expect(String(deprecated.headers["warning"])).toMatch(/deprecated/);
    const res = await adminRequest(server, { path: "/metrics" });
    expect(res.status, res.text).toBe(200);
    const samples = parseExposition(res.text);
    const find = (name: string, labels: Record<string, string> = {}) =>
      samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

    expect(find("authentication_attempts", { result: "success" })[0]?.value).toBeGreaterThanOrEqual(2);
    expect(find("authentication_duration_seconds_count", { result: "success" })[0]?.value).toBeGreaterThanOrEqual(2);
    expect(find("apiserver_authorization_decisions_total", { decision: "allowed" })[0]?.value).toBeGreaterThanOrEqual(2);
    expect(find("apiserver_authorization_duration_seconds_count", { decision: "allowed" })[0]?.value).toBeGreaterThanOrEqual(2);
    expect(find("etcd_request_duration_seconds_count", { operation: "create", type: "configmaps" })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(
      find("apiserver_admission_step_admission_duration_seconds_count", { type: "admit", operation: "CREATE", rejected: "false" })[0]?.value,
    ).toBeGreaterThanOrEqual(1);
    expect(find("apiserver_admission_controller_admission_duration_seconds_count", { operation: "CREATE" }).length).toBeGreaterThanOrEqual(1);
    expect(
      find("apiserver_requested_deprecated_apis", {
        group: "admissionregistration.orch.io",
        version: "v1beta1",
        resource: "validatingwebhookconfigurations",
        removed_release: "1.22",
      })[0]?.value,
    ).toBe(1);
    expect(find("apiserver_audit_event_total")[0]?.value).toBeGreaterThanOrEqual(4);
  });
});
