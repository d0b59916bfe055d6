/**
 * The workload of the crash tests: concurrent writers, each on its own keep-alive connection,
 * creating, updating and deleting ConfigMaps of their own in a loop, and a model of what every
 * object may be after a crash. Each object carries a self-check (`data.seq`, `data.copy` and the
 * label `seq` hold the same number, `data.writer` and the label `writer` the writer), so a
 * half-applied write shows.
 *
 * The model keeps, per object, its last acknowledged state (absent, or a seq with its uid and
 * resourceVersion) and at most one write that was sent without a 2xx answer (a broken
 * connection, a timeout, a 5xx): that write may or may not have landed, so the object is frozen
 * until {@link CrashWorkload.verify} has seen which. After a 5xx the writer goes on with its other
 * objects; after a request without an answer (the server is gone, most likely) it parks.
 * Verification runs while every writer is parked and no server that could still land a write
 * is running, so what it reads is final.
 *
 * Problems (a lost or half-applied write, a changed uid, a resourceVersion not above one seen
 * before, a list that disagrees with a GET, a watch out of order) are collected as text in
 * {@link CrashWorkload.problems}; the test asserts the list is empty, so its message names them.
 * @module
 */
import { request as httpsRequest, Agent } from "node:https";
import { httpsRequestTo, type RawResponse } from "./apiserver.js";

/** Where the workload sends its requests: a server's URL and the admin TLS material. */
export interface CrashTarget {
  /** `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** The admin CA, certificate and key (PEM). */
  readonly tls: { readonly ca: string; readonly cert: string; readonly key: string };
}

/** Options of {@link CrashWorkload}. */
export interface CrashWorkloadOptions {
  /** How many concurrent writers (each with its own keep-alive connection). */
  writers: number;
  /** How many ConfigMaps each writer owns. */
  objectsPerWriter: number;
  /** The name prefix of the ConfigMaps (`<prefix>-w<writer>-o<object>`). */
  prefix: string;
  /** The namespace, `default` unless given. */
  namespace?: string;
  /** Bound on each request of a writer (30 s by default). */
  requestTimeoutMs?: number;
}

/** The state of one object: absent, or present with the seq of the write that made it. */
type ObjectState = { readonly present: false } | { readonly present: true; readonly seq: number; readonly uid: string; readonly rv: number };

interface PendingWrite {
  readonly op: "create" | "update" | "delete";
  readonly seq: number;
  /** The greatest resourceVersion seen anywhere before the write was sent. */
  readonly floor: number;
  /** What came back instead of a 2xx. */
  readonly outcome: string;
}

interface Slot {
  readonly name: string;
  readonly writer: number;
  acked: ObjectState;
  pending: PendingWrite | undefined;
  nextSeq: number;
}

/** The ConfigMaps of the workload at a resourceVersion, read while every writer was parked. */
export interface CrashSnapshot {
  /** The list's resourceVersion. */
  readonly rv: number;
  /** Name to resourceVersion of every object of the workload present. */
  readonly objects: ReadonlyMap<string, number>;
}

interface ConfigMapJSON {
  metadata?: { name?: string; uid?: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
}

const absent: ObjectState = { present: false };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 50 ms until it is true; throws after `ms`. */
export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * The writers, the model and the checks. `resume(target)` starts (or restarts) the writers on a
 * server; `park()` stops them at their next step; `verify(target)` checks what a server holds
 * against the model while they are parked; `watchFrom(...)` checks a watch from an older snapshot.
 */
export class CrashWorkload {
  /** Every violation found so far, as text; empty when all is well. */
  readonly problems: string[] = [];
  /** Every answer to a write that was neither a 2xx nor a 429, as `<status> <op> <name>`. */
  readonly failedWrites: string[] = [];
  /** How many writes were acknowledged (2xx), in total. */
  acknowledged = 0;
  /** How many writes without an answer turned out to have landed, and how many had not. */
  readonly unanswered = { landed: 0, notLanded: 0 };

  readonly #options: Required<CrashWorkloadOptions>;
  readonly #slots: Slot[];
  #maxSeen = 0;
  #target: CrashTarget | undefined;
  #agents: Agent[] = [];
  #parking = true;
  #parked = 0;
  #epoch = 0;
  #wake: (() => void)[] = [];
  #running: Promise<void>[] = [];
  #done = false;

  constructor(options: CrashWorkloadOptions) {
    this.#options = { namespace: "default", requestTimeoutMs: 30_000, ...options };
    this.#slots = [];
    for (let w = 0; w < options.writers; w++) {
      for (let o = 0; o < options.objectsPerWriter; o++) {
        this.#slots.push({ name: `${options.prefix}-w${w}-o${o}`, writer: w, acked: absent, pending: undefined, nextSeq: 1 });
      }
    }
  }

