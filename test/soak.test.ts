/**
 * The soak: `orch-apiserver` (SQLite store, in-process controllers, HTTPS on loopback) in a
 * child process under moderate steady load for `ORCH_SOAK_SECONDS` (300 by default): writers
 * create, update (PUT and merge PATCH) and delete ConfigMaps of fresh names in three namespaces,
 * listers list them (whole, paged with `limit`/`continue`, from the cache with
 * `resourceVersion=0`), and 500 watchers come and go for a random while, each from a known
 * resourceVersion (half from a list's, as an informer starts, half from the newest acknowledged
 * write's); four in five are closed by the client, one in five ends at its `timeoutSeconds`.
 *
 * It proves that every watcher got every event of its namespace after its start in order (against
 * the log of acknowledged writes the writers keep), that the server's resident memory and heap
 * after a forced collection are flat after the warm-up, and that once the clients left the server
 * holds no more watchers, sockets or timers than before the load.
 *
 * Before the measured run the writers fill the watch cache's event window (10 000 events) at
 * full speed, so that the window's legitimate growth is not mistaken for a leak.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminTLS, httpsRequestTo } from "./support/apiserver.js";
import type { SoakParentMessage, SoakProbe, SoakServerMessage } from "./support/soak-server.js";

/** The measured run, in seconds. */
const seconds = Number(process.env["ORCH_SOAK_SECONDS"] ?? 300);
if (!(seconds >= 10)) throw new Error(`ORCH_SOAK_SECONDS must be a number of at least 10, got ${process.env["ORCH_SOAK_SECONDS"]}`);
const runMs = seconds * 1000;

const namespaces = ["soak-0", "soak-1", "soak-2"];
const writersPerNamespace = 2;
/** Writes per second of all writers together during the measured run. */
const writeRate = 30;
/** Writes before the measured run: more than the watch cache's event window holds. */
const fillWrites = 11_000;
const fillBoundMs = 240_000;
const watcherCount = 500;
const listers = 2;
const listPauseMs = 250;
/** How long a closing watcher waits for the last acknowledged write of its namespace. */
const catchUpMs = 60_000;
const requestTimeoutMs = 30_000;
/** One memory sample every this many ms; a baseline or end figure is the median of `sampleWindow` samples. */
const sampleEveryMs = Math.min(10_000, Math.max(3_000, Math.floor(runMs / 30)));
const sampleWindow = 3;
const warmUpMs = runMs * 0.2;
const startBoundMs = 90_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

// ---- The server process --------------------------------------------------------------------

/** The forked server: its URL and a way to ask it about itself. */
class SoakServer {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (probe: SoakProbe) => void>();
  #nextId = 0;
  #stderr = "";
  #stopping = false;
  #exitedEarly = false;
  readonly exited: Promise<number | null>;
  readonly ready: Promise<string>;

