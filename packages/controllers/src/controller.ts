/**
 * The {@link Controller} interface every control loop implements, and the
 * {@link ControllerContext} it runs with.
 * @module
 */
import type { Client } from "@orch/client";
import type { Clock } from "@orch/store";
import type { SharedInformers } from "./shared-informers.js";

/** What a controller runs with. */
export interface ControllerContext {
  /** The only way to the API. */
  client: Client;
  /** Informers shared with the other controllers of the same manager. */
  informers: SharedInformers;
  /** Time and timers: delays, back-offs and periodic work run on it. */
  clock: Clock;
  /** Receives log lines. */
  log(message: string): void;
  /**
   * The cluster signing CA and the lifetime of what it signs (`--cluster-signing-cert-file`,
   * `--cluster-signing-key-file`, `--cluster-signing-duration`), for the CSR signer; absent when
   * the manager was given none.
   */
  signing?: ClusterSigning;
}

/** The cluster signing CA of a {@link ControllerContext}. */
export interface ClusterSigning {
  /** The CA certificate, PEM. */
  caCertPem: string;
  /** The CA's private key, PEM (PKCS#8). */
  caKeyPem: string;
  /** The longest lifetime of a signed certificate, in ms (one year by default in the commands). */
  durationMs: number;
}

/** A control loop. */
export interface Controller {
  /** The name `--controllers` selects it by: `garbagecollector`, ... */
  readonly name: string;
  /**
   * Starts the loop: registers its informer handlers, waits for the caches to sync and starts its
   * workers. Resolves once it is running; the loop runs until {@link Controller.stop}. Called at
   * most once per instance.
   */
  run(ctx: ControllerContext): Promise<void>;
  /** Stops the workers and unregisters the handlers; resolves when no work is in flight. */
  stop(): Promise<void>;
}

/** A controller the manager can create, with whether `*` selects it. */
export interface ControllerDescriptor {
  /** The controller's name, as `--controllers` spells it. */
  name: string;
  /** True when `*` selects it (most loops); false for those that must be named (`tokencleaner`). */
  enabledByDefault: boolean;
  /** A new instance, for one term of leadership. */
  create(): Controller;
}
