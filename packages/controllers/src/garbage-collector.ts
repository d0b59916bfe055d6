/**
 * {@link GarbageCollector}: the `garbagecollector` controller. It keeps a graph of
 * `ownerReferences` from informers over every resource the server serves with list, watch and
 * delete, and does what the reference's garbage collector does:
 *
 * - background: a dependent whose owners are all gone (checked with a live GET, uid compared)
 *   is deleted, with the propagation its own finalizers ask for (Background by default);
 * - foreground: the dependents of an owner with a `deletionTimestamp` and the
 *   `foregroundDeletion` finalizer are deleted (Foreground when they have dependents of their
 *   own, so the chain waits); once no dependent with `blockOwnerDeletion: true` is left, the
 *   finalizer is removed and the owner goes;
 * - orphan: an owner with the `orphan` finalizer has its reference removed from each dependent,
 *   then the finalizer.
 *
 * A namespaced owner is looked up in its dependent's namespace, so an owner in another namespace
 * counts as absent; a cluster-scoped owner of a namespaced dependent is fine; a namespaced owner
 * of a cluster-scoped dependent is absent.
 * @module
 */
import type { Client, ResourceClient } from "@orch/client";
import { isConflict, isNotFound, type APIObject, type OwnerReference } from "@orch/meta";
import type { Controller, ControllerContext, ControllerDescriptor } from "./controller.js";
import { discoverResources, type DiscoveredResource } from "./discovery.js";
import { messageOf } from "./internal/message-of.js";
import { processQueue, WorkQueue } from "./work-queue.js";

/** The finalizer of a Foreground deletion. */
export const foregroundDeletionFinalizer = "foregroundDeletion";
/** The finalizer of an Orphan deletion. */
export const orphanFinalizer = "orphan";

/** Options of {@link GarbageCollector}. */
export interface GarbageCollectorOptions {
  /** Workers of the delete queue (20 by default, the reference's `--concurrent-gc-syncs`); the orphan queue has the same number. */
  workers?: number;
  /** First back-off of a failing item in ms (5 by default). */
  baseDelayMs?: number;
}

/** Where an observed object lives. */
interface Identity {
  resource: DiscoveredResource;
  namespace: string | undefined;
  name: string;
}

/** One object of the graph, by uid; `identity` is undefined for an owner never observed (virtual). */
interface GraphNode {
  uid: string;
  identity: Identity | undefined;
  owners: OwnerReference[];
  dependents: Set<GraphNode>;
  beingDeleted: boolean;
  deletingDependents: boolean;
  orphaning: boolean;
}

const hasFinalizer = (object: APIObject, finalizer: string): boolean => object.metadata.finalizers?.includes(finalizer) ?? false;

/** The group of an `apiVersion`: `""` for `v1`, `apps` for `apps/v1`. */
const groupOf = (apiVersion: string): string => (apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "");

const kindKey = (group: string, kind: string): string => `${group}\u0000${kind}`;

/** True when `owner` is namespaced and not in the namespace of `dependent`: not a valid owner of it. */
const misplaced = (dependent: GraphNode, owner: GraphNode): boolean =>
  owner.identity !== undefined && owner.identity.resource.namespaced && owner.identity.namespace !== dependent.identity?.namespace;

/** The verbs a resource must offer for the collector to follow it. */
const requiredVerbs = ["list", "watch", "delete"];

/**
 * The garbage collector. Create one per term of leadership and run it with a
 * {@link ControllerContext} (the {@link ControllerManager} does both).
 *
 * @example
 * const gc = new GarbageCollector();
 * await gc.run({ client, informers: new SharedInformers(client), clock: systemClock, log: console.log });
 * // DELETE ...?propagationPolicy=Foreground now finishes.
 * await gc.stop();
 */
export class GarbageCollector implements Controller {
  /** `garbagecollector`. */
  readonly name = "garbagecollector";
  readonly #options: GarbageCollectorOptions;
  readonly #nodes = new Map<string, GraphNode>();
  readonly #kinds = new Map<string, DiscoveredResource>();
  readonly #unregister: (() => void)[] = [];
  #attemptToDelete: WorkQueue | undefined;
  #attemptToOrphan: WorkQueue | undefined;
  #client: Client | undefined;
  #log: (message: string) => void = () => {};
  #workers: Promise<void> | undefined;
  #stopped = false;
  #onStop: (() => void) | undefined;

  constructor(options: GarbageCollectorOptions = {}) {
    this.#options = options;
  }

