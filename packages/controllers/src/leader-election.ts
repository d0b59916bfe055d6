/**
 * {@link LeaderElector}: leader election on a `coordination.<domain>/v1` Lease, as the
 * reference's `leaderelection` package does it. One candidate holds the Lease and renews it; the
 * others take it over only once it has gone unrenewed for `leaseDurationSeconds` (measured on
 * their own clock from when they last saw it change), or at once when it was released.
 * @module
 */
import { isAlreadyExists, isConflict, isNotFound } from "@orch/meta";
import type { Client } from "@orch/client";
import { systemClock, type Clock } from "@orch/store";
import { messageOf } from "./internal/message-of.js";

/** Options of {@link LeaderElector}. */
export interface LeaderElectionOptions {
  /** The client the Lease is read and written through. */
  client: Client;
  /** The Lease's namespace (`kube-system` in the reference). */
  namespace: string;
  /** The Lease's name (`orch-controller-manager`, ...). */
  name: string;
  /** This candidate's identity, written to `spec.holderIdentity`: unique per process (host name and a random suffix). */
  identity: string;
  /** Time and timers; `systemClock` of `@orch/store` by default. */
  clock?: Clock;
  /** How long a Lease stays valid after its last renewal, in seconds (15 by default). */
  leaseDurationSeconds?: number;
  /**
   * How long a leader keeps leading without a successful renewal, in ms (10 000 by default).
   * Must be shorter than the lease duration, so a leader steps down before anyone may take over.
   */
  renewDeadlineMs?: number;
  /** How often the leader renews and the others try to acquire, in ms (2000 by default). */
  retryPeriodMs?: number;
  /** Called when this candidate becomes the leader. */
  onStartedLeading(): void | Promise<void>;
  /** Called when this candidate stops leading (renewal deadline passed, Lease lost, or {@link LeaderElector.stop}). */
  onStoppedLeading(): void | Promise<void>;
  /** Called when the holder this candidate sees changes (its own identity included). */
  onNewLeader?(identity: string): void;
  /** Told about every failed read or write of the Lease. */
  onError?(error: unknown): void;
}

/** The part of a Lease's spec the elector reads and writes. */
interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
  [field: string]: unknown;
}

/** A micro-time as the Lease stores it. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * Campaigns for a Lease and calls back when leadership starts and ends. Two electors with
 * distinct identities on one Lease never lead at once: writes are compare-and-swap on the
 * Lease's resourceVersion, a candidate waits `leaseDurationSeconds` after the last change it saw
 * before it takes over, and a leader that could not renew for `renewDeadlineMs` (shorter) stops
 * leading. {@link LeaderElector.stop} releases a held Lease, so another candidate takes over at
 * its next try.
 *
 * @example
 * const elector = new LeaderElector({
 *   client, namespace: "kube-system", name: "orch-controller-manager", identity: "host-1",
 *   onStartedLeading: () => manager.startControllers(),
 *   onStoppedLeading: () => manager.stopControllers(),
 * });
 * elector.start();
 */
export class LeaderElector {
  readonly #options: LeaderElectionOptions;
  readonly #clock: Clock;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  #leading = false;
  #stopped = true;
  #controller = new AbortController();
  #cancelTick: (() => void) | undefined;
  #cancelDeadline: (() => void) | undefined;
  #observedVersion: string | undefined;
  #observedHolder: string | undefined;
  #observedAt = 0;
  #attempt: Promise<void> = Promise.resolve();
  #transition: Promise<void> = Promise.resolve();

