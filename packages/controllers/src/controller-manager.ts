/**
 * {@link ControllerManager}: runs the controllers a `--controllers` selection names, while it
 * holds the leader Lease, with shared informers; and {@link selectControllers}, the reference's
 * reading of that selection.
 * @module
 */
import type { Client } from "@orch/client";
import { systemClock, type Clock } from "@orch/store";
import type { ClusterSigning, Controller, ControllerContext, ControllerDescriptor } from "./controller.js";
import { messageOf } from "./internal/message-of.js";
import { LeaderElector, type LeaderElectionOptions } from "./leader-election.js";
import { SharedInformers } from "./shared-informers.js";

/**
 * The names a `--controllers` selection enables, in the order of `descriptors`. Entries are
 * comma-separated (or given as an array): `*` enables every default-on controller, `name`
 * enables one, `-name` disables one and wins over both. Throws a `TypeError` naming an unknown
 * controller. Only `name` and `enabledByDefault` of a descriptor are read, so a command can add
 * names of loops that run elsewhere (the API server's own) to one selection and split the result.
 *
 * @example
 * selectControllers("*,-garbagecollector,tokencleaner", descriptors);
 */
export function selectControllers(
  selection: string | readonly string[],
  descriptors: readonly Pick<ControllerDescriptor, "name" | "enabledByDefault">[],
): string[] {
  const entries = (typeof selection === "string" ? selection.split(",") : selection).map((e) => e.trim()).filter((e) => e !== "");
  const known = new Set(descriptors.map((d) => d.name));
  for (const entry of entries) {
    const name = entry.startsWith("-") ? entry.slice(1) : entry;
    if (entry !== "*" && !known.has(name)) {
      throw new TypeError(`"${name}" is not in the list of known controllers: ${[...known].sort().join(", ")}`);
    }
  }
  const listed = new Set(entries);
  return descriptors.filter((d) => !listed.has(`-${d.name}`) && (listed.has(d.name) || (listed.has("*") && d.enabledByDefault))).map((d) => d.name);
}

/** Options of {@link ControllerManager}. */
export interface ControllerManagerOptions {
  /** The client every controller (and the election) talks to the API through. */
  client: Client;
  /** The controllers that can be selected. */
  controllers: readonly ControllerDescriptor[];
  /** The `--controllers` selection; `*` by default. */
  selection?: string | readonly string[];
  /** Time and timers of the election, the informers and the controllers; `systemClock` by default. */
  clock?: Clock;
  /**
   * Run only while holding this Lease. Without it the manager leads from {@link ControllerManager.start}
   * (a single in-process server).
   */
  leaderElection?: Omit<LeaderElectionOptions, "client" | "clock" | "onStartedLeading" | "onStoppedLeading">;
  /** Receives log lines. */
  log?(message: string): void;
  /** The cluster signing CA handed to every controller as {@link ControllerContext.signing}. */
  signing?: ClusterSigning;
}

/**
 * Runs the selected controllers, each term of leadership with fresh instances and fresh shared
 * informers, and stops them when leadership ends. The selection is checked at construction
 * (an unknown name throws).
 *
 * @example
 * const manager = new ControllerManager({ client, controllers: builtinControllers, selection: "*" });
 * manager.start();
 * // ...
 * await manager.stop();
 */
export class ControllerManager {
  /** The names of the controllers the selection enables. */
  readonly enabled: readonly string[];
  readonly #options: ControllerManagerOptions;
  readonly #clock: Clock;
  readonly #elector: LeaderElector | undefined;
  #running: Controller[] = [];
  #informers: SharedInformers | undefined;
  #startedAlone = false;

  constructor(options: ControllerManagerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.enabled = selectControllers(options.selection ?? "*", options.controllers);
    if (options.leaderElection) {
      this.#elector = new LeaderElector({
        ...options.leaderElection,
        client: options.client,
        clock: this.#clock,
        onStartedLeading: () => this.#startControllers(),
        onStoppedLeading: () => this.#stopControllers(),
      });
    }
  }

  /** The names of the controllers running now (none while another candidate leads). */
  get running(): readonly string[] {
    return this.#running.map((c) => c.name);
  }

  /** True while the manager leads (always after {@link ControllerManager.start} without leader election). */
  isLeader(): boolean {
    return this.#elector ? this.#elector.isLeader() : this.#startedAlone;
  }

  /** Starts campaigning, or, without leader election, the controllers. */
  start(): void {
    if (this.#elector) return this.#elector.start();
    if (this.#startedAlone) return;
    this.#startedAlone = true;
    void this.#startControllers();
  }

  /** Stops the controllers and releases the Lease; resolves when they have stopped. */
  async stop(): Promise<void> {
    if (this.#elector) return this.#elector.stop();
    if (!this.#startedAlone) return;
    this.#startedAlone = false;
    await this.#stopControllers();
  }

  #log(message: string): void {
    this.#options.log?.(message);
  }

  async #startControllers(): Promise<void> {
    const { client } = this.#options;
    const informers = new SharedInformers(client, {
      timers: this.#clock,
      onError: (ref, error) => this.#log(`informer of ${ref.resource}: ${messageOf(error)}`),
    });
    this.#informers = informers;
    informers.start();
    const ctx: ControllerContext = { client, informers, clock: this.#clock, log: (m) => this.#log(m) };
    if (this.#options.signing) ctx.signing = this.#options.signing;
    const byName = new Map(this.#options.controllers.map((d) => [d.name, d]));
    const controllers = this.enabled.flatMap((name) => {
      const descriptor = byName.get(name);
      return descriptor ? [descriptor.create()] : [];
    });
    this.#running = controllers;
    await Promise.all(
      controllers.map(async (c) => {
        try {
          // Quiet when it works: the log is for what an operator must look at.
          await c.run(ctx);
        } catch (error) {
          this.#log(`controller ${c.name} failed to start: ${messageOf(error)}`);
        }
      }),
    );
  }

  async #stopControllers(): Promise<void> {
    const controllers = this.#running;
    this.#running = [];
    await Promise.all(controllers.map((c) => c.stop().catch((error: unknown) => this.#log(`controller ${c.name} failed to stop: ${messageOf(error)}`))));
    await this.#informers?.stop();
    this.#informers = undefined;
  }
}
