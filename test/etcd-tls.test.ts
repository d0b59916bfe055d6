/**
 * etcd over TLS, for real: Debian's etcd serving https with a certificate from the CA
 * code of `orch-apiserver`, once with any client allowed and once requiring client certificates
 * (`--client-cert-auth`). `EtcdStore` works over both; a wrong CA or a missing client certificate
 * fails fast with an error that says so; `orch-apiserver` spawned with `--etcd-cafile`,
 * `--etcd-certfile` and `--etcd-keyfile` serves from the mutual-TLS etcd, and exits 1 with a clear
 * message without the client certificate. Every wait is bounded.
 * @module
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reasonOf } from "@orch/meta";
import type { StoreEvent } from "@orch/store";
import { EtcdStore, type EtcdTLSOptions } from "@orch/store-etcd";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { createEtcdPKI, startEtcd, type EtcdCluster, type EtcdPKI } from "./support/etcd.js";

let pki: EtcdPKI;
/** https, any client. */
let serverOnly: EtcdCluster;
/** https, client certificates signed by the CA required. */
let mutual: EtcdCluster;
const stores: EtcdStore[] = [];
const servers: RunningAPIServer[] = [];

beforeAll(async () => {
  pki = await createEtcdPKI();
  [serverOnly, mutual] = await Promise.all([startEtcd({ tls: pki.serverTLS(false) }), startEtcd({ tls: pki.serverTLS(true) })]);
}, 60_000);

afterAll(async () => {
  for (const store of stores) store.close();
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all([serverOnly?.stop(), mutual?.stop()]);
  await pki?.remove();
}, 60_000);

function store(etcd: EtcdCluster, tls: EtcdTLSOptions): EtcdStore {
  const s = new EtcdStore({ endpoints: etcd.endpoints, tls, prefix: `/tls-${stores.length}` });
  stores.push(s);
  return s;
}

function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Creates, reads, lists and watches through `s`, asserting each. */
async function exercise(s: EtcdStore): Promise<void> {
  const key = "/registry/core/configmaps/default/over-tls";
  const created = await s.create(key, { data: { v: "1" } });
  expect(await s.get(key)).toMatchObject({ key, value: { data: { v: "1" } }, modRevision: created.modRevision });
  const listed = await s.list("/registry/core/configmaps/");
  expect(listed.entries.map((e) => e.key)).toEqual([key]);

  const abort = new AbortController();
  const events: StoreEvent[] = [];
  const watching = (async () => {
    for await (const event of s.watch("/registry/core/configmaps/", created.modRevision - 1, abort.signal)) {
      events.push(event);
      if (events.length === 2) break;
    }
  })();
  const updated = await s.update(key, { data: { v: "2" } }, created.modRevision);
  try {
    await bounded(watching, 5_000, "the watch over TLS");
  } finally {
    abort.abort();
  }
  expect(events.map((e) => [e.type, e.entry.modRevision])).toEqual([
    ["create", created.modRevision],
    ["update", updated.modRevision],
  ]);
}

/** The error `promise` rejects with, and how long that took. */
async function failure(promise: Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error: error as Error, ms: Date.now() - started };
  }
  throw new Error("expected a failure, but it succeeded");
}

describe("EtcdStore against etcd over TLS", () => {
  it("creates, reads, lists and watches over https verified by the CA, without a client certificate", async () => {
    expect(serverOnly.endpoints[0]).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await exercise(store(serverOnly, { ca: pki.ca }));
  });

  it("creates, reads, lists and watches over mutual TLS with a client certificate", async () => {
    await exercise(store(mutual, { ca: pki.ca, cert: pki.client.certPem, key: pki.client.keyPem }));
  });

  it("fails with a 503 naming the certificate, within 5 s, when the CA does not verify etcd", async () => {
    const { error, ms } = await failure(store(serverOnly, { ca: pki.otherCA }).connect());
    expect(reasonOf(error)).toBe("ServiceUnavailable");
    expect(error.message).toMatch(/certificate/);
    expect(ms).toBeLessThan(5_000);
  });

  it("fails with a 503 naming the certificate, within 5 s, when etcd requires a client certificate and gets none", async () => {
    const { error, ms } = await failure(store(mutual, { ca: pki.ca }).connect());
    expect(reasonOf(error)).toBe("ServiceUnavailable");
    expect(error.message).toMatch(/certificate/);
    expect(ms).toBeLessThan(5_000);
  });
});

describe("orch-apiserver --etcd-servers=https://... with --etcd-cafile, --etcd-certfile, --etcd-keyfile", () => {
  it("keeps objects in an etcd that requires client certificates, and reports it ready", async () => {
    const server = await startAPIServer({
      flags: [
        "--etcd-servers",
        mutual.endpoints.join(","),
        "--etcd-cafile",
        pki.files.ca,
        "--etcd-certfile",
        pki.files.clientCert,
        "--etcd-keyfile",
        pki.files.clientKey,
      ],
    });
    servers.push(server);
    const created = await adminRequest(server, {
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "over-mtls" }, data: { answer: "42" } }),
    });
    expect(created.status, created.text).toBe(201);
    const got = await adminRequest(server, { path: "/api/v1/namespaces/default/configmaps/over-mtls" });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ metadata: { name: "over-mtls" }, data: { answer: "42" } });
    const ready = await adminRequest(server, { path: "/readyz?verbose" });
    expect(ready.status, ready.text).toBe(200);
    expect(ready.text).toContain("[+]etcd ok");
  });

  it("exits 1 within 15 s, naming the endpoint and the certificate flags, without a client certificate", async () => {
    const { error, ms } = await failure(
      startAPIServer({ flags: ["--etcd-servers", mutual.endpoints.join(","), "--etcd-cafile", pki.files.ca], readyTimeoutMs: 15_000 }),
    );
    expect(error.message).toMatch(/exited with 1/);
    expect(error.message).toContain(`cannot reach etcd at ${mutual.endpoints[0]}`);
    expect(error.message).toContain("bad certificate");
    expect(error.message).toContain("check --etcd-cafile, --etcd-certfile and --etcd-keyfile");
    expect(ms).toBeLessThan(15_000);
  });
});
