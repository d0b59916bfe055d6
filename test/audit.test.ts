/**
 * Audit end to end: `orch-apiserver --audit-policy-file --audit-log-path` records requests as
 * JSON lines at the policy's levels (Secrets at Metadata whatever a wildcard rule says), with
 * both identities of an impersonated request.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEvent } from "@orch/server";
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
      user: { name: "admin", groups: expect.arrayContaining(["system:masters"]) as unknown },
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
      user: { name: "admin" },
      impersonatedUser: { name: "bob", groups: ["system:authenticated"] },
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
