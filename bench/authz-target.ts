/**
 * The server side of the authorization benchmark, in its own process: two `APIServer`s of the
 * same build over HTTPS (a generated CA), one with `authorization: ["RBAC"]`, one with
 * `["AlwaysAllow"]`, each holding the objects of `authzFixture` (written through the API as a
 * member of `system:masters`) and ConfigMap `bench` in the user's namespace, and each taking the
 * same static token of `bench-user`. Prints one line, `ready <json>`, with both ports, the CA,
 * the token and how long loading took; then answers each line read on stdin with `cpu <µs>`, the
 * CPU time (user and system) the process has used so far.
 * @module
 */
import { parseTokenFile } from "@orch/authn";
import { createCertificateAuthority } from "@orch/cli";
import { serve } from "@orch/node";
import { APIServer, type AuthorizationMode } from "@orch/server";
import { authzFixture, benchGroup, benchNamespace, benchUser } from "./authz-fixture.js";

/** What the target prints after `ready `. */
export interface AuthzTarget {
  /** The port of the RBAC server. */
  rbacPort: number;
  /** The port of the AlwaysAllow server. */
  allowPort: number;
  /** The CA of the serving certificates. */
  ca: string;
  /** The static token of `bench-user`. */
  token: string;
  /** How long writing the objects took on each server, in ms (RBAC: until the user's binding grants). */
  loadMs: { rbac: number; allow: number };
  /** The objects written on each server. */
  objects: number;
}

const ca = await createCertificateAuthority();
const serving = await ca.issue({ subject: "CN=127.0.0.1", ips: ["127.0.0.1"], usage: "server" });
const token = "0b9f3c2e-6a41-4d8e-b7a5-bench0000002";
const admin = { name: "admin", groups: ["system:masters"] };
const encoder = new TextEncoder();
const fixture = authzFixture();
const configMapPath = `/api/v1/namespaces/${benchNamespace}/configmaps/bench`;

/** POSTs `body` to `url` as the admin; throws unless it is created. */
async function create(api: APIServer, url: string, body: object): Promise<void> {
  const res = await api.handle({
    method: "POST",
    url,
    user: admin,
    headers: new Headers({ "content-type": "application/json" }),
    body: encoder.encode(JSON.stringify(body)),
  });
  if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body)}`);
}

/** Runs `jobs` at most `width` at a time, in order of start. */
async function inBatches(jobs: (() => Promise<void>)[], width = 64): Promise<void> {
  for (let i = 0; i < jobs.length; i += width) await Promise.all(jobs.slice(i, i + width).map((job) => job()));
}

/** A server with `mode`, loaded with the fixture; resolves once the user may read the ConfigMap. */
async function loaded(mode: AuthorizationMode): Promise<{ api: APIServer; ms: number; objects: number }> {
  const api = new APIServer({ authenticators: [parseTokenFile(`${token},${benchUser},1000,${benchGroup}\n`)], authorization: [mode] });
  await api.ready();
  const start = performance.now();
  const rbac = "/apis/rbac.authorization.orch.io/v1";
  await inBatches(fixture.namespaces.map((name) => () => create(api, "/api/v1/namespaces", { metadata: { name } })));
  await inBatches(fixture.clusterRoles.map((role) => () => create(api, `${rbac}/clusterroles`, role)));
  await inBatches(fixture.roles.map((role) => () => create(api, `${rbac}/namespaces/${role.metadata.namespace ?? ""}/roles`, role)));
  await inBatches(fixture.roleBindings.map((binding) => () => create(api, `${rbac}/namespaces/${binding.metadata.namespace ?? ""}/rolebindings`, binding)));
  await create(api, `/api/v1/namespaces/${benchNamespace}/configmaps`, { metadata: { name: "bench" }, data: { key: "value".repeat(20) } });
  const objects = fixture.namespaces.length + fixture.clusterRoles.length + fixture.roles.length + fixture.roleBindings.length + 1;
  // The RBAC index follows a watch: wait until the user's binding grants.
  for (let tries = 0; ; tries++) {
    const res = await api.handle({ method: "GET", url: configMapPath, headers: new Headers({ authorization: `Bearer ${token}` }) });
    if (res.status === 200) break;
    if (tries > 2000) throw new Error(`${mode}: ${benchUser} still gets ${res.status} for ${configMapPath}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { api, ms: performance.now() - start, objects };
}

const rbacServer = await loaded("RBAC");
const allowServer = await loaded("AlwaysAllow");
const tls = { key: serving.keyPem, cert: serving.certPem };
const [rbacServed, allowServed] = await Promise.all([serve(rbacServer.api, { port: 0, tls }), serve(allowServer.api, { port: 0, tls })]);
const ready: AuthzTarget = {
  rbacPort: rbacServed.port,
  allowPort: allowServed.port,
  ca: ca.certPem,
  token,
  loadMs: { rbac: rbacServer.ms, allow: allowServer.ms },
  objects: rbacServer.objects,
};
console.log(`ready ${JSON.stringify(ready)}`);
process.stdin.setEncoding("utf8").on("data", (lines: string) => {
  for (let i = 0; i < lines.split("\n").length - 1; i++) {
    const { user, system } = process.cpuUsage();
    console.log(`cpu ${user + system}`);
  }
});