  get #collection(): string {
    return `/api/v1/namespaces/${this.#options.namespace}/configmaps`;
  }

  /** The greatest resourceVersion seen so far (writes, lists, gets, watch events). */
  get maxSeen(): number {
    return this.#maxSeen;
  }

  /** How many writers are parked. */
  get parked(): number {
    return this.#parked;
  }

  /** Starts the writers on `target` (the first call), or lets the parked writers go on against it. */
  resume(target: CrashTarget): void {
    for (const agent of this.#agents) agent.destroy();
    this.#target = target;
    this.#agents = Array.from({ length: this.#options.writers }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    this.#parking = false;
    this.#epoch++;
    this.#wakeAll();
    if (this.#running.length === 0) this.#running = Array.from({ length: this.#options.writers }, (_, w) => this.#writer(w));
  }

  /** Asks every writer to stop at its next step and resolves once all are parked (bounded at `ms`). */
  async park(ms = 60_000): Promise<void> {
    this.#parking = true;
    await until(() => this.#parked === this.#options.writers, ms, `${this.#options.writers} writers to park (${this.#parked} parked)`);
  }

  /** Ends the writers (parked or not) and closes their connections. */
  async stop(): Promise<void> {
    this.#done = true;
    this.#parking = true;
    this.#epoch++;
    this.#wakeAll();
    await Promise.all(this.#running);
    for (const agent of this.#agents) agent.destroy();
  }

  #wakeAll(): void {
    const woken = this.#wake.splice(0);
    this.#parked -= woken.length;
    for (const wake of woken) wake();
  }

  #see(rv: number): void {
    if (rv > this.#maxSeen) this.#maxSeen = rv;
  }

  async #writer(w: number): Promise<void> {
    const mine = this.#slots.filter((s) => s.writer === w);
    for (let turn = 0; !this.#done; turn++) {
      const free = mine.filter((s) => s.pending === undefined);
      if (this.#parking || free.length === 0) {
        await this.#parkWriter();
        continue;
      }
      // A request without an answer (the server gone, most likely) parks the writer until the
      // next resume; a 5xx only freezes its object, and the writer goes on with the others.
      if ((await this.#step(w, free[turn % free.length]!)) === "no answer") await this.#parkWriter();
    }
  }

  /** Waits for the next resume (or stop), counted as parked until whoever wakes it uncounts it. */
  async #parkWriter(): Promise<void> {
    const epoch = this.#epoch;
    this.#parked++;
    while (this.#epoch === epoch) await new Promise<void>((resolve) => this.#wake.push(resolve));
  }

  /** One write of `slot`: create it when absent, else update it, deleting it every fifth seq. */
  async #step(w: number, slot: Slot): Promise<"answered" | "no answer"> {
    const target = this.#target!;
    const agent = this.#agents[w]!;
    const seq = slot.nextSeq++;
    const acked = slot.acked;
    const op: PendingWrite["op"] = !acked.present ? "create" : seq % 5 === 0 ? "delete" : "update";
    const floor = this.#maxSeen;
    const body = (rv?: number): string =>
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: slot.name, labels: { seq: String(seq), writer: String(w) }, ...(rv === undefined ? {} : { resourceVersion: String(rv) }) },
        data: { seq: String(seq), copy: String(seq), writer: String(w) },
      });
    const headers = { "content-type": "application/json" };
    const request =
      op === "create"
        ? { method: "POST", path: this.#collection, headers, body: body() }
        : op === "update" && acked.present
          ? { method: "PUT", path: `${this.#collection}/${slot.name}`, headers, body: body(acked.rv) }
          : { method: "DELETE", path: `${this.#collection}/${slot.name}` };
    let res: RawResponse;
    try {
      res = await httpsRequestTo(target.url, target.tls, { ...request, agent, timeoutMs: this.#options.requestTimeoutMs });
    } catch (error) {
      slot.pending = { op, seq, floor, outcome: (error as Error).message };
      return "no answer";
    }
    if (res.status === 429) {
      // Rejected before it was applied (flow control): the object is as it was.
      await sleep(100);
      return "answered";
    }
    if (res.status < 200 || res.status > 299) {
      this.failedWrites.push(`${res.status} ${op} ${slot.name}: ${res.text.slice(0, 200)}`);
      slot.pending = { op, seq, floor, outcome: `status ${res.status}` };
      return "answered";
    }
    this.acknowledged++;
    if (op === "delete") {
      slot.acked = absent;
      return "answered";
    }
    const state = this.#stateOf(res.json as ConfigMapJSON, `the answer to ${op} ${slot.name} seq ${seq}`);
    if (!state.present || state.seq !== seq) {
      this.problems.push(`${op} ${slot.name} seq ${seq} answered ${JSON.stringify(res.json)}`);
      return "answered";
    }
    if (state.rv <= floor) this.problems.push(`${op} ${slot.name} seq ${seq} got resourceVersion ${state.rv}, not above ${floor} seen before it was sent`);
    if (op === "update" && acked.present && state.uid !== acked.uid) this.problems.push(`update of ${slot.name} changed its uid`);
    this.#see(state.rv);
    slot.acked = state;
    return "answered";
  }

  /** The state an object read back describes, after checking its self-check (a problem when it fails). */
  #stateOf(cm: ConfigMapJSON, what: string): ObjectState {
    const seq = cm.data?.["seq"];
    const rv = Number(cm.metadata?.resourceVersion);
    const whole =
      seq !== undefined &&
      /^\d+$/.test(seq) &&
      cm.data?.["copy"] === seq &&
      cm.metadata?.labels?.["seq"] === seq &&
      cm.data?.["writer"] !== undefined &&
      cm.metadata.labels["writer"] === cm.data["writer"] &&
      typeof cm.metadata.uid === "string" &&
      Number.isSafeInteger(rv) &&
      rv > 0;
    if (!whole) {
      this.problems.push(`${what} is not a whole write: ${JSON.stringify({ metadata: cm.metadata, data: cm.data })}`);
      return absent;
    }
    return { present: true, seq: Number(seq), uid: cm.metadata!.uid!, rv };
  }

  async #read(target: CrashTarget, path: string, agent: Agent): Promise<RawResponse> {
    return httpsRequestTo(target.url, target.tls, { path, agent, timeoutMs: 30_000 });
  }

  /**
   * With every writer parked, checks what `target` serves against the model: a list's
   * resourceVersion is at least every item's and every resourceVersion seen before; each
   * object's GET agrees with the list; each object is whole and is its last acknowledged state
   * or the one unanswered write since (and acknowledged deletes stay deleted); uids do not
   * change. Then takes what it read as the acknowledged state (resolving the unanswered writes)
   * and resolves with the snapshot a later watch can start from.
   */
  async verify(target: CrashTarget): Promise<CrashSnapshot> {
    if (this.#running.length > 0 && this.#parked !== this.#options.writers) throw new Error("verify() needs every writer parked");
    // A few kept-alive connections: a handshake per GET costs seconds on a loaded machine.
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      return await this.#verify(target, agent);
    } finally {
      agent.destroy();
    }
  }

  async #verify(target: CrashTarget, agent: Agent): Promise<CrashSnapshot> {
    const list = await this.#read(target, this.#collection, agent);
    if (list.status !== 200) throw new Error(`list answered ${list.status}: ${list.text.slice(0, 300)}`);
    const body = list.json as { metadata: { resourceVersion: string }; items: ConfigMapJSON[] };
    const listRV = Number(body.metadata.resourceVersion);
    if (!(listRV >= this.#maxSeen)) this.problems.push(`list resourceVersion ${listRV} is below ${this.#maxSeen}, seen before`);
    const listed = new Map<string, ConfigMapJSON>();
    const byName = new Map(this.#slots.map((s) => [s.name, s]));
    for (const item of body.items) {
      const name = item.metadata?.name ?? "";
      if (!name.startsWith(`${this.#options.prefix}-`)) continue;
      if (!byName.has(name)) this.problems.push(`list holds ${name}, which no writer wrote`);
      listed.set(name, item);
      const rv = Number(item.metadata?.resourceVersion);
      if (!(rv <= listRV)) this.problems.push(`list resourceVersion ${listRV} is below that of its item ${name} (${rv})`);
    }
    const objects = new Map<string, number>();
    const reads = await Promise.all(this.#slots.map((slot) => this.#read(target, `${this.#collection}/${slot.name}`, agent)));
    this.#slots.forEach((slot, i) => {
      const got = reads[i]!;
      const item = listed.get(slot.name);
      let observed: ObjectState = absent;
      if (got.status === 200) {
        observed = this.#stateOf(got.json as ConfigMapJSON, `GET ${slot.name}`);
        const fromList = item === undefined ? undefined : this.#stateOf(item, `list item ${slot.name}`);
        if (JSON.stringify(fromList) !== JSON.stringify(observed)) {
          this.problems.push(`GET ${slot.name} gives ${JSON.stringify(observed)}, the list ${JSON.stringify(fromList)}`);
        }
      } else if (got.status === 404) {
        if (item !== undefined) this.problems.push(`GET ${slot.name} is 404 but the list holds it`);
      } else {
        throw new Error(`GET ${slot.name} answered ${got.status}: ${got.text.slice(0, 300)}`);
      }
      this.#check(slot, observed);
      if (observed.present) {
        objects.set(slot.name, observed.rv);
        this.#see(observed.rv);
      }
      slot.acked = observed;
      slot.pending = undefined;
    });
    this.#see(listRV);
    return { rv: listRV, objects };
  }

  /** Whether `observed` is `slot`'s acknowledged state or its unanswered write; a problem if neither. */
  #check(slot: Slot, observed: ObjectState): void {
    const { acked, pending } = slot;
    const same = (a: ObjectState, b: ObjectState): boolean =>
      a.present === b.present && (!a.present || (b.present && a.seq === b.seq && a.uid === b.uid && a.rv === b.rv));
    const describe = (s: ObjectState): string => (s.present ? `seq ${s.seq} uid ${s.uid} rv ${s.rv}` : "absent");
    if (same(observed, acked)) {
      if (pending !== undefined) this.unanswered.notLanded++;
      return;
    }
    if (pending !== undefined) {
      const landed =
        pending.op === "delete"
          ? !observed.present
          : observed.present &&
            observed.seq === pending.seq &&
            observed.rv > pending.floor &&
            (pending.op === "create" ? !acked.present : acked.present && observed.uid === acked.uid);
      if (landed) {
        this.unanswered.landed++;
        return;
      }
    }
    const unanswered = pending === undefined ? "none" : `${pending.op} seq ${pending.seq} (${pending.outcome}, sent after rv ${pending.floor})`;
    this.problems.push(`${slot.name} is ${describe(observed)}; acknowledged ${describe(acked)}, unanswered write: ${unanswered}`);
  }

  /**
   * Watches from `from.rv` (a snapshot of before a crash) on `target` and checks the events:
   * resourceVersions strictly increasing and above `from.rv`, every object whole, each event
   * consistent with the state before it (ADDED for an absent object, MODIFIED and DELETED for a
   * present one), until replaying them on `from` gives `to` (the state read now, with writers
   * parked). Resolves `"replayed"`, or `"expired"` when the server answered 410 Gone (history
   * compacted). Bounded at `ms`.
   */
  async watchFrom(target: CrashTarget, from: CrashSnapshot, to: CrashSnapshot, ms = 30_000): Promise<"replayed" | "expired"> {
    const state = new Map(from.objects);
    const equal = (): boolean => state.size === to.objects.size && [...to.objects].every(([name, rv]) => state.get(name) === rv);
    if (equal() && from.rv === to.rv) return "replayed";
    // The newest write still to come: the watch has not caught up before it is past it.
    const newest = Math.max(0, ...to.objects.values());
    let last = from.rv;
    let expired = false;
    let failure: string | undefined;
    const onEvent = (event: { type?: string; object?: ConfigMapJSON & { code?: number } }): void => {
      if (event.type === "BOOKMARK") return;
      if (event.type === "ERROR") {
        if (event.object?.code === 410) expired = true;
        else failure = `watch from ${from.rv} sent ${JSON.stringify(event)}`;
        return;
      }
      const name = event.object?.metadata?.name ?? "";
      const rv = Number(event.object?.metadata?.resourceVersion);
      if (!(rv > last)) this.problems.push(`watch from ${from.rv}: ${event.type} ${name} at ${rv} after ${last}`);
      last = Math.max(last, rv);
      this.#see(rv);
      if (!name.startsWith(`${this.#options.prefix}-`)) return;
      const seen = this.#stateOf(event.object!, `watch event ${event.type} ${name}`);
      if (!seen.present) return;
      const was = state.has(name);
      if ((event.type === "ADDED") === was)
        this.problems.push(`watch from ${from.rv}: ${event.type} ${name} at ${rv} but it was ${was ? "present" : "absent"}`);
      if (event.type === "DELETED") state.delete(name);
      else state.set(name, seen.rv);
    };
    const path = `${this.#collection}?watch=1&resourceVersion=${from.rv}&timeoutSeconds=${Math.ceil(ms / 1000) + 30}`;
    let status = 0;
    const req = httpsRequest(`${target.url}${path}`, { ...target.tls, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      let buffer = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (status === 200 && line !== "") onEvent(JSON.parse(line) as Parameters<typeof onEvent>[0]);
        }
      });
      res.on("error", () => undefined);
    });
    req.on("error", (error) => (failure ??= `watch from ${from.rv}: ${error.message}`));
    req.end();
    try {
      await until(
        () => expired || failure !== undefined || (status !== 0 && status !== 200) || (status === 200 && equal() && last >= newest),
        ms,
        `the watch from ${from.rv} to reach ${to.rv}`,
      );
    } finally {
      req.destroy();
    }
    if (failure !== undefined) throw new Error(failure);
    if (status === 410) return "expired";
    if (status !== 200) throw new Error(`watch from ${from.rv} answered ${status}`);
    return expired ? "expired" : "replayed";
  }
}
