/**
 * Controllers benchmark, in process: an `APIServer` (admission off, for setup speed) and a
 * `ControllerManager` running every default controller over `inProcessTransport` as a
 * `system:masters` user, with a signing CA.
 * - garbage collection of an owner ConfigMap with N dependents (ConfigMaps whose
 *   ownerReference, with `blockOwnerDeletion`, names it): the time from the owner's DELETE to
 *   the last of them gone (the owner too), for `propagationPolicy=Background` and `Foreground`,
 *   against the time this process takes to DELETE the same N objects one by one through the same
 *   server (with the manager running too, so both pay the same watch fan-out), in one run;
 * - idle CPU: the process CPU time (`process.cpuUsage()`) over 2 s with nothing happening, the
 *   manager's informers synced over the N+1 objects, as a share of one core; target: under 2%
 *   (informers watch, nothing polls);
 * - CSR sign latency: from approving a request through the `approval` sub-resource to
 *   `status.certificate` being set, the median over sequential requests.
 * Gone, set and seen are read from a watch of this process, started at the resourceVersion
 * before the timed step, so nothing polls the server while it is being timed. Figures are
 * printed, never asserted. Run it alone with
 * `npx tsx --conditions=@orch/source bench/controllers.bench.ts [--quick]`.
 * @module
 */
import { pathToFileURL } from "node:url";
import { Client, configMapsRef, inProcessTransport, resourceRefOf, type ResourceClient, type WatchOptions } from "@orch/client";
import { builtinControllers, ControllerManager } from "@orch/controllers";
import type { APIObject, WatchEvent } from "@orch/meta";
import { certificateSigningRequestType } from "@orch/resources";
import { APIServer } from "@orch/server";
// A fixed test CA and PKCS#10 request: no package of ours makes requests, and one request may be
// signed any number of times under different names.
import { aliceRequest, testCA } from "../packages/controllers/src/internal/test-pki.js";
import { median } from "./cpu-target.js";

const namespace = "bench";
/** The longest any wait of this benchmark may take before it fails. */
const waitLimitMs = 120_000;
const admin = { name: "bench-admin", groups: ["system:masters", "system:authenticated"] };
const csrRef = resourceRefOf(certificateSigningRequestType, "v1");

/** A client of the server as `system:masters`, and the manager's last log lines (for error messages). */
interface Cluster {
  client: Client;
  configMaps: ResourceClient;
  logs: string[];
}

/** A manager of every default controller over `client`, with the test CA to sign with; log lines go to `logs` (the last 20). */
function startManager(client: Client, logs: string[]): ControllerManager {
  const manager = new ControllerManager({
    client,
    controllers: builtinControllers,
    selection: "*",
    signing: { caCertPem: testCA.certPem, caKeyPem: testCA.keyPem, durationMs: 24 * 3600 * 1000 },
    log: (line) => {
      logs.push(line);
      if (logs.length > 20) logs.shift();
    },
  });
  manager.start();
  return manager;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Waits on a watch of `resource` (from `opts.resourceVersion`) until `done` holds for an event;
 * answers the `performance.now()` of that event. Throws after {@link waitLimitMs}, on an `ERROR`
 * event, or when the watch ends first.
 */
async function watchUntil(
  resource: ResourceClient,
  opts: WatchOptions,
  done: (event: WatchEvent) => boolean,
  what: string,
  logs: readonly string[],
): Promise<number> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), waitLimitMs);
  try {
    for await (const event of resource.watch({ ...opts, signal: abort.signal })) {
      if (event.type === "ERROR") throw new Error(`${what}: the watch failed: ${JSON.stringify(event.object)}`);
      if (done(event)) return performance.now();
    }
    const why = abort.signal.aborted ? `not within ${waitLimitMs / 1000} s` : "the watch ended first";
    throw new Error(`${what}: ${why}${logs.length ? ` (the manager's last log lines: ${logs.join(" | ")})` : ""}`);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/** The process's CPU time over `ms` of wall time, as a share of one core. */
async function cpuShare(ms: number): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / (performance.now() - started);
}

/**
 * Waits until the process has gone quiet (a 100 ms window under 5% of a core), so that a timed
 * step does not start with the informers still catching up; false when it never did within
 * {@link waitLimitMs}.
 */
async function quiesce(): Promise<boolean> {
  const end = Date.now() + waitLimitMs;
  while (Date.now() < end) if ((await cpuShare(100)) < 0.05) return true;
  return false;
}

/** An owner ConfigMap and `n` dependents, all labelled `bench=<prefix>`; answers the resourceVersion after the last. */
async function population(configMaps: ResourceClient, prefix: string, n: number): Promise<{ owner: string; dependents: string[]; resourceVersion: string }> {
  const labels = { bench: prefix };
  const owner = await configMaps.create({ metadata: { name: `${prefix}-owner`, labels } } as APIObject, { namespace });
  const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: `${prefix}-owner`, uid: owner.metadata.uid ?? "", blockOwnerDeletion: true }];
  const dependents = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const batch = 32;
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      dependents
        .slice(i, i + batch)
        .map((name) => configMaps.create({ metadata: { name, labels, ownerReferences }, data: { index: name } } as APIObject, { namespace })),
    );
  }
  const list = await configMaps.list({ namespace, limit: 1 });
  return { owner: `${prefix}-owner`, dependents, resourceVersion: list.metadata.resourceVersion ?? "" };
}

