/**
 * Audit end to end: `orch-apiserver --audit-policy-file --audit-log-path` records requests as
 * JSON lines at the policy's levels (Secrets at Metadata whatever a wildcard rule says), with
 * both identities of an impersonated request; `--audit-webhook-config-file` POSTs them as
 * EventLists to a real HTTPS webhook, and a webhook that is down does not hold requests up.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer as createHTTPSServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEvent } from "@orch/server";
import { selfSignedCA, servingCertificate } from "../packages/node/src/internal/test-pki.js";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

const policy = `apiVersion: audit.orch.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
  # Every core resource: Secrets stay at Metadata all the same.
  - level: RequestResponse
    resources: [{group: ""}]
  - level: Metadata
`;

let dir: string;
let server: RunningAPIServer;
let events: AuditEvent[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-audit-e2e-"));
  await writeFile(join(dir, "policy.yaml"), policy);
  const log = join(dir, "audit.log");
  server = await startAPIServer({ flags: ["--audit-policy-file", join(dir, "policy.yaml"), "--audit-log-path", log] });
  const json = { "Content-Type": "application/json", "User-Agent": "audit-e2e/1" };
  const created = await adminRequest(server, {
    method: "POST",
    path: "/api/v1/namespaces/default/configmaps",
    headers: json,
    body: JSON.stringify({ metadata: { name: "audited" }, data: { mode: "fast" } }),
  });
  expect(created.status).toBe(201);
  const secret = await adminRequest(server, {
    method: "POST",
    path: "/api/v1/namespaces/default/secrets",
    headers: json,
    body: JSON.stringify({ metadata: { name: "creds" }, stringData: { password: "hunter2" } }),
  });
  expect(secret.status).toBe(201);
  expect((await adminRequest(server, { path: "/api/v1/namespaces/default/secrets/creds", headers: json })).status).toBe(200);
  const impersonated = await adminRequest(server, { path: "/api/v1/namespaces/default/pods", headers: { ...json, "Impersonate-User": "bob" } });
  expect(impersonated.status).toBe(403);
  expect(await server.stop()).toBe(0);
  events = (await readFile(log, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditEvent);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The events of this test's client (not the server's own in-process requests). */
const ours = () => events.filter((e) => e.userAgent === "audit-e2e/1");

