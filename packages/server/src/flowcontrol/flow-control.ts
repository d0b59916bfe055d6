/**
 * API Priority and Fairness inside the server: the configuration controller and the dispatcher.
 * At start it creates the built-in FlowSchemas and PriorityLevelConfigurations, then lists and
 * watches both kinds: the classifier and the queue sets follow every change, a mandatory
 * object that is changed or deleted is put back, a suggested one that is deleted is created
 * again (and changed back while its autoupdate annotation is `"true"`), and every FlowSchema's
 * `Dangling` condition says whether its priority level exists.
 * @module
 */
import { isAlreadyExists, isConflict, isNotFound, type APIObject } from "@orch/meta";
import { ControlLoop, messageOf, type ControllerInput } from "../control-loop.js";
import type { MetricsRecorder, FlowControlLabels } from "../metrics.js";
import type { WriteOptions } from "../object-store.js";
import { sameJSON } from "../same-json.js";
import { collectionPrefix, countStoredObjects, mutableCopy, objectKey, wireObject, type ServedResource } from "../served-resource.js";
import { autoUpdateAnnotation, bootstrapConfiguration } from "./bootstrap.js";
import { classify, priorityLevelNameOf, sortFlowSchemas, type Classification, type RequestDigest } from "./classifier.js";
import { ObjectCounts } from "./object-counts.js";
import { QueueSet, type Admission, type RequestWork } from "./queue-set.js";
import { estimateObjects, levelMaxSeats, minimumSeats, seatsForObjects, type WorkDigest } from "./work-estimator.js";

/** The default bound of a request's wait in a queue: 15 seconds. */
export const defaultMaxQueueWaitMs = 15_000;

/** How {@link FlowControl} divides the server's concurrency. */
export interface FlowControlOptions {
  /** The server's concurrency limit, shared by the limited levels by their shares (`--max-requests-inflight` plus `--max-mutating-requests-inflight`). */
  serverConcurrencyLimit: number;
  /** The longest a request waits in a queue before it is refused `time-out` (ms). */
  maxQueueWaitMs: number;
  /** Receives the flow-control metrics. */
  metrics: MetricsRecorder;
}

/** The work {@link FlowControl.estimate} gives a request. */
export interface WorkEstimate {
  /** The objects it goes through (0 for a request that lists nothing). */
  objects: number;
  /** The seats it occupies while it executes (at least 1). */
  seats: number;
}

/** What {@link FlowControl.acquire} gives: a seat (with its release) or a refusal. */
export type FlowAdmission = Admission;

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

/** The admission of a request in a level without a queue set (`Exempt`): nothing to begin or give back. */
const exemptAdmission: FlowAdmission = { ok: true, waitedMs: 0, release: () => undefined, begin: () => undefined };

const fieldManager = "api-priority-and-fairness-config-producer-v1";
const systemWrite = (): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [], fieldManager });

/** The seats each limited level gets: `ceil(limit * shares / sum of the limited levels' shares)`. */
export function seatsOf(levels: Iterable<APIObject>, serverConcurrencyLimit: number): Map<string, number> {
  const shares = new Map<string, number>();
  for (const level of levels) {
    const limited = rec(rec(level["spec"])?.["limited"]);
    if (rec(level["spec"])?.["type"] !== "Limited" || !limited) continue;
    const s = limited["assuredConcurrencyShares"];
    shares.set(level.metadata.name ?? "", typeof s === "number" && s > 0 ? s : 30);
  }
  let sum = 0;
  for (const s of shares.values()) sum += s;
  const seats = new Map<string, number>();
  for (const [name, s] of shares) seats.set(name, Math.ceil((serverConcurrencyLimit * s) / sum));
  return seats;
}