/** A watch from `resourceVersion` that resolves when `count` objects labelled `bench=<prefix>` were deleted. */
function deletions(cluster: Cluster, prefix: string, resourceVersion: string, count: number, what: string): Promise<number> {
  let seen = 0;
  return watchUntil(
    cluster.configMaps,
    { namespace, labelSelector: `bench=${prefix}`, resourceVersion },
    (e) => e.type === "DELETED" && ++seen === count,
    what,
    cluster.logs,
  );
}

/** Proves the garbage collector is running (its informers synced): a probe owner's dependent is collected. */
async function gcRunning(cluster: Cluster): Promise<void> {
  const probe = await population(cluster.configMaps, "probe", 1);
  const gone = deletions(cluster, "probe", probe.resourceVersion, 2, "the garbage collector's first collection");
  await cluster.configMaps.delete(probe.owner, { namespace, propagationPolicy: "Background" });
  await gone;
}

/** Milliseconds from the owner's DELETE to the owner and its `n` dependents gone. */
async function collect(
  cluster: Cluster,
  prefix: string,
  n: number,
  propagationPolicy: "Background" | "Foreground",
  made?: Awaited<ReturnType<typeof population>>,
): Promise<number> {
  const objects = made ?? (await population(cluster.configMaps, prefix, n));
  await quiesce();
  const gone = deletions(cluster, prefix, objects.resourceVersion, n + 1, `${propagationPolicy} collection of ${n.toLocaleString("en")} dependents`);
  const started = performance.now();
  await cluster.configMaps.delete(objects.owner, { namespace, propagationPolicy });
  return (await gone) - started;
}

/** Milliseconds for this process to DELETE `n` dependents one by one (their owner stays). */
async function deleteOneByOne(cluster: Cluster, prefix: string, n: number): Promise<number> {
  const objects = await population(cluster.configMaps, prefix, n);
  await quiesce();
  const gone = deletions(cluster, prefix, objects.resourceVersion, n, `deleting ${n.toLocaleString("en")} ConfigMaps one by one`);
  const started = performance.now();
  for (const name of objects.dependents) await cluster.configMaps.delete(name, { namespace });
  const ms = (await gone) - started;
  await cluster.configMaps.delete(objects.owner, { namespace });
  return ms;
}

/** Milliseconds from each approval to its certificate, for `count` requests one after the other. */
async function csrSignLatencies(cluster: Cluster, count: number): Promise<number[]> {
  const csrs = cluster.client.resource(csrRef);
  const request = Buffer.from(aliceRequest).toString("base64");
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const name = `bench-${i}`;
    const created = await csrs.create({
      metadata: { name },
      spec: { signerName: `${cluster.client.domain}/orch-apiserver-client`, usages: ["digital signature", "key encipherment", "client auth"], request },
    } as APIObject);
    const signed = watchUntil(
      csrs,
      { fieldSelector: `metadata.name=${name}`, resourceVersion: created.metadata.resourceVersion ?? "" },
      (e) => {
        const status = (e.object as APIObject)["status"] as { certificate?: string; conditions?: { type: string }[] } | undefined;
        if (status?.conditions?.some((c) => c.type === "Failed")) throw new Error(`CSR ${name} failed: ${JSON.stringify(status.conditions)}`);
        return (status?.certificate ?? "") !== "";
      },
      `signing CSR ${name}`,
      cluster.logs,
    );
    const approved = { ...created, status: { conditions: [{ type: "Approved", status: "True", reason: "Bench", message: "approved by the benchmark" }] } };
    const started = performance.now();
    await csrs.update(approved, { subresource: "approval" });
    latencies.push((await signed) - started);
  }
  return latencies;
}

const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;

/** Every measurement, as printed lines. */
export async function controllersBenchmark(quick: boolean): Promise<string[]> {
  const n = quick ? 2000 : 10_000;
  const server = new APIServer({ admission: [] });
  let manager: ControllerManager | undefined;
  try {
    await server.ready();
    const client = new Client({ transport: inProcessTransport(server, { user: admin }) });
    const cluster: Cluster = { client, configMaps: client.resource(configMapsRef), logs: [] };
    await client.namespaces.create({ metadata: { name: namespace } } as APIObject);
    // The first population is there before the manager starts: its informers sync over it by list.
    const first = await population(cluster.configMaps, "bg", n);
    manager = startManager(client, cluster.logs);
    await gcRunning(cluster);
    const settled = await quiesce();
    const idle = await cpuShare(2000);
    const background = await collect(cluster, "bg", n, "Background", first);
    const foreground = await collect(cluster, "fg", n, "Foreground");
    const baseline = await deleteOneByOne(cluster, "one", n);
    const signs = await csrSignLatencies(cluster, quick ? 5 : 20);
    const count = n.toLocaleString("en");
    return [
      `Background GC of ${count} dependents   ${ms(background)}   one-by-one DELETEs ${ms(baseline)}   ${(background / baseline).toFixed(2)}x`,
      `Foreground GC of ${count} dependents   ${ms(foreground)}   one-by-one DELETEs ${ms(baseline)}   ${(foreground / baseline).toFixed(2)}x (the owner gone last)`,
      `idle CPU, every default controller, ${(n + 1).toLocaleString("en")} objects watched: ${(idle * 100).toFixed(2)}% of a core over 2 s (target <2% of a core) ` +
        `${idle < 0.02 ? "ok" : "OVER"}${settled ? "" : " (the process never went quiet before)"}`,
      `CSR approval to certificate        median ${median(signs).toFixed(1)} ms over ${signs.length} requests (min ${Math.min(...signs).toFixed(1)}, max ${Math.max(...signs).toFixed(1)})`,
    ];
  } finally {
    await manager?.stop();
    await server.shutdown();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const line of await controllersBenchmark(process.argv.includes("--quick"))) console.log(line);
}