describe("orch-apiserver --audit-log-path", () => {
  it("writes one event per line, without the omitted stage", () => {
    expect(ours().map((e) => [e.verb, e.objectRef?.resource, e.stage])).toEqual([
      ["create", "configmaps", "ResponseComplete"],
      ["create", "secrets", "ResponseComplete"],
      ["get", "secrets", "ResponseComplete"],
      ["list", "pods", "ResponseComplete"],
    ]);
    expect(events.some((e) => e.requestURI.startsWith("/readyz"))).toBe(false);
  });

  it("records both bodies where the policy says RequestResponse", () => {
    const [created] = ours();
    expect(created).toMatchObject({
      apiVersion: "audit.orch.io/v1",
      level: "RequestResponse",
      user: { username: "admin", groups: expect.arrayContaining(["system:masters"]) as unknown },
      objectRef: { resource: "configmaps", namespace: "default", name: "audited", apiVersion: "v1" },
      responseStatus: { code: 201 },
      requestObject: { data: { mode: "fast" } },
      responseObject: { kind: "ConfigMap", metadata: { name: "audited" } },
    });
    expect(created?.auditID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("records Secrets at Metadata only", () => {
    const secrets = ours().filter((e) => e.objectRef?.resource === "secrets");
    expect(secrets.map((e) => [e.level, e.responseStatus?.code])).toEqual([
      ["Metadata", 201],
      ["Metadata", 200],
    ]);
    expect(secrets.every((e) => e.requestObject === undefined && e.responseObject === undefined)).toBe(true);
    expect(JSON.stringify(events)).not.toContain("hunter2");
  });

  it("keeps the impersonating and the impersonated user", () => {
    const listed = ours().at(-1);
    expect(listed).toMatchObject({
      user: { username: "admin" },
      impersonatedUser: { username: "bob", groups: ["system:authenticated"] },
      responseStatus: { code: 403, reason: "Forbidden" },
    });
  });
});

describe("orch-apiserver --audit-policy-file", () => {
  it("does not start with a policy that does not parse, naming the file and the line", async () => {
    const file = join(dir, "bad.yaml");
    await writeFile(file, "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Loud\n");
    await expect(startAPIServer({ flags: ["--audit-policy-file", file, "--audit-log-path", join(dir, "bad.log")] })).rejects.toThrow(
      `--audit-policy-file ${file}: line 4: rules[0].level`,
    );
  });
});

/** An HTTPS audit webhook on a free loopback port that keeps the EventLists it receives. */
async function auditReceiver(): Promise<{
  url: string;
  ca: string;
  lists: { kind: string; apiVersion: string; items: AuditEvent[] }[];
  close(): Promise<void>;
}> {
  const ca = await selfSignedCA("CN=audit-webhook-ca");
  const serving = await servingCertificate(ca);
  const lists: { kind: string; apiVersion: string; items: AuditEvent[] }[] = [];
  const server = createHTTPSServer({ key: serving.key, cert: serving.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      lists.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as (typeof lists)[number]);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}/audit`,
    ca: ca.cert,
    lists,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A webhook kubeconfig naming `url`, trusting `ca`. */
function webhookKubeconfig(url: string, ca: string): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "audit", cluster: { server: url, "certificate-authority-data": Buffer.from(ca).toString("base64") } }],
    users: [{ name: "apiserver", user: {} }],
    contexts: [{ name: "default", context: { cluster: "audit", user: "apiserver" } }],
    "current-context": "default",
  });
}

describe("orch-apiserver --audit-webhook-config-file", () => {
  let webhookDir: string;
  beforeAll(async () => {
    webhookDir = await mkdtemp(join(tmpdir(), "orch-audit-webhook-"));
    await writeFile(join(webhookDir, "policy.yaml"), policy);
  });
  afterAll(async () => {
    await rm(webhookDir, { recursive: true, force: true });
  });

  it("POSTs the events as an audit.orch.io/v1 EventList, with annotations and source IPs, alongside the log", async () => {
    const receiver = await auditReceiver();
    const config = join(webhookDir, "webhook.json");
    await writeFile(config, webhookKubeconfig(receiver.url, receiver.ca));
    const log = join(webhookDir, "both.log");
    const running = await startAPIServer({
      flags: [
        "--audit-policy-file",
        join(webhookDir, "policy.yaml"),
        "--audit-log-path",
        log,
        "--audit-webhook-config-file",
        config,
        "--audit-webhook-batch-max-wait",
        "100ms",
      ],
    });
    try {
      const created = await adminRequest(running, {
        method: "POST",
        path: "/api/v1/namespaces/default/configmaps",
        headers: { "Content-Type": "application/json", "User-Agent": "audit-webhook-e2e/1" },
        body: JSON.stringify({ metadata: { name: "hooked" } }),
      });
      expect(created.status).toBe(201);
      const ourEvents = () => receiver.lists.flatMap((l) => l.items).filter((e) => e.userAgent === "audit-webhook-e2e/1");
      // Bounded wait for the batch (sent after 100 ms); the test's timeout bounds it too.
      for (let i = 0; i < 200 && ourEvents().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(receiver.lists[0]).toMatchObject({ kind: "EventList", apiVersion: "audit.orch.io/v1" });
      const [event] = ourEvents();
      expect(event).toMatchObject({
        kind: "Event",
        verb: "create",
        stage: "ResponseComplete",
        objectRef: { resource: "configmaps", name: "hooked" },
        responseStatus: { code: 201 },
        annotations: { "authorization.orch.io/decision": "allow" },
      });
      expect(event?.sourceIPs).toContain("127.0.0.1");
      expect(await running.stop()).toBe(0);
      // The log backend got the same event.
      expect(await readFile(log, "utf8")).toContain("audit-webhook-e2e/1");
    } finally {
      await running.stop();
      await receiver.close();
    }
  }, 60_000);

  it("serves requests while the webhook is down (batch mode buffers, retries in the background)", async () => {
    const receiver = await auditReceiver();
    const config = join(webhookDir, "down.json");
    await writeFile(config, webhookKubeconfig(receiver.url, receiver.ca));
    await receiver.close();
    const running = await startAPIServer({
      flags: ["--audit-policy-file", join(webhookDir, "policy.yaml"), "--audit-webhook-config-file", config, "--audit-webhook-batch-max-wait", "10ms"],
    });
    try {
      for (let i = 0; i < 20; i++) {
        const res = await adminRequest(running, { path: "/api/v1/namespaces/default/configmaps" });
        expect(res.status).toBe(200);
      }
      expect(await running.stop()).toBe(0);
    } finally {
      await running.stop();
    }
  }, 60_000);

  it("does not start with a webhook kubeconfig that does not parse, naming the flag and the file", async () => {
    const file = join(webhookDir, "bad-webhook.yaml");
    await writeFile(file, "clusters: [\n");
    await expect(startAPIServer({ flags: ["--audit-policy-file", join(webhookDir, "policy.yaml"), "--audit-webhook-config-file", file] })).rejects.toThrow(
      `--audit-webhook-config-file: webhook config ${file}: not valid YAML or JSON`,
    );
  });
});