/** The `Dangling` condition a FlowSchema should carry, given whether its level exists. */
export function danglingCondition(flowSchema: APIObject, levelExists: boolean): { type: string; status: string; reason: string; message: string } {
  if (levelExists)
    return { type: "Dangling", status: "False", reason: "Found", message: "This FlowSchema references an existing PriorityLevelConfiguration object" };
  return {
    type: "Dangling",
    status: "True",
    reason: "NotFound",
    message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(priorityLevelNameOf(flowSchema))} but there is no such object`,
  };
}

/** The configuration controller and dispatcher of API Priority and Fairness (see the module). */
export class FlowControl {
  readonly #input: ControllerInput;
  readonly #options: FlowControlOptions;
  readonly #loop: ControlLoop;
  readonly #bootstrap: ReturnType<typeof bootstrapConfiguration>;
  readonly #flowSchemas = new Map<string, APIObject>();
  readonly #levels = new Map<string, APIObject>();
  #sorted: APIObject[] = [];
  /** The queue set of each limited level, with the most seats one request may occupy in it. */
  readonly #queueSets = new Map<string, { key: string; set: QueueSet; maxSeats: number }>();
  /** The stored-object counts the width of a LIST is estimated from. */
  readonly #objectCounts: ObjectCounts;
  /** The controller's writes, one after the other. */
  #work: Promise<void> = Promise.resolve();
  #syncScheduled = false;

  /** A controller on `input`'s store and write path; until {@link start} loads the stored objects, it classifies with the mandatory ones. */
  constructor(input: ControllerInput, options: FlowControlOptions) {
    this.#input = input;
    this.#options = options;
    this.#bootstrap = bootstrapConfiguration(input.domain);
    for (const o of this.#bootstrap.mandatoryPriorityLevels) this.#levels.set(o.metadata.name ?? "", o);
    for (const o of this.#bootstrap.mandatoryFlowSchemas) this.#flowSchemas.set(o.metadata.name ?? "", o);
    this.#recompute();
    this.#objectCounts = new ObjectCounts((group, resource) => {
      const served = input.served(group, resource);
      return served ? countStoredObjects(input.store, served) : Promise.resolve(undefined);
    }, input.clock);
    this.#loop = new ControlLoop(input, {
      reload: () => this.#load(),
      reloadFailed: (error) => input.log(`flow control: relist failed: ${messageOf(error)}`),
    });
  }

  #served(resource: string): ServedResource {
    const served = this.#input.served(`flowcontrol.apiserver.${this.#input.domain}`, resource);
    if (!served) throw new Error(`flow control needs the ${resource} resource in the catalog`);
    return served;
  }

  /** Creates (or restores) the built-in objects, loads the configuration and starts watching. */
  async start(): Promise<void> {
    await this.#ensure();
    await this.#load();
    await this.#syncStatus();
  }

  /** Stops watching. */
  stop(): void {
    this.#loop.stop();
  }

  /** Resolves when the writes the controller has begun (restores, conditions) are done; for tests. */
  async settled(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.#work) {
      seen = this.#work;
      await seen;
    }
  }

  /** The FlowSchema and priority level of a request, with its flow distinguisher. */
  classify(request: RequestDigest): Classification | undefined {
    return classify(request, this.#sorted, this.#levels);
  }

  /**
   * The work of a classified request in its level (see `work-estimator.ts`): the objects it goes
   * through (a LIST: those of its resource) and the seats it occupies while it executes (a LIST
   * one per 100 objects, bounded by the level's maximum; 1 for most requests and in a level
   * without a queue set).
   */
  estimate(classification: Classification, work: WorkDigest): WorkEstimate {
    const entry = this.#queueSets.get(classification.priorityLevel.metadata.name ?? "");
    if (!entry || !work.isResourceRequest || work.resource === undefined) return { objects: 0, seats: minimumSeats };
    // Any request on a resource keeps its count fresh, so that its first LIST is estimated from one.
    const objects = estimateObjects(work, this.#objectCounts.get(work.group ?? "", work.resource));
    return { objects, seats: seatsForObjects(objects, entry.maxSeats) };
  }

  /**
   * Seats for a classified request in its level (`work.width`, 1 by default; see
   * {@link estimate}), as {@link QueueSet.acquire}; an `Exempt` level (or a level without a
   * queue set) lets it through at once without counting it. Records the dispatched, rejected,
   * waited, in-queue and executing metrics.
   */
  acquire(classification: Classification, signalOf?: () => AbortSignal | undefined, work: RequestWork = {}): Promise<FlowAdmission> {
    const now = this.admitNow(classification, work);
    if (now) return Promise.resolve(now);
    const labels = labelsOf(classification);
    const metrics = this.#options.metrics;
    // admitNow lets every request of a level without a queue set through: this one has one.
    const entry = this.#queueSets.get(classification.priorityLevel.metadata.name ?? "") as { set: QueueSet };
    const flowKey = this.#flowKey(classification.flowSchema.metadata.name ?? "", classification.distinguisher);
    // One reaction, no async frame: a request admitted at once costs no extra turns of the microtask queue.
    return entry.set.acquire(flowKey, signalOf, work).then((admission) => {
      metrics.flowControlWaited(labels, admission.ok, admission.waitedMs / 1000);
      if (admission.ok) metrics.flowControlDispatched(labels);
      else metrics.flowControlRejected(labels, admission.reason);
      return admission;
    });
  }

  /**
   * The seats of {@link acquire} when they are given at once (an `Exempt` level, or free seats
   * and nothing waiting), without a promise, with the same metrics recorded; `undefined` when the
   * request would wait or be refused: call {@link acquire} for it then.
   */
  admitNow(classification: Classification, work: RequestWork = {}): FlowAdmission | undefined {
    const entry = this.#queueSets.get(classification.priorityLevel.metadata.name ?? "");
    const metrics = this.#options.metrics;
    if (!entry) {
      metrics.flowControlDispatched(labelsOf(classification));
      return exemptAdmission;
    }
    const admission = entry.set.admitNow(this.#flowKey(classification.flowSchema.metadata.name ?? "", classification.distinguisher), work);
    if (!admission) return undefined;
    const labels = labelsOf(classification);
    metrics.flowControlWaited(labels, true, 0);
    metrics.flowControlDispatched(labels);
    return admission;
  }

  /** The flow keys made so far, by FlowSchema name and distinguisher (dropped past 4,096 of a schema, then made again as they come). */
  readonly #flowKeys = new Map<string, Map<string, string>>();

  /**
   * The flow key of a FlowSchema and a distinguisher, the same string each time: its queue set
   * finds the flow's hand by it, and a string made anew for every request is hashed anew.
   */
  #flowKey(flowSchema: string, distinguisher: string): string {
    let keys = this.#flowKeys.get(flowSchema);
    if (!keys) {
      if (this.#flowKeys.size >= 4096) this.#flowKeys.clear();
      this.#flowKeys.set(flowSchema, (keys = new Map()));
    }
    let key = keys.get(distinguisher);
    if (key === undefined) {
      if (keys.size >= 4096) keys.clear();
      key = `${flowSchema}\u0000${distinguisher}`;
      keys.set(distinguisher, key);
    }
    return key;
  }

  async #load(): Promise<void> {
    const signal = this.#loop.begin();
    const revision = await this.#input.store.revision();
    const resources = [
      { resource: "flowschemas", map: this.#flowSchemas },
      { resource: "prioritylevelconfigurations", map: this.#levels },
    ];
    const listed: APIObject[][] = [];
    for (const { resource } of resources) {
      const { entries } = await this.#input.store.list(collectionPrefix(this.#served(resource), ""), { revision });
      listed.push(entries.map(wireObject));
    }
    resources.forEach(({ map }, i) => {
      map.clear();
      for (const o of listed[i] ?? []) map.set(o.metadata.name ?? "", o);
    });
    this.#recompute();
    for (const { resource, map } of resources) {
      this.#loop.follow(
        collectionPrefix(this.#served(resource), ""),
        revision,
        signal,
        (event) => {
          const object = wireObject(event.entry);
          const name = object.metadata.name ?? "";
          if (event.type === "delete") map.delete(name);
          else map.set(name, object);
          this.#recompute();
          this.#scheduleSync(this.#isBootstrap(resource, name));
        },
        (error) => this.#input.log(`flow control: the ${resource} watch ended (${messageOf(error)}); relisting`),
      );
    }
  }

  #isBootstrap(resource: string, name: string): boolean {
    const all =
      resource === "flowschemas"
        ? [...this.#bootstrap.mandatoryFlowSchemas, ...this.#bootstrap.suggestedFlowSchemas]
        : [...this.#bootstrap.mandatoryPriorityLevels, ...this.#bootstrap.suggestedPriorityLevels];
    return all.some((o) => o.metadata.name === name);
  }

  /** After the current event burst: restore built-in objects (when one changed) and refresh the conditions. */
  #scheduleSync(ensure: boolean): void {
    if (ensure) this.#enqueue(() => this.#ensure());
    if (this.#syncScheduled) return;
    this.#syncScheduled = true;
    this.#enqueue(async () => {
      this.#syncScheduled = false;
      await this.#syncStatus();
    });
  }

  #enqueue(task: () => Promise<void>): void {
    this.#work = this.#work.then(task).catch((error: unknown) => this.#input.log(`flow control: ${messageOf(error)}`));
  }

  /** The sorted schemas and the queue sets of the current configuration. */
  #recompute(): void {
    this.#sorted = sortFlowSchemas([...this.#flowSchemas.values()]);
    const seats = seatsOf(this.#levels.values(), this.#options.serverConcurrencyLimit);
    for (const name of this.#queueSets.keys()) if (!seats.has(name)) this.#queueSets.delete(name);
    for (const [name, n] of seats) {
      const level = this.#levels.get(name) as APIObject;
      const response = rec(rec(rec(level["spec"])?.["limited"])?.["limitResponse"]);
      const q = rec(response?.["queuing"]);
      const queuing =
        response?.["type"] === "Queue" && q
          ? { queues: Number(q["queues"] ?? 64), handSize: Number(q["handSize"] ?? 8), queueLengthLimit: Number(q["queueLengthLimit"] ?? 50) }
          : undefined;
      const key = JSON.stringify(queuing ?? null);
      const maxSeats = levelMaxSeats(n, queuing?.handSize);
      const existing = this.#queueSets.get(name);
      if (existing && existing.key === key) {
        existing.set.setSeats(n);
        existing.maxSeats = maxSeats;
      } else {
        // A new shape of queues: requests already queued or executing finish on the old set.
        const metrics = this.#options.metrics;
        const set = new QueueSet({
          seats: n,
          ...(queuing ? { queuing } : {}),
          clock: this.#input.clock,
          maxQueueWaitMs: this.#options.maxQueueWaitMs,
          onChange: (gauge, delta) => {
            const labels = { priority_level: name, flow_schema: "" };
            if (gauge === "inQueue") metrics.flowControlInQueue(labels, delta);
            else metrics.flowControlExecuting(labels, delta);
          },
        });
        this.#queueSets.set(name, { key, set, maxSeats });
      }
      this.#options.metrics.flowControlSeats(name, n);
    }
  }

  /**
   * Creates the missing built-in objects; puts back the spec of a mandatory one that differs,
   * and of a suggested one whose autoupdate annotation is `"true"`.
   */
  async #ensure(): Promise<void> {
    const b = this.#bootstrap;
    const annotation = autoUpdateAnnotation(this.#input.domain);
    const plan: [string, APIObject, boolean][] = [
      ...b.mandatoryPriorityLevels.map((o): [string, APIObject, boolean] => ["prioritylevelconfigurations", o, true]),
      ...b.suggestedPriorityLevels.map((o): [string, APIObject, boolean] => ["prioritylevelconfigurations", o, false]),
      ...b.mandatoryFlowSchemas.map((o): [string, APIObject, boolean] => ["flowschemas", o, true]),
      ...b.suggestedFlowSchemas.map((o): [string, APIObject, boolean] => ["flowschemas", o, false]),
    ];
    for (const [resource, wanted, mandatory] of plan) {
      const served = this.#served(resource);
      const name = wanted.metadata.name ?? "";
      const entry = await this.#input.store.get(objectKey(served, "", name));
      try {
        if (!entry) {
          await this.#input.objects.create(served, "", mutableCopy(wanted), systemWrite());
          continue;
        }
        const current = wireObject(entry);
        const autoUpdate = mandatory || current.metadata.annotations?.[annotation] === "true";
        if (!autoUpdate) continue;
        const defaulted = mutableCopy(wanted);
        served.type.strategy?.defaults?.(defaulted, this.#input.objects.strategyContext());
        const annotated = current.metadata.annotations?.[annotation] === "true";
        if (sameJSON(current["spec"], defaulted["spec"]) && annotated) continue;
        const next = mutableCopy(current);
        next["spec"] = defaulted["spec"];
        next.metadata.annotations = { ...next.metadata.annotations, [annotation]: "true" };
        await this.#input.objects.update(served, "", name, next, "", systemWrite());
      } catch (error) {
        // Someone else wrote it meanwhile: the watch event brings this back.
        if (!isAlreadyExists(error) && !isConflict(error)) this.#input.log(`flow control: keeping ${resource}/${name}: ${messageOf(error)}`);
      }
    }
  }

  /** Writes the `Dangling` condition of every FlowSchema whose condition is not current (through `/status`). */
  async #syncStatus(): Promise<void> {
    const served = this.#served("flowschemas");
    for (const flowSchema of [...this.#flowSchemas.values()]) {
      const wanted = danglingCondition(flowSchema, this.#levels.has(priorityLevelNameOf(flowSchema)));
      const conditions = Array.isArray(rec(flowSchema["status"])?.["conditions"]) ? (rec(flowSchema["status"])?.["conditions"] as Obj[]) : [];
      const current = conditions.find((c) => c["type"] === "Dangling");
      if (current && current["status"] === wanted.status && current["reason"] === wanted.reason && current["message"] === wanted.message) continue;
      if (!flowSchema.metadata.uid) continue; // Not stored yet (the in-memory mandatory set before the first load).
      const next = mutableCopy(flowSchema);
      const lastTransitionTime = new Date(this.#input.clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
      next["status"] = { ...rec(flowSchema["status"]), conditions: [...conditions.filter((c) => c["type"] !== "Dangling"), { ...wanted, lastTransitionTime }] };
      try {
        await this.#input.objects.update(served, "", flowSchema.metadata.name ?? "", next, "status", systemWrite());
      } catch (error) {
        // A newer version arrived meanwhile (409): its watch event schedules another pass.
        if (!isConflict(error) && !isNotFound(error))
          this.#input.log(`flow control: the Dangling condition of flowschemas/${flowSchema.metadata.name ?? ""}: ${messageOf(error)}`);
      }
    }
  }
}

/** The metric labels of a classified request. */
export function labelsOf(classification: Classification): FlowControlLabels {
  return { priority_level: classification.priorityLevel.metadata.name ?? "", flow_schema: classification.flowSchema.metadata.name ?? "" };
}
