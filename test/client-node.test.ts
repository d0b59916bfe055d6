/**
 * The official JavaScript client, `@kubernetes/client-node` 1.x, against a running
 * `orch-apiserver` as users start it: through the kubeconfig the server wrote, over HTTPS with
 * the admin client certificate. Nothing here knows orch: every request and every decoded answer
 * is the client library's own.
 */
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryStore } from "@orch/store";
import { startAPIServer, startInProcessAPIServer, type RunningAPIServer } from "./support/apiserver.js";

/** A failure as the client surfaces it: `ApiException` with the HTTP code and the Status body. */
interface Failure {
  code: number;
  status: {
    kind?: string;
    apiVersion?: string;
    status?: string;
    reason?: string;
    code?: number;
    message?: string;
    details?: { name?: string; kind?: string; causes?: { reason?: string; field?: string; message?: string }[] };
  };
}

async function failure(promise: Promise<unknown>): Promise<Failure> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(k8s.ApiException);
    const e = error as k8s.ApiException<unknown>;
    // The generated client hands the body over as the raw text for codes it has no model for.
    const status = (typeof e.body === "string" ? JSON.parse(e.body) : e.body) as Failure["status"];
    return { code: e.code, status };
  }
  throw new Error("expected the request to fail");
}

const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface WatchEvent {
  type: string;
  object: k8s.KubernetesObject & { data?: Record<string, string>; code?: number; message?: string };
}

/** A `Watch` on `path` collecting its events; `stop()` aborts it. */
async function openWatch(kc: k8s.KubeConfig, path: string, query: Record<string, string | number | boolean>) {
  const events: WatchEvent[] = [];
  let ended: unknown = "open";
  const controller = await new k8s.Watch(kc).watch(
    path,
    query,
    (type, object: WatchEvent["object"]) => events.push({ type, object }),
    (err: unknown) => (ended = err),
  );
  return { events, ended: () => ended, stop: () => controller.abort() };
}

/**
 * A `Watch` as an informer uses it, with two levers: every watch asks the server to end it after
 * `timeoutSeconds` (so the informer reconnects), and a reconnect can be held back while the test
 * changes things behind the informer's back.
 */
class ReconnectingWatch extends k8s.Watch {
  readonly calls: Record<string, unknown>[] = [];
  readonly events: WatchEvent[] = [];
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;

  constructor(
    config: k8s.KubeConfig,
    private readonly timeoutSeconds: number,
  ) {
    super(config);
  }

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  release(): void {
    this.#gate = undefined;
    this.#open?.();
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    this.calls.push({ ...queryParams });
    if (this.#gate) await this.#gate;
    return super.watch(
      path,
      { ...queryParams, timeoutSeconds: this.timeoutSeconds },
      (phase, obj, raw) => {
        this.events.push({ type: phase, object: obj as WatchEvent["object"] });
        callback(phase, obj, raw);
      },
      done,
    );
  }
}

/** An informer (ListWatch) over the ConfigMaps of `namespace`, with its callbacks logged. */
function configMapInformer(core: k8s.CoreV1Api, watch: k8s.Watch, namespace: string) {
  let lists = 0;
  const informer = new k8s.ListWatch<k8s.V1ConfigMap>(
    `/api/v1/namespaces/${namespace}/configmaps`,
    watch,
    () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace });
    },
    false,
  );
  const log: string[] = [];
  informer.on("add", (o) => log.push(`add ${o.metadata?.name}`));
  informer.on("update", (o) => log.push(`update ${o.metadata?.name}`));
  informer.on("delete", (o) => log.push(`delete ${o.metadata?.name}`));
  informer.on("error", (e) => log.push(`error ${String(e)}`));
  return { informer, log, lists: () => lists };
}