  constructor(options: LeaderElectionOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#leaseDurationMs = (options.leaseDurationSeconds ?? 15) * 1000;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2000;
    if (this.#renewDeadlineMs >= this.#leaseDurationMs) throw new RangeError("renewDeadlineMs must be shorter than the lease duration");
    if (this.#retryPeriodMs >= this.#renewDeadlineMs) throw new RangeError("retryPeriodMs must be shorter than renewDeadlineMs");
  }

  /** True while this candidate leads. */
  isLeader(): boolean {
    return this.#leading;
  }

  /** The holder this candidate last saw on the Lease (`undefined` before the first read). */
  get observedHolder(): string | undefined {
    return this.#observedHolder;
  }

  /** Starts campaigning: the first try is made at once, then one every retry period. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#controller = new AbortController();
    this.#tick();
  }

  /** Stops campaigning; a leader releases the Lease (empty holder) and stops leading. Resolves when done. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#cancelTick?.();
    this.#cancelDeadline?.();
    await this.#attempt;
    this.#controller.abort();
    if (this.#leading) {
      await this.#release().catch((error: unknown) => this.#options.onError?.(error));
      this.#stepDown();
    }
    await this.#transition;
  }

  #tick(): void {
    if (this.#stopped) return;
    const startedAt = this.#clock.now();
    this.#attempt = this.#tryAcquireOrRenew()
      .then((ok) => this.#settle(ok, startedAt))
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        if (!this.#stopped) this.#cancelTick = this.#clock.setTimer(this.#retryPeriodMs, () => this.#tick());
      });
  }

  /** Acts on one try that started at `startedAt` (the renewal deadline counts from then, not from the answer). */
  #settle(ok: boolean, startedAt: number): void {
    if (this.#stopped) return;
    if (!ok) {
      // Someone else holds a valid Lease: we cannot be leading (the deadline timer covers failures).
      if (this.#leading && this.#observedHolder !== this.#options.identity) this.#stepDown();
      return;
    }
    this.#cancelDeadline?.();
    this.#cancelDeadline = this.#clock.setTimer(startedAt + this.#renewDeadlineMs - this.#clock.now(), () => this.#stepDown());
    if (!this.#leading) {
      this.#leading = true;
      this.#transition = this.#transition.then(() => this.#options.onStartedLeading()).catch((error: unknown) => this.#options.onError?.(error));
    }
  }

  #stepDown(): void {
    this.#cancelDeadline?.();
    this.#cancelDeadline = undefined;
    if (!this.#leading) return;
    this.#leading = false;
    this.#transition = this.#transition.then(() => this.#options.onStoppedLeading()).catch((error: unknown) => this.#options.onError?.(error));
  }

  #observe(version: string | undefined, holder: string, now: number): void {
    if (version === this.#observedVersion) return;
    this.#observedVersion = version;
    this.#observedAt = now;
    if (holder !== this.#observedHolder) {
      this.#observedHolder = holder;
      this.#options.onNewLeader?.(holder);
    }
  }

  /** One try: true when this candidate holds the Lease afterwards. */
  async #tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name, identity } = this.#options;
    const leases = client.leases;
    const signal = this.#controller.signal;
    const now = this.#clock.now();
    const spec = (base: LeaseSpec, acquired: boolean): LeaseSpec => ({
      ...base,
      holderIdentity: identity,
      leaseDurationSeconds: this.#leaseDurationMs / 1000,
      renewTime: microTime(now),
      ...(acquired
        ? { acquireTime: microTime(now), leaseTransitions: base.holderIdentity ? (base.leaseTransitions ?? 0) + 1 : (base.leaseTransitions ?? 0) }
        : {}),
    });
    let lease;
    try {
      lease = await leases.get(name, { namespace, signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      try {
        const created = await leases.create({ metadata: { name, namespace }, spec: spec({}, true) }, { signal });
        this.#observe(created.metadata.resourceVersion, identity, now);
        return true;
      } catch (createError) {
        if (isAlreadyExists(createError)) return false;
        throw createError;
      }
    }
    const current = (lease.spec ?? {}) as LeaseSpec;
    const holder = current.holderIdentity ?? "";
    this.#observe(lease.metadata.resourceVersion, holder, now);
    const durationMs = (current.leaseDurationSeconds ?? this.#leaseDurationMs / 1000) * 1000;
    if (holder !== "" && holder !== identity && this.#observedAt + durationMs > now) return false;
    try {
      const updated = await leases.update({ ...lease, spec: spec(current, holder !== identity) }, { signal });
      this.#observe(updated.metadata.resourceVersion, identity, now);
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw new Error(`cannot renew Lease ${namespace}/${name}: ${messageOf(error)}`, { cause: error });
    }
  }

  /** Gives the Lease up: empty holder, 1 s duration, so the next candidate need not wait. */
  async #release(): Promise<void> {
    const { client, namespace, name, identity } = this.#options;
    const lease = await client.leases.get(name, { namespace });
    const current = (lease.spec ?? {}) as LeaseSpec;
    if (current.holderIdentity !== identity) return;
    const now = this.#clock.now();
    await client.leases.update({
      ...lease,
      spec: { ...current, holderIdentity: "", leaseDurationSeconds: 1, renewTime: microTime(now), acquireTime: microTime(now) },
    });
  }
}