  /** The number of objects (observed or only referenced) in the graph; for tests and metrics. */
  get graphSize(): number {
    return this.#nodes.size;
  }

  /**
   * Discovers the resources to follow, registers on their shared informers, waits for them to
   * sync, then starts the workers. Throws when discovery fails.
   */
  async run(ctx: ControllerContext): Promise<void> {
    if (this.#client) throw new Error("a GarbageCollector runs once");
    this.#client = ctx.client;
    this.#log = ctx.log;
    const queueOptions = { clock: ctx.clock, ...(this.#options.baseDelayMs === undefined ? {} : { baseDelayMs: this.#options.baseDelayMs }) };
    const deleteQueue = new WorkQueue(queueOptions);
    const orphanQueue = new WorkQueue(queueOptions);
    this.#attemptToDelete = deleteQueue;
    this.#attemptToOrphan = orphanQueue;
    const resources = (await discoverResources(ctx.client)).filter((r) => requiredVerbs.every((v) => r.verbs.includes(v)));
    if (this.#stopped) return;
    for (const r of resources) this.#kinds.set(kindKey(r.group, r.kind), r);
    for (const r of resources) {
      this.#unregister.push(
        ctx.informers.addEventHandler(r, {
          onAdd: (o) => this.#observe(r, o),
          onUpdate: (_old, o) => this.#observe(r, o),
          onDelete: (o) => this.#forgetObject(o),
        }),
      );
    }
    const stopped = new Promise<void>((resolve) => (this.#onStop = resolve));
    await Promise.race([ctx.informers.waitForSync(), stopped]);
    if (this.#stopped) return;
    const workers = this.#options.workers ?? 20;
    // A 409 is a race with another writer, retried with the newer copy: not worth a log line.
    const onError = (what: string) => (uid: string, error: unknown) => {
      if (!isConflict(error)) this.#log(`garbagecollector: ${what} ${this.#describe(uid)}: ${messageOf(error)}`);
    };
    this.#workers = Promise.all([
      processQueue(deleteQueue, (uid) => this.#attemptToDeleteItem(uid), { workers, onError: onError("cannot collect") }),
      processQueue(orphanQueue, (uid) => this.#orphanDependents(uid), { workers, onError: onError("cannot orphan the dependents of") }),
    ]).then(() => undefined);
  }

  /** Stops the workers and leaves the informers; resolves when no item is in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#onStop?.();
    for (const unregister of this.#unregister.splice(0)) unregister();
    this.#attemptToDelete?.shutDown();
    this.#attemptToOrphan?.shutDown();
    await this.#workers;
  }

  #describe(uid: string): string {
    const id = this.#nodes.get(uid)?.identity;
    if (!id) return `uid ${uid}`;
    return `${id.resource.kind} ${id.namespace ? `${id.namespace}/` : ""}${id.name}`;
  }

  // ---- the graph ----

  #node(uid: string): GraphNode {
    let node = this.#nodes.get(uid);
    if (!node) {
      node = { uid, identity: undefined, owners: [], dependents: new Set(), beingDeleted: false, deletingDependents: false, orphaning: false };
      this.#nodes.set(uid, node);
    }
    return node;
  }

  /** Drops `dependent` from the dependents of `ownerUid`; a virtual owner left without dependents leaves the graph. */
  #unlink(dependent: GraphNode, ownerUid: string): GraphNode | undefined {
    const owner = this.#nodes.get(ownerUid);
    if (!owner) return undefined;
    owner.dependents.delete(dependent);
    if (!owner.identity && owner.dependents.size === 0) this.#nodes.delete(ownerUid);
    return owner;
  }

  #enqueue(uid: string): void {
    this.#attemptToDelete?.add(uid);
  }

  /** An object was added or changed. */
  #observe(resource: DiscoveredResource, object: APIObject): void {
    const uid = object.metadata.uid;
    if (!uid) return;
    const node = this.#node(uid);
    const firstSeen = node.identity === undefined;
    const oldOwners = node.owners;
    const owners = object.metadata.ownerReferences ?? [];
    const beingDeleted = object.metadata.deletionTimestamp !== undefined;
    const deletingDependents = beingDeleted && hasFinalizer(object, foregroundDeletionFinalizer);
    const orphaning = beingDeleted && hasFinalizer(object, orphanFinalizer);
    const startsDeletingDependents = deletingDependents && !node.deletingDependents;
    const startsOrphaning = orphaning && !node.orphaning;
    node.identity = { resource, namespace: object.metadata.namespace || undefined, name: object.metadata.name ?? "" };
    node.owners = owners;
    node.beingDeleted = beingDeleted;
    node.deletingDependents = deletingDependents;
    node.orphaning = orphaning;

    const oldByUid = new Map(oldOwners.map((o) => [o.uid, o]));
    const newByUid = new Map(owners.map((o) => [o.uid, o]));
    let verify = false;
    for (const o of owners) {
      if (oldByUid.has(o.uid)) continue;
      const owner = this.#node(o.uid);
      owner.dependents.add(node);
      // An owner never observed may not exist, one in another namespace does not count: check
      // the dependent against the live owner.
      if (!owner.identity || (firstSeen && owner.beingDeleted) || misplaced(node, owner)) verify = true;
    }
    // An owner seen for the first time may sit in another namespace than dependents linked to it.
    if (firstSeen) for (const dependent of node.dependents) if (misplaced(dependent, node)) this.#enqueue(dependent.uid);
    for (const o of oldOwners) {
      const now = newByUid.get(o.uid);
      if (now && Boolean(now.blockOwnerDeletion) === Boolean(o.blockOwnerDeletion)) continue;
      const owner = now ? this.#nodes.get(o.uid) : this.#unlink(node, o.uid);
      // A dependent that stopped blocking may let a foreground deletion finish.
      if (owner?.deletingDependents) this.#enqueue(owner.uid);
    }
    if (verify) this.#enqueue(uid);
    if (startsDeletingDependents) {
      for (const dependent of node.dependents) this.#enqueue(dependent.uid);
      this.#enqueue(uid);
    }
    if (startsOrphaning) this.#attemptToOrphan?.add(uid);
  }

  /** An object went away. */
  #forgetObject(object: APIObject): void {
    const uid = object.metadata.uid;
    if (!uid) return;
    const node = this.#nodes.get(uid);
    if (!node) return;
    for (const o of node.owners) {
      const owner = this.#unlink(node, o.uid);
      if (owner?.deletingDependents) this.#enqueue(owner.uid);
    }
    for (const dependent of node.dependents) this.#enqueue(dependent.uid);
    node.identity = undefined;
    node.owners = [];
    node.beingDeleted = false;
    node.deletingDependents = false;
    node.orphaning = false;
    if (node.dependents.size === 0) this.#nodes.delete(uid);
  }

  // ---- the workers ----

  #resourceClient(resource: DiscoveredResource): ResourceClient {
    if (!this.#client) throw new Error("the garbage collector is not running");
    return this.#client.resource(resource);
  }

  /** The live object at `identity` when it still has `uid`; undefined when it is gone or was replaced. */
  async #live(identity: Identity, uid: string): Promise<APIObject | undefined> {
    try {
      const object = await this.#resourceClient(identity.resource).get(
        identity.name,
        identity.namespace === undefined ? {} : { namespace: identity.namespace },
      );
      return object.metadata.uid === uid ? object : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The live owner `ref` of `dependent` names, or undefined when it is absent (not found, another uid, or in no valid place). */
  async #owner(ref: OwnerReference, dependent: APIObject): Promise<APIObject | undefined> {
    const resource = this.#kinds.get(kindKey(groupOf(ref.apiVersion), ref.kind));
    if (!resource) throw new Error(`the owner kind ${ref.kind} of ${ref.apiVersion} is not served with list, watch and delete`);
    const namespace = dependent.metadata.namespace || undefined;
    if (resource.namespaced && namespace === undefined) return undefined;
    return this.#live({ resource, namespace: resource.namespaced ? namespace : undefined, name: ref.name }, ref.uid);
  }

  /** Writes `object` back with `edit` applied (compare-and-swap on its resourceVersion); a vanished object is fine. */
  async #rewrite(identity: Identity, object: APIObject, edit: (metadata: APIObject["metadata"]) => void): Promise<void> {
    const metadata = structuredClone(object.metadata);
    edit(metadata);
    try {
      await this.#resourceClient(identity.resource).update({ ...object, metadata });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
  }

  async #removeFinalizer(identity: Identity, object: APIObject, finalizer: string): Promise<void> {
    await this.#rewrite(identity, object, (m) => {
      const rest = (m.finalizers ?? []).filter((f) => f !== finalizer);
      if (rest.length) m.finalizers = rest;
      else delete m.finalizers;
    });
  }

  async #delete(identity: Identity, uid: string, propagationPolicy: "Orphan" | "Background" | "Foreground", why: string): Promise<void> {
    this.#log(`garbagecollector: deleting ${this.#describe(uid)} (${propagationPolicy}): ${why}`);
    try {
      await this.#resourceClient(identity.resource).delete(identity.name, {
        ...(identity.namespace === undefined ? {} : { namespace: identity.namespace }),
        propagationPolicy,
        preconditions: { uid },
      });
    } catch (error) {
      // Gone, or replaced by another object of the same name: nothing left to collect.
      if (isNotFound(error) || isConflict(error)) return;
      throw error;
    }
  }

  /** The reference's `attemptToDeleteItem`. */
  async #attemptToDeleteItem(uid: string): Promise<void> {
    const node = this.#nodes.get(uid);
    const identity = node?.identity;
    if (!node || !identity) return;
    const latest = await this.#live(identity, uid);
    if (!latest) return;
    const beingDeleted = latest.metadata.deletionTimestamp !== undefined;
    if (beingDeleted && !hasFinalizer(latest, foregroundDeletionFinalizer)) return;
    if (beingDeleted) return this.#processDeletingDependents(node, identity, latest);

    const owners = latest.metadata.ownerReferences ?? [];
    if (owners.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of owners) {
      const owner = await this.#owner(ref, latest);
      if (!owner) dangling.push(ref);
      else if (owner.metadata.deletionTimestamp !== undefined && hasFinalizer(owner, foregroundDeletionFinalizer)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // A live owner keeps the object: only the references to owners that are gone or going go.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await this.#rewrite(identity, latest, (m) => {
        const rest = (m.ownerReferences ?? []).filter((r) => !drop.has(r.uid));
        if (rest.length) m.ownerReferences = rest;
        else delete m.ownerReferences;
      });
      return;
    }
    if (waiting.length > 0 && node.dependents.size > 0) {
      // A dependent of ours waits for us while we would wait for it (a cycle): stop blocking our owners.
      if ([...node.dependents].some((d) => d.deletingDependents)) {
        const unblock = new Set(waiting.map((r) => r.uid));
        await this.#rewrite(identity, latest, (m) => {
          m.ownerReferences = (m.ownerReferences ?? []).map((r) => (unblock.has(r.uid) ? { ...r, blockOwnerDeletion: false } : r));
        });
      }
      return this.#delete(identity, uid, "Foreground", "its owners are being deleted in the foreground");
    }
    const policy = hasFinalizer(latest, orphanFinalizer) ? "Orphan" : hasFinalizer(latest, foregroundDeletionFinalizer) ? "Foreground" : "Background";
    await this.#delete(identity, uid, policy, waiting.length > 0 ? "its owners are being deleted in the foreground" : "its owners are gone");
  }

  /** An owner being deleted in the foreground: delete its blocking dependents, or, once none is left, let it go. */
  async #processDeletingDependents(node: GraphNode, identity: Identity, latest: APIObject): Promise<void> {
    const blocking = [...node.dependents].filter((d) => d.identity && d.owners.some((o) => o.uid === node.uid && o.blockOwnerDeletion === true));
    if (blocking.length === 0) return this.#removeFinalizer(identity, latest, foregroundDeletionFinalizer);
    for (const dependent of blocking) if (!dependent.beingDeleted) this.#enqueue(dependent.uid);
  }

  /** An owner with the `orphan` finalizer: remove its reference from each dependent, then the finalizer. */
  async #orphanDependents(uid: string): Promise<void> {
    const node = this.#nodes.get(uid);
    const identity = node?.identity;
    if (!node || !identity) return;
    const latest = await this.#live(identity, uid);
    if (!latest || latest.metadata.deletionTimestamp === undefined || !hasFinalizer(latest, orphanFinalizer)) return;
    for (const dependent of [...node.dependents]) {
      const id = dependent.identity;
      if (!id) continue;
      const live = await this.#live(id, dependent.uid);
      if (!live?.metadata.ownerReferences?.some((r) => r.uid === uid)) continue;
      await this.#rewrite(id, live, (m) => {
        const rest = (m.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (rest.length) m.ownerReferences = rest;
        else delete m.ownerReferences;
      });
    }
    await this.#removeFinalizer(identity, latest, orphanFinalizer);
  }
}

/** The {@link ControllerDescriptor} of the garbage collector: `garbagecollector`, on by default. */
export const garbageCollectorController: ControllerDescriptor = {
  name: "garbagecollector",
  enabledByDefault: true,
  create: () => new GarbageCollector(),
};