  constructor(dataDir: string) {
    this.#child = fork(fileURLToPath(new URL("./support/soak-server.ts", import.meta.url)), [dataDir], {
      execArgv: ["--import", "tsx", "--conditions=@orch/source", "--expose-gc"],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    this.#child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (this.#stderr = (this.#stderr + chunk).slice(-20_000)));
    this.exited = new Promise((resolve) => this.#child.once("exit", (code) => resolve(code)));
    this.ready = new Promise((resolve, reject) => {
      this.#child.on("message", (message: SoakServerMessage) => {
        if (message.type === "ready") resolve(message.url);
        else if (message.type === "exited") reject(new Error(`the soak server ended with ${message.code}: ${this.#stderr}`));
        else if (message.type === "probe") this.#pending.get(message.id)?.(message.probe);
      });
      void this.exited.then((code) => {
        this.#exitedEarly = !this.#stopping;
        reject(new Error(`the soak server exited with ${code}: ${this.#stderr}`));
      });
    });
    this.ready.catch(() => undefined);
  }

  /** Whether the server exited without being asked to. */
  get exitedEarly(): boolean {
    return this.#exitedEarly;
  }

  /** What the server's stderr said last. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Memory after forced collections, active resources and cache watchers of the server process. */
  probe(): Promise<SoakProbe> {
    if (!this.#child.connected) return Promise.reject(new Error(`the soak server is gone: ${this.#stderr}`));
    const id = this.#nextId++;
    const answer = new Promise<SoakProbe>((resolve) => this.#pending.set(id, resolve));
    this.#child.send({ type: "probe", id } satisfies SoakParentMessage);
    return bounded(answer, requestTimeoutMs, "a probe of the soak server").finally(() => this.#pending.delete(id));
  }

  /** Stops the server (a stop message, then SIGKILL after 20 s); resolves with its exit code. */
  async stop(): Promise<number | null> {
    this.#stopping = true;
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return this.#child.exitCode;
    if (this.#child.connected) this.#child.send({ type: "stop" } satisfies SoakParentMessage);
    try {
      return await bounded(this.exited, 20_000, "the soak server's shutdown");
    } catch {
      this.#child.kill("SIGKILL");
      await this.exited;
      return null;
    }
  }
}

// ---- Requests ------------------------------------------------------------------------------

interface TLS {
  ca: string;
  cert: string;
  key: string;
}

interface Response {
  status: number;
  json: Record<string, unknown>;
}

/**
 * One request through the keep-alive `agent`, bounded. A GET that meets a reset on a reused
 * connection (the server closed it as idle while the request was on its way) is sent once more,
 * as Node's documentation advises; a write is not, its outcome being unknown.
 */
async function call(url: string, agent: Agent, method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Response> {
  try {
    return await callOnce(url, agent, method, path, body, contentType);
  } catch (error) {
    if (method !== "GET" || !(error as { reusedSocket?: boolean }).reusedSocket || (error as NodeJS.ErrnoException).code !== "ECONNRESET") throw error;
    return callOnce(url, agent, method, path, body, contentType);
  }
}

function callOnce(url: string, agent: Agent, method: string, path: string, body: unknown, contentType: string): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const req = httpsRequest(
      `${url}${path}`,
      { agent, method, headers: body === undefined ? {} : { "Content-Type": contentType }, timeout: requestTimeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: Record<string, unknown>;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = { text };
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on("error", (error) => reject(Object.assign(error, { reusedSocket: req.reusedSocket })));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

interface ObjectMeta {
  name?: string;
  resourceVersion?: string;
}

const metaOf = (object: unknown): ObjectMeta => ((object as { metadata?: ObjectMeta } | undefined)?.metadata ?? {}) as ObjectMeta;
const rvOf = (object: unknown): number => Number(metaOf(object).resourceVersion);

// ---- The ground truth the writers keep -----------------------------------------------------

/** An acknowledged create or update: its revision came back in the response. */
interface AckedWrite {
  ns: string;
  name: string;
  type: "ADDED" | "MODIFIED";
  rv: number;
}

/**
 * An acknowledged delete: the response (a Success Status) carries no revision, so the log keeps
 * bounds. `lo`: the newest revision acknowledged to anyone when the delete was sent; `hi`: the
 * revision of a write sent after the delete was acknowledged.
 */
interface AckedDelete {
  ns: string;
  name: string;
  lo: number;
  hi?: number;
}

class GroundTruth {
  readonly writes: AckedWrite[] = [];
  readonly deletes = new Map<string, AckedDelete>();
  /** The newest acknowledged revision, any namespace. */
  maxAcked = 0;
  readonly #maxIn = new Map<string, number>();

  ack(write: AckedWrite): void {
    this.writes.push(write);
    this.maxAcked = Math.max(this.maxAcked, write.rv);
    this.#maxIn.set(write.ns, Math.max(this.#maxIn.get(write.ns) ?? 0, write.rv));
  }

  /** The newest acknowledged create or update in `ns`. */
  maxIn(ns: string): number {
    return this.#maxIn.get(ns) ?? 0;
  }
}

const ours = (name: string) => name.startsWith("soak-w");

// ---- Writers -------------------------------------------------------------------------------

interface LoadControl {
  /** Writers run unthrottled while true (the fill before the measured run). */
  fill: boolean;
  stopped: boolean;
  readonly failures: string[];
  writes: number;
  lists: number;
}

async function writer(id: string, ns: string, url: string, agent: Agent, truth: GroundTruth, control: LoadControl): Promise<void> {
  const live: { name: string; rv: number }[] = [];
  const openDeletes: AckedDelete[] = [];
  let seq = 0;
  const perWriterMs = (1000 * namespaces.length * writersPerNamespace) / writeRate;
  let next = Date.now();
  const acked = (type: AckedWrite["type"], name: string, object: unknown): number => {
    const rv = rvOf(object);
    if (!Number.isSafeInteger(rv)) throw new Error(`${type} ${ns}/${name}: no resourceVersion in ${JSON.stringify(object)}`);
    truth.ack({ ns, name, type, rv });
    for (const d of openDeletes.splice(0)) d.hi = rv;
    return rv;
  };
  while (!control.stopped) {
    if (!control.fill) {
      next = Math.max(next + perWriterMs, Date.now() - perWriterMs);
      await sleep(next - Date.now());
      if (control.stopped) break;
    }
    const roll = Math.random();
    const data = { seq: String(seq), pad: "x".repeat(200 + (seq % 50)) };
    try {
      if (live.length < 3 || (roll < 0.35 && live.length < 12)) {
        const name = `soak-w${id}-${seq++}`;
        const res = await call(url, agent, "POST", `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name }, data });
        if (res.status !== 201) throw new Error(`create ${ns}/${name}: ${res.status} ${JSON.stringify(res.json)}`);
        live.push({ name, rv: acked("ADDED", name, res.json) });
      } else if (roll < 0.7) {
        const target = live[Math.floor(Math.random() * live.length)]!;
        const path = `/api/v1/namespaces/${ns}/configmaps/${target.name}`;
        seq++;
        const res =
          roll < 0.55
            ? await call(url, agent, "PUT", path, { metadata: { name: target.name, resourceVersion: String(target.rv) }, data })
            : await call(url, agent, "PATCH", path, { data: { seq: String(seq) } }, "application/merge-patch+json");
        if (res.status !== 200) throw new Error(`update ${ns}/${target.name}: ${res.status} ${JSON.stringify(res.json)}`);
        target.rv = acked("MODIFIED", target.name, res.json);
      } else {
        const target = live.shift()!;
        const d: AckedDelete = { ns, name: target.name, lo: truth.maxAcked };
        const res = await call(url, agent, "DELETE", `/api/v1/namespaces/${ns}/configmaps/${target.name}`);
        if (res.status !== 200) throw new Error(`delete ${ns}/${target.name}: ${res.status} ${JSON.stringify(res.json)}`);
        truth.deletes.set(`${ns}/${target.name}`, d);
        openDeletes.push(d);
      }
      control.writes++;
    } catch (error) {
      // A write whose outcome is unknown spoils the ground truth: the run reports it and stops writing here.
      control.failures.push(`writer ${id}: ${(error as Error).message}`);
      return;
    }
  }
}

// ---- Listers -------------------------------------------------------------------------------

async function lister(url: string, agent: Agent, control: LoadControl): Promise<void> {
  let round = 0;
  while (!control.stopped) {
    const ns = namespaces[round % namespaces.length]!;
    const base = round % 4 === 3 ? "/api/v1/configmaps" : `/api/v1/namespaces/${ns}/configmaps`;
    const mode = round % 3;
    round++;
    try {
      if (mode === 0) {
        // Paged: every page of one list is served at the first page's revision.
        let token: string | undefined;
        let rv: string | undefined;
        const names = new Set<string>();
        do {
          const query = `?limit=7${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
          const res = await call(url, agent, "GET", `${base}${query}`);
          if (res.status !== 200) throw new Error(`list ${base}${query}: ${res.status} ${JSON.stringify(res.json)}`);
          const meta = res.json["metadata"] as { resourceVersion?: string; continue?: string };
          if (rv !== undefined && meta.resourceVersion !== rv) throw new Error(`list ${base}: a page at ${meta.resourceVersion} after one at ${rv}`);
          rv = meta.resourceVersion;
          for (const item of res.json["items"] as unknown[]) {
            const key = `${(item as { metadata: { namespace?: string } }).metadata.namespace}/${metaOf(item).name}`;
            if (names.has(key)) throw new Error(`list ${base}: ${key} twice`);
            names.add(key);
            if (rvOf(item) > Number(rv)) throw new Error(`list ${base} at ${rv}: ${key} at ${metaOf(item).resourceVersion}`);
          }
          token = meta.continue || undefined;
        } while (token !== undefined && !control.stopped);
      } else {
        const query = mode === 1 ? "" : "?resourceVersion=0";
        const res = await call(url, agent, "GET", `${base}${query}`);
        if (res.status !== 200) throw new Error(`list ${base}${query}: ${res.status} ${JSON.stringify(res.json)}`);
        const rv = Number((res.json["metadata"] as ObjectMeta).resourceVersion);
        for (const item of res.json["items"] as unknown[]) {
          if (rvOf(item) > rv) throw new Error(`list ${base}${query} at ${rv}: ${metaOf(item).name} at ${metaOf(item).resourceVersion}`);
        }
      }
      control.lists++;
    } catch (error) {
      control.failures.push(`lister: ${(error as Error).message}`);
    }
    await sleep(listPauseMs);
  }
}

// ---- Watchers ------------------------------------------------------------------------------

interface SeenEvent {
  type: string;
  name: string;
  rv: number;
}

/** What one watcher saw, for the check against the ground truth once the writers stopped. */
interface WatchRecord {
  id: number;
  ns: string;
  /** The resourceVersion it started from. */
  from: number;
  events: SeenEvent[];
  /** Everything up to here must have arrived: the newest event or bookmark revision. */
  upTo: number;
  errors: string[];
}

/** One watch stream on its own connection: parses events, checks their order as they come. */
class Watch {
  readonly record: WatchRecord;
  readonly ended: Promise<void>;
  #closing = false;
  #ended = false;
  #waiters: (() => void)[] = [];
  readonly #destroy: () => void;

  constructor(id: number, url: string, tls: TLS, ns: string, from: number, options: { bookmarks: boolean; timeoutSeconds?: number }) {
    this.record = { id, ns, from, events: [], upTo: from, errors: [] };
    const query = `?watch=1&resourceVersion=${from}${options.bookmarks ? "&allowWatchBookmarks=true" : ""}${
      options.timeoutSeconds === undefined ? "" : `&timeoutSeconds=${options.timeoutSeconds}`
    }`;
    const req = httpsRequest(`${url}/api/v1/namespaces/${ns}/configmaps${query}`, { ...tls, agent: false });
    this.#destroy = () => req.destroy();
    this.ended = new Promise<void>((settle) => {
      const resolve = (): void => {
        this.#ended = true;
        settle();
      };
      req.on("error", (error) => {
        if (!this.#closing) this.record.errors.push(`watcher ${id}: ${error.message}`);
        resolve();
      });
      let responded = false;
      // Without a response the request's close is the end; with one, the response's close is.
      req.on("close", () => responded || resolve());
      req.on("response", (res) => {
        responded = true;
        if (res.statusCode !== 200) this.record.errors.push(`watcher ${id}: status ${res.statusCode}`);
        let buffer = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line.trim() !== "") this.#event(line);
          }
        });
        res.on("error", () => undefined);
        res.on("close", () => {
          // Only a watch with timeoutSeconds may end on the server's side, and only complete.
          if (!this.#closing && (options.timeoutSeconds === undefined || !res.complete)) {
            this.record.errors.push(
              `watcher ${id}: the server ended the stream (${res.complete ? "complete" : "cut off"}) after ${this.record.events.length} events`,
            );
          }
          resolve();
        });
      });
    });
    req.end();
  }

  #event(line: string): void {
    const { record } = this;
    let event: { type: string; object: unknown };
    try {
      event = JSON.parse(line) as { type: string; object: unknown };
    } catch {
      record.errors.push(`watcher ${record.id}: not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const rv = rvOf(event.object);
    if (event.type === "ERROR") {
      record.errors.push(`watcher ${record.id}: ERROR ${JSON.stringify(event.object)}`);
    } else if (event.type === "BOOKMARK") {
      if (!(rv >= record.upTo)) record.errors.push(`watcher ${record.id}: bookmark at ${rv} after ${record.upTo}`);
      else record.upTo = rv;
    } else {
      const name = metaOf(event.object).name ?? "";
      const last = record.events.at(-1)?.rv ?? record.from;
      if (!(rv > last)) record.errors.push(`watcher ${record.id}: ${event.type} ${name} at ${rv} after ${last}`);
      record.events.push({ type: event.type, name, rv });
      record.upTo = Math.max(record.upTo, rv);
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves once an event or bookmark at `rv` or later arrived; false after `ms`. */
  async reach(rv: number, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.record.upTo < rv && Date.now() < deadline && !this.#ended) {
      await Promise.race([new Promise<void>((resolve) => this.#waiters.push(resolve)), sleep(Math.min(1_000, deadline - Date.now())), this.ended]);
      if (this.record.errors.length > 0) break;
    }
    return this.record.upTo >= rv;
  }

  close(): void {
    this.#closing = true;
    this.#destroy();
  }
}

/** Watcher `id`: starts from a known revision, stays `lifeMs`, leaves; its record. */
async function watcher(id: number, lifeMs: number, url: string, agent: Agent, tls: TLS, truth: GroundTruth): Promise<WatchRecord> {
  const ns = namespaces[id % namespaces.length]!;
  let from: number;
  if (id % 2 === 0) {
    // As an informer does: a list, then a watch from its revision.
    const failed = (why: string): WatchRecord => ({ id, ns, from: 0, events: [], upTo: 0, errors: [`watcher ${id}: list ${why}`] });
    let res: Response;
    try {
      res = await call(url, agent, "GET", `/api/v1/namespaces/${ns}/configmaps?limit=5`);
    } catch (error) {
      return failed((error as Error).message);
    }
    from = Number((res.json["metadata"] as ObjectMeta | undefined)?.resourceVersion);
    if (res.status !== 200 || !Number.isSafeInteger(from)) return failed(`${res.status} ${JSON.stringify(res.json)}`);
  } else {
    from = truth.maxAcked;
  }
  const serverEnds = id % 5 === 4;
  const watch = new Watch(id, url, tls, ns, from, {
    bookmarks: id % 3 !== 0,
    ...(serverEnds ? { timeoutSeconds: Math.max(1, Math.round(lifeMs / 1000)) } : {}),
  });
  if (serverEnds) {
    // Ended by the server's timeout: everything up to its last event must be there.
    try {
      await bounded(watch.ended, lifeMs + catchUpMs + 10_000, `watcher ${id} (timeoutSeconds)`);
    } catch (error) {
      watch.record.errors.push((error as Error).message);
      watch.close();
    }
    return watch.record;
  }
  await Promise.race([sleep(lifeMs), watch.ended]);
  // Leaving: first everything acknowledged in the namespace until now must arrive.
  const target = truth.maxIn(ns);
  if (!(await watch.reach(target, catchUpMs)) && watch.record.errors.length === 0) {
    watch.record.errors.push(`watcher ${id}: reached ${watch.record.upTo}, not ${target}, within ${catchUpMs} ms`);
  }
  watch.close();
  await bounded(watch.ended, 10_000, `watcher ${id}'s close`).catch((error: unknown) => watch.record.errors.push((error as Error).message));
  return watch.record;
}

/** Checks every watcher's events against the complete log of acknowledged writes. */
function checkWatchers(records: readonly WatchRecord[], truth: GroundTruth): string[] {
  const failures: string[] = [];
  // The revision of a delete is what the watchers that saw it agree on.
  const deleteRv = new Map<string, number>();
  for (const r of records) {
    for (const e of r.events) {
      if (e.type !== "DELETED" || !ours(e.name)) continue;
      const key = `${r.ns}/${e.name}`;
      const d = truth.deletes.get(key);
      if (d === undefined) failures.push(`watcher ${r.id}: DELETED ${key} at ${e.rv}, never deleted`);
      else if (!(e.rv > d.lo && (d.hi === undefined || e.rv < d.hi))) failures.push(`watcher ${r.id}: DELETED ${key} at ${e.rv}, outside (${d.lo}, ${d.hi})`);
      const known = deleteRv.get(key);
      if (known !== undefined && known !== e.rv) failures.push(`watcher ${r.id}: DELETED ${key} at ${e.rv}, another watcher at ${known}`);
      deleteRv.set(key, e.rv);
    }
  }
  const byNamespace = new Map<string, AckedWrite[]>();
  for (const w of truth.writes) byNamespace.set(w.ns, [...(byNamespace.get(w.ns) ?? []), w]);
  for (const list of byNamespace.values()) list.sort((a, b) => a.rv - b.rv);
  for (const r of records) {
    failures.push(...r.errors);
    if (r.errors.length > 0) continue;
    const within = (rv: number) => rv > r.from && rv <= r.upTo;
    const want = (byNamespace.get(r.ns) ?? []).filter((w) => within(w.rv)).map((w) => `${w.type} ${w.name} ${w.rv}`);
    const got = r.events.filter((e) => ours(e.name) && e.type !== "DELETED").map((e) => `${e.type} ${e.name} ${e.rv}`);
    if (want.join("\n") !== got.join("\n")) {
      const missing = want.filter((w) => !got.includes(w));
      const extra = got.filter((g) => !want.includes(g));
      failures.push(`watcher ${r.id} (${r.ns}, ${r.from}..${r.upTo}): missing [${missing.slice(0, 5).join(", ")}] extra [${extra.slice(0, 5).join(", ")}]`);
    }
    const gotDeletes = new Set(r.events.filter((e) => e.type === "DELETED").map((e) => e.name));
    for (const [key, d] of truth.deletes) {
      if (d.ns !== r.ns || gotDeletes.has(d.name)) continue;
      const rv = deleteRv.get(key);
      const certainlyWithin = rv === undefined ? d.lo >= r.from && d.hi !== undefined && d.hi <= r.upTo : within(rv);
      if (certainlyWithin) failures.push(`watcher ${r.id} (${r.ns}, ${r.from}..${r.upTo}): no DELETED ${d.name} (at ${rv ?? `${d.lo}..${d.hi}`})`);
    }
  }
  return failures;
}

// ---- The run -------------------------------------------------------------------------------

interface Sample {
  atMs: number;
  probe: SoakProbe;
}

/** Sums the `apiserver_longrunning_requests` samples of WATCH requests in a scrape. */
function openWatches(exposition: string): number {
  let sum = 0;
  for (const line of exposition.split("\n")) {
    if (line.startsWith("apiserver_longrunning_requests{") && line.includes('verb="WATCH"')) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

describe(`a ${seconds} s soak of orch-apiserver (ORCH_SOAK_SECONDS)`, () => {
  let dataDir: string;
  let server: SoakServer | undefined;
  let url: string;
  let tls: TLS;
  let baseline: SoakProbe;
  let baselineWatches: number;
  const truth = new GroundTruth();
  const control: LoadControl = { fill: true, stopped: false, failures: [], writes: 0, lists: 0 };
  const samples: Sample[] = [];
  let records: WatchRecord[] = [];

  beforeAll(
    async () => {
      dataDir = await mkdtemp(join(tmpdir(), "orch-soak-"));
      server = new SoakServer(dataDir);
      url = await bounded(server.ready, startBoundMs, "the soak server's start");
      void server.exited.then(() => {
        if (!server?.exitedEarly) return;
        control.failures.push(`the soak server exited: ${server.stderr}`);
        control.stopped = true;
      });
      tls = await adminTLS(dataDir);
      // Before any client: what an idle server holds.
      baseline = await server.probe();
      const scrape = await httpsRequestTo(url, tls, { path: "/metrics" });
      expect(scrape.status, scrape.text).toBe(200);
      baselineWatches = openWatches(scrape.text);

      // Idle connections close after 3 s, before the server's keep-alive timeout (5 s) closes them.
      const agent = new Agent({ ...tls, keepAlive: true, maxSockets: 16, timeout: 3_000 });
      try {
        for (const ns of namespaces) {
          const res = await call(url, agent, "POST", "/api/v1/namespaces", { metadata: { name: ns } });
          expect(res.status, JSON.stringify(res.json)).toBe(201);
        }
        const loops: Promise<void>[] = [];
        namespaces.forEach((ns, n) => {
          for (let w = 0; w < writersPerNamespace; w++) loops.push(writer(`${n}${w}`, ns, url, agent, truth, control));
        });
        for (let l = 0; l < listers; l++) loops.push(lister(url, agent, control));

        // The fill: the watch cache's event window full before anything is measured.
        const fillDeadline = Date.now() + fillBoundMs;
        while (control.writes < fillWrites && control.failures.length === 0 && Date.now() < fillDeadline) await sleep(200);
        control.fill = false;
        if (control.writes < fillWrites) control.failures.push(`the fill wrote ${control.writes} of ${fillWrites} in ${fillBoundMs} ms`);

        // The measured run: steady writes and lists, watchers coming and going, memory sampled.
        const start = Date.now();
        const sampler = (async () => {
          while (Date.now() - start < runMs && !control.stopped) {
            samples.push({ atMs: Date.now() - start, probe: await server!.probe() });
            await sleep(sampleEveryMs);
          }
          samples.push({ atMs: Date.now() - start, probe: await server!.probe() });
        })().catch((error: unknown) => void control.failures.push(`sampler: ${(error as Error).message}`));
        const watchers: Promise<WatchRecord>[] = [];
        for (let id = 0; id < watcherCount && control.failures.length === 0; id++) {
          const startAt = (id / watcherCount) * runMs * 0.85;
          await sleep(start + startAt - Date.now());
          const lifeMs = Math.max(1_000, Math.min(2_000 + Math.random() * runMs * 0.15, runMs * 0.95 - startAt));
          watchers.push(watcher(id, lifeMs, url, agent, tls, truth));
        }
        records = await Promise.all(watchers);
        while (Date.now() - start < runMs && !control.stopped) await sleep(Math.min(1_000, start + runMs - Date.now()));
        control.stopped = true;
        await Promise.all(loops);
        await sampler;
        // A write after every writer stopped bounds the revisions of the last deletes.
        const fence = await call(url, agent, "POST", `/api/v1/namespaces/${namespaces[0]}/configmaps`, { metadata: { name: "soak-fence" } });
        expect(fence.status).toBe(201);
        for (const d of truth.deletes.values()) d.hi ??= rvOf(fence.json);
      } finally {
        control.stopped = true;
        agent.destroy();
      }
    },
    runMs + fillBoundMs + startBoundMs + 180_000,
  );

  afterAll(async () => {
    const code = await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
    expect(code, server?.stderr).toBe(0);
  }, 60_000);

  it("writes and lists succeed throughout", () => {
    expect(control.failures.slice(0, 20)).toEqual([]);
    expect(control.writes).toBeGreaterThan(fillWrites);
    expect(control.lists).toBeGreaterThan(0);
  });

  it("every watcher receives every event of its namespace from its start, in order", async () => {
    expect(records).toHaveLength(watcherCount);
    const failures = checkWatchers(records, truth);
    const now = failures.length === 0 ? undefined : await server!.probe();
    const state = now && `; the server's store is at ${now.storeRevision}, its watch cache at ${now.cacheRevision}`;
    expect(failures.slice(0, 20), `${failures.length} failures${state}`).toEqual([]);
    // The watchers did watch: most saw events, every one that stayed saw those of its window.
    expect(records.filter((r) => r.events.length > 0).length).toBeGreaterThan(watcherCount / 2);
  });

  it("resident memory and the heap after a forced collection stay flat after the warm-up", () => {
    // After the warm-up, while the load is whole: the watchers start until 85% of the run and the
    // last of them leave at 95%, which frees what they hold and would hide a growth.
    const measured = samples.filter((s) => s.atMs >= warmUpMs && s.atMs <= runMs * 0.85);
    expect(measured.length).toBeGreaterThanOrEqual(2 * sampleWindow);
    const first = measured.slice(0, sampleWindow);
    const last = measured.slice(-sampleWindow);
    const figures = (pick: (p: SoakProbe) => number) => ({ start: median(first.map((s) => pick(s.probe))), end: median(last.map((s) => pick(s.probe))) });
    const rss = figures((p) => p.rss);
    const heap = figures((p) => p.heapUsed);
    const series = (pick: (p: SoakProbe) => number | undefined) =>
      measured.map((s) => (pick(s.probe) === undefined ? "-" : (pick(s.probe)! / 2 ** 20).toFixed(0))).join(" ");
    console.info(
      `MiB every ${sampleEveryMs / 1000} s after the warm-up: rss ${series((p) => p.rss)}; anon ${series((p) => p.rssParts?.anon)}; ` +
        `file ${series((p) => p.rssParts?.file)}; shmem ${series((p) => p.rssParts?.shmem)}; heap total ${series((p) => p.heapTotal)}; ` +
        `heap used ${series((p) => p.heapUsed)}; external ${series((p) => p.external)}`,
    );
    console.info(
      `soak ${seconds} s, ${control.writes} writes, ${control.lists} lists, ${watcherCount} watchers: ` +
        `rss ${mib(baseline.rss)} idle, ${mib(rss.start)} -> ${mib(rss.end)}; heap ${mib(baseline.heapUsed)} idle, ${mib(heap.start)} -> ${mib(heap.end)}`,
    );
    // Flat means no growth: a drop (the allocator giving memory back) is no leak.
    expect(heap.end, `heap ${mib(heap.start)} -> ${mib(heap.end)}`).toBeLessThanOrEqual(heap.start * 1.1);
    expect(rss.end, `rss ${mib(rss.start)} -> ${mib(rss.end)}`).toBeLessThanOrEqual(rss.start * 1.1);
  });

  it("leaves no watcher, socket or timer behind once the clients left", async () => {
    const count = (p: SoakProbe, type: string) => p.resources[type] ?? 0;
    // The scrape's own connection closes before the resources are counted.
    const scrape = await httpsRequestTo(url, tls, { path: "/metrics" });
    expect(scrape.status, scrape.text).toBe(200);
    expect(openWatches(scrape.text)).toBe(baselineWatches);
    let after = await server!.probe();
    const deadline = Date.now() + 60_000;
    const settled = (p: SoakProbe) =>
      count(p, "TCPSocketWrap") <= count(baseline, "TCPSocketWrap") &&
      count(p, "Timeout") <= count(baseline, "Timeout") &&
      p.cacheWatchers <= baseline.cacheWatchers;
    while (!settled(after) && Date.now() < deadline) {
      await sleep(500);
      after = await server!.probe();
    }
    expect(after.cacheWatchers).toBe(baseline.cacheWatchers);
    expect(count(after, "TCPSocketWrap"), JSON.stringify(after.resources)).toBe(count(baseline, "TCPSocketWrap"));
    expect(count(after, "Timeout"), `${JSON.stringify(baseline.resources)} -> ${JSON.stringify(after.resources)}`).toBeLessThanOrEqual(
      count(baseline, "Timeout"),
    );
  }, 90_000);
});