/** The informer's cache as name -> (resourceVersion, data), sorted by name. */
function cacheState(informer: k8s.ObjectCache<k8s.V1ConfigMap>) {
  return [...informer.list()]
    .map((o) => ({ name: o.metadata?.name, resourceVersion: o.metadata?.resourceVersion, data: o.data }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

async function serverState(core: k8s.CoreV1Api, namespace: string) {
  const list = await core.listNamespacedConfigMap({ namespace });
  return list.items
    .map((o) => ({ name: o.metadata?.name, resourceVersion: o.metadata?.resourceVersion, data: o.data }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

describe("@kubernetes/client-node against orch-apiserver (default domain, core group)", () => {
  let server: RunningAPIServer;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  beforeAll(async () => {
    server = await startAPIServer();
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  async function namespace(name: string): Promise<string> {
    await core.createNamespace({ body: { metadata: { name } } });
    return name;
  }

  it("creates a ConfigMap and gets it back with the metadata the server set", async () => {
    const ns = await namespace("cn-create");
    const created = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: "settings", labels: { app: "web" } }, data: { mode: "fast" } },
    });
    expect(created.metadata).toMatchObject({ name: "settings", namespace: ns, labels: { app: "web" } });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    // The client decodes creationTimestamp into a Date: the server's RFC 3339 text parsed.
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(Math.abs(Date.now() - created.metadata!.creationTimestamp!.getTime())).toBeLessThan(60_000);

    const read = await core.readNamespacedConfigMap({ namespace: ns, name: "settings" });
    expect(read.data).toEqual({ mode: "fast" });
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);

    const generated = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { generateName: "gen-" } } });
    expect(generated.metadata?.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("lists every page with limit and _continue at one resourceVersion, unaffected by writes between pages", async () => {
    const ns = await namespace("cn-paging");
    const names = Array.from({ length: 7 }, (_, i) => `item-${i}`);
    for (const name of names) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });

    const seen: string[] = [];
    const versions = new Set<string>();
    const pageSizes: number[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: ns, limit: 3, ...(token ? { _continue: token } : {}) });
      pages++;
      pageSizes.push(page.items.length);
      seen.push(...page.items.map((i) => i.metadata!.name!));
      versions.add(page.metadata!.resourceVersion!);
      token = page.metadata?._continue;
      if (token) expect(page.metadata?.remainingItemCount).toBe(names.length - seen.length);
      // A write after the first page must not show up in the later ones: the list is a snapshot.
      if (pages === 1) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "item-late" } } });
      expect(pages).toBeLessThan(10);
    } while (token);

    expect(pageSizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(names);
    expect(versions.size).toBe(1);
    const fresh = await core.listNamespacedConfigMap({ namespace: ns });
    expect(fresh.items.map((i) => i.metadata?.name)).toContain("item-late");
    expect(Number(fresh.metadata?.resourceVersion)).toBeGreaterThan(Number([...versions][0]));
  });

  it("filters by label selector with every operator", async () => {
    const ns = await namespace("cn-labels");
    const objects: [string, Record<string, string>][] = [
      ["a", { tier: "web", env: "prod" }],
      ["b", { tier: "db", env: "prod" }],
      ["c", { tier: "web", env: "dev" }],
      ["d", { env: "dev" }],
    ];
    for (const [name, labels] of objects) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels } } });
    const names = async (labelSelector: string) =>
      (await core.listNamespacedConfigMap({ namespace: ns, labelSelector })).items.map((i) => i.metadata?.name).sort();
    expect(await names("tier=web")).toEqual(["a", "c"]);
    expect(await names("tier==web,env=prod")).toEqual(["a"]);
    expect(await names("tier!=web")).toEqual(["b", "d"]);
    expect(await names("env in (dev),tier")).toEqual(["c"]);
    expect(await names("tier notin (web,db)")).toEqual(["d"]);
    expect(await names("!tier")).toEqual(["d"]);
    // Across namespaces too.
    const all = await core.listConfigMapForAllNamespaces({ labelSelector: "env=prod" });
    expect(all.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`).sort()).toEqual([`${ns}/a`, `${ns}/b`]);
  });

  it("filters by field selector, and surfaces an unsupported field as a 400 Status", async () => {
    const ns = await namespace("cn-fields");
    for (const name of ["one", "two", "three"]) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name } } });
    const byName = await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: "metadata.name=two" });
    expect(byName.items.map((i) => i.metadata?.name)).toEqual(["two"]);
    const notName = await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: "metadata.name!=two" });
    expect(notName.items.map((i) => i.metadata?.name).sort()).toEqual(["one", "three"]);
    const byNamespace = await core.listConfigMapForAllNamespaces({ fieldSelector: `metadata.namespace=${ns}` });
    expect(byNamespace.items).toHaveLength(3);
    const active = await core.listNamespace({ fieldSelector: `status.phase=Active,metadata.name=${ns}` });
    expect(active.items.map((i) => i.metadata?.name)).toEqual([ns]);

    const bad = await failure(core.listNamespacedConfigMap({ namespace: ns, fieldSelector: "data.key=x" }));
    expect(bad.code).toBe(400);
    expect(bad.status).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "BadRequest", code: 400 });
    expect(bad.status.message).toContain("field label not supported: data.key");
  });

  it("watches ADDED, MODIFIED and DELETED in order, the deletion carrying the last state", async () => {
    const ns = await namespace("cn-watch");
    const start = await core.listNamespacedConfigMap({ namespace: ns });
    const watch = await openWatch(kc, `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: start.metadata!.resourceVersion! });
    try {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "w" }, data: { v: "1" } } });
      await core.patchNamespacedConfigMap({ namespace: ns, name: "w", body: { data: { v: "2" } } }, mergePatch);
      await core.deleteNamespacedConfigMap({ namespace: ns, name: "w" });
      await until(() => watch.events.length >= 3, "three watch events");
      expect(watch.events.map((e) => [e.type, e.object.metadata?.name, e.object.data?.["v"]])).toEqual([
        ["ADDED", "w", "1"],
        ["MODIFIED", "w", "2"],
        ["DELETED", "w", "2"],
      ]);
      const versions = watch.events.map((e) => Number(e.object.metadata?.resourceVersion));
      expect(versions).toEqual([...versions].sort((a, b) => a - b));
      expect(new Set(versions).size).toBe(3);
      expect(watch.ended()).toBe("open");
    } finally {
      watch.stop();
    }
  });

  it("watches one object through fieldSelector=metadata.name and ends the watch after timeoutSeconds", async () => {
    const ns = await namespace("cn-watch-one");
    const start = await core.listNamespacedConfigMap({ namespace: ns });
    const watch = await openWatch(kc, `/api/v1/namespaces/${ns}/configmaps`, {
      resourceVersion: start.metadata!.resourceVersion!,
      fieldSelector: "metadata.name=target",
      timeoutSeconds: 2,
    });
    try {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "other" } } });
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "target" } } });
      await until(() => watch.ended() !== "open", "the server to end the watch", 8_000);
      expect(watch.ended()).toBeNull();
      expect(watch.events.map((e) => [e.type, e.object.metadata?.name])).toEqual([["ADDED", "target"]]);
    } finally {
      watch.stop();
    }
  });

  it("keeps a makeInformer cache in step with live changes", async () => {
    const ns = await namespace("cn-informer");
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "before" } } });
    const informer = k8s.makeInformer<k8s.V1ConfigMap>(kc, `/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns }));
    const log: string[] = [];
    informer.on("add", (o) => log.push(`add ${o.metadata?.name}`));
    informer.on("update", (o) => log.push(`update ${o.metadata?.name}`));
    informer.on("delete", (o) => log.push(`delete ${o.metadata?.name}`));
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "after" } } });
      await core.patchNamespacedConfigMap({ namespace: ns, name: "before", body: { data: { k: "v" } } }, mergePatch);
      await core.deleteNamespacedConfigMap({ namespace: ns, name: "after" });
      await until(() => log.length >= 4, "four informer callbacks");
      expect(log).toEqual(["add before", "add after", "update before", "delete after"]);
      expect(informer.list().map((o) => o.metadata?.name)).toEqual(["before"]);
      expect(informer.get("before", ns)?.data).toEqual({ k: "v" });
    } finally {
      await informer.stop();
    }
  });

  it("keeps an informer's cache right across watch restarts (timeoutSeconds) with changes made while it was disconnected", async () => {
    const ns = await namespace("cn-restart");
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "a" } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "c" }, data: { v: "1" } } });
    const watch = new ReconnectingWatch(kc, 1);
    const { informer, log, lists } = configMapInformer(core, watch, ns);
    await informer.start();
    try {
      expect(cacheState(informer).map((o) => o.name)).toEqual(["a", "c"]);
      // Hold the next reconnect, and wait until the server has ended the current watch.
      watch.hold();
      const calls = watch.calls.length;
      await until(() => watch.calls.length > calls, "the watch to time out and reconnect", 8_000);
      await core.deleteNamespacedConfigMap({ namespace: ns, name: "a" });
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "b" } } });
      await core.patchNamespacedConfigMap({ namespace: ns, name: "c", body: { data: { v: "2" } } }, mergePatch);
      watch.release();
      await until(() => log.length >= 5, "the missed changes to reach the informer");
      expect(log).toEqual(["add a", "add c", "delete a", "add b", "update c"]);
      // It resumed from its resourceVersion: the server replayed what it missed, no relist.
      expect(lists()).toBe(1);
      const resumedFrom = watch.calls.at(-1)?.["resourceVersion"];
      expect(resumedFrom).toMatch(/^\d+$/);
      expect(cacheState(informer)).toEqual(await serverState(core, ns));
      // And it keeps following after more restarts.
      const more = watch.calls.length;
      await until(() => watch.calls.length > more + 1, "two more restarts", 8_000);
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "d" } } });
      await until(() => informer.get("d", ns) !== undefined, "d in the cache");
      expect(cacheState(informer)).toEqual(await serverState(core, ns));
      expect(log.filter((l) => l.startsWith("error"))).toEqual([]);
    } finally {
      await informer.stop();
    }
  });

  it("surfaces AlreadyExists, Conflict, NotFound and Invalid as ApiExceptions carrying the Status", async () => {
    const ns = await namespace("cn-errors");
    const created = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "taken" }, data: { v: "1" } } });

    const exists = await failure(core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "taken" } } }));
    expect(exists.code).toBe(409);
    expect(exists.status).toMatchObject({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "AlreadyExists",
      code: 409,
      message: 'configmaps "taken" already exists',
      details: { name: "taken", kind: "configmaps" },
    });

    await core.replaceNamespacedConfigMap({ namespace: ns, name: "taken", body: { ...created, data: { v: "2" } } });
    const stale = await failure(core.replaceNamespacedConfigMap({ namespace: ns, name: "taken", body: { ...created, data: { v: "3" } } }));
    expect(stale.code).toBe(409);
    expect(stale.status).toMatchObject({
      status: "Failure",
      reason: "Conflict",
      code: 409,
      message:
        'Operation cannot be fulfilled on configmaps "taken": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect((await core.readNamespacedConfigMap({ namespace: ns, name: "taken" })).data).toEqual({ v: "2" });

    const missing = await failure(core.readNamespacedConfigMap({ namespace: ns, name: "nope" }));
    expect(missing.code).toBe(404);
    expect(missing.status).toMatchObject({
      status: "Failure",
      reason: "NotFound",
      code: 404,
      message: 'configmaps "nope" not found',
      details: { name: "nope", kind: "configmaps" },
    });
    const noNamespace = await failure(core.createNamespacedConfigMap({ namespace: "no-such-ns", body: { metadata: { name: "x" } } }));
    expect(noNamespace.code).toBe(404);
    expect(noNamespace.status).toMatchObject({ reason: "NotFound", message: 'namespaces "no-such-ns" not found' });

    const invalid = await failure(core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "Bad_Name" }, data: { "a b": "x" } } }));
    expect(invalid.code).toBe(422);
    expect(invalid.status).toMatchObject({ status: "Failure", reason: "Invalid", code: 422, details: { name: "Bad_Name", kind: "ConfigMap" } });
    expect(invalid.status.message).toMatch(
      /^ConfigMap "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": .*, data\[a b\]: Invalid value: "a b": /,
    );
    expect(invalid.status.details?.causes?.map((c) => [c.reason, c.field])).toEqual([
      ["FieldValueInvalid", "metadata.name"],
      ["FieldValueInvalid", "data[a b]"],
    ]);
  });
});

describe("@kubernetes/client-node: an informer relists after a real 410 from a compacted store", () => {
  const store = new MemoryStore({ historyWindowMs: Infinity });
  let server: RunningAPIServer;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;

  beforeAll(async () => {
    server = await startInProcessAPIServer(store);
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
    store.close();
  });

  it("gets an ERROR 410 Expired event for a compacted resourceVersion, relists, and ends with the server's state", async () => {
    const ns = "relist";
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "a" } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "c" }, data: { v: "1" } } });
    const watch = new ReconnectingWatch(kc, 1);
    const { informer, log, lists } = configMapInformer(core, watch, ns);
    await informer.start();
    try {
      expect(cacheState(informer).map((o) => o.name)).toEqual(["a", "c"]);
      watch.hold();
      const calls = watch.calls.length;
      await until(() => watch.calls.length > calls, "the watch to time out and reconnect", 8_000);
      const behind = Number(watch.calls.at(-1)?.["resourceVersion"]);
      await core.deleteNamespacedConfigMap({ namespace: ns, name: "a" });
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "b" } } });
      await core.patchNamespacedConfigMap({ namespace: ns, name: "c", body: { data: { v: "2" } } }, mergePatch);
      const compactedTo = await store.revision();
      await store.compact(compactedTo);
      watch.release();

      await until(() => lists() === 2 && log.length >= 5, "the informer to relist");
      const error = watch.events.find((e) => e.type === "ERROR");
      expect(error?.object).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410 });
      expect(error?.object.message).toBe(`too old resource version: ${behind} (${compactedTo})`);
      expect(log).toEqual(["add a", "add c", "delete a", "add b", "update c"]);
      expect(cacheState(informer)).toEqual(await serverState(core, ns));
      // After the relist it watches from the list's resourceVersion and follows live changes again.
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "d" } } });
      await until(() => informer.get("d", ns) !== undefined, "d in the cache");
      expect(cacheState(informer)).toEqual(await serverState(core, ns));
    } finally {
      await informer.stop();
    }
  });
});

describe("@kubernetes/client-node against orch-apiserver --domain k8s.io (coordination.k8s.io leases)", () => {
  let server: RunningAPIServer;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let coordination: k8s.CoordinationV1Api;

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
    kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    coordination = kc.makeApiClient(k8s.CoordinationV1Api);
    for (const name of ["lease-a", "lease-b"]) await core.createNamespace({ body: { metadata: { name } } });
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it("serves the reference system's built-in namespaces", async () => {
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(expect.arrayContaining(["default", "kube-system", "kube-public"]));
  });

  it("creates a Lease with micro-time fields and reads it back", async () => {
    const renew = new Date("2026-11-21T20:49:14.123Z");
    const created = await coordination.createNamespacedLease({
      namespace: "lease-a",
      body: {
        metadata: { name: "leader", labels: { role: "controller" } },
        spec: { holderIdentity: "pod-1", leaseDurationSeconds: 15, renewTime: renew, acquireTime: renew },
      },
    });
    expect(created.apiVersion).toBe("coordination.k8s.io/v1");
    expect(created.kind).toBe("Lease");
    expect(created.spec).toMatchObject({ holderIdentity: "pod-1", leaseDurationSeconds: 15 });
    const read = await coordination.readNamespacedLease({ namespace: "lease-a", name: "leader" });
    // Micro-times come back with six fractional digits, as the reference writes them.
    expect(String(read.spec?.renewTime)).toBe("2026-11-21T20:49:14.123000Z");
    expect(read.metadata?.uid).toBe(created.metadata?.uid);
  });

  it("lists leases across namespaces in pages, with label selectors", async () => {
    for (const [ns, name, role] of [
      ["lease-b", "l5", "worker"],
      ["lease-a", "l1", "worker"],
      ["lease-b", "l3", "worker"],
      ["lease-a", "l2", "controller"],
      ["lease-b", "l4", "controller"],
    ] as const) {
      await coordination.createNamespacedLease({
        namespace: ns,
        body: { metadata: { name, labels: { set: "paging", role } }, spec: { holderIdentity: name } },
      });
    }
    const seen: string[] = [];
    const versions = new Set<string>();
    const sizes: number[] = [];
    let token: string | undefined;
    do {
      const page = await coordination.listLeaseForAllNamespaces({ limit: 2, labelSelector: "set=paging", ...(token ? { _continue: token } : {}) });
      sizes.push(page.items.length);
      seen.push(...page.items.map((l) => `${l.metadata?.namespace}/${l.metadata?.name}`));
      versions.add(page.metadata!.resourceVersion!);
      token = page.metadata?._continue;
      expect(sizes.length).toBeLessThan(10);
    } while (token);
    // In key order (namespace, then name), whatever the order of creation.
    expect(seen).toEqual(["lease-a/l1", "lease-a/l2", "lease-b/l3", "lease-b/l4", "lease-b/l5"]);
    expect(sizes).toEqual([2, 2, 1]);
    expect(versions.size).toBe(1);
    const workers = await coordination.listNamespacedLease({ namespace: "lease-b", labelSelector: "set=paging,role=worker" });
    expect(workers.items.map((l) => l.metadata?.name)).toEqual(["l3", "l5"]);
    const notWorkers = await coordination.listLeaseForAllNamespaces({ labelSelector: "set=paging,role notin (worker)" });
    expect(notWorkers.items.map((l) => l.metadata?.name)).toEqual(["l2", "l4"]);
  });

  it("watches a Lease being renewed and released", async () => {
    const start = await coordination.listNamespacedLease({ namespace: "lease-b" });
    const watch = await openWatch(kc, "/apis/coordination.k8s.io/v1/namespaces/lease-b/leases", { resourceVersion: start.metadata!.resourceVersion! });
    try {
      await coordination.createNamespacedLease({
        namespace: "lease-b",
        body: { metadata: { name: "hb" }, spec: { holderIdentity: "n1", leaseDurationSeconds: 40 } },
      });
      const current = await coordination.readNamespacedLease({ namespace: "lease-b", name: "hb" });
      await coordination.replaceNamespacedLease({ namespace: "lease-b", name: "hb", body: { ...current, spec: { ...current.spec, renewTime: new Date() } } });
      await coordination.deleteNamespacedLease({ namespace: "lease-b", name: "hb" });
      await until(() => watch.events.length >= 3, "three lease events");
      expect(watch.events.map((e) => [e.type, e.object.kind, e.object.metadata?.name])).toEqual([
        ["ADDED", "Lease", "hb"],
        ["MODIFIED", "Lease", "hb"],
        ["DELETED", "Lease", "hb"],
      ]);
    } finally {
      watch.stop();
    }
  });

  it("surfaces a stale update as 409 Conflict and a bad spec as 422 with the field", async () => {
    const created = await coordination.createNamespacedLease({ namespace: "lease-a", body: { metadata: { name: "cas" }, spec: { holderIdentity: "x" } } });
    await coordination.replaceNamespacedLease({ namespace: "lease-a", name: "cas", body: { ...created, spec: { holderIdentity: "y" } } });
    const stale = await failure(
      coordination.replaceNamespacedLease({ namespace: "lease-a", name: "cas", body: { ...created, spec: { holderIdentity: "z" } } }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status).toMatchObject({
      reason: "Conflict",
      message:
        'Operation cannot be fulfilled on leases.coordination.k8s.io "cas": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: "cas", group: "coordination.k8s.io", kind: "leases" },
    });
    const invalid = await failure(
      coordination.createNamespacedLease({ namespace: "lease-a", body: { metadata: { name: "bad" }, spec: { leaseDurationSeconds: 0 } } }),
    );
    expect(invalid.code).toBe(422);
    expect(invalid.status).toMatchObject({ reason: "Invalid", details: { name: "bad", group: "coordination.k8s.io", kind: "Lease" } });
    expect(invalid.status.message).toBe('Lease.coordination.k8s.io "bad" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0');
    expect(invalid.status.details?.causes).toEqual([
      { reason: "FieldValueInvalid", field: "spec.leaseDurationSeconds", message: "Invalid value: 0: must be greater than 0" },
    ]);
    const missing = await failure(coordination.readNamespacedLease({ namespace: "lease-a", name: "gone" }));
    expect(missing.code).toBe(404);
    expect(missing.status).toMatchObject({
      reason: "NotFound",
      message: 'leases.coordination.k8s.io "gone" not found',
      details: { name: "gone", group: "coordination.k8s.io", kind: "leases" },
    });
  });
});
