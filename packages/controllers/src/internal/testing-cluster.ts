/**
 * {@link TestClusters}: in-process API servers for controller tests, a client of each, and the
 * controllers run against them, all stopped together after each test.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import type { Clock } from "@orch/store";
import type { Controller } from "../controller.js";
import { createDefaultServiceAccount, runController, type RunningController } from "./testing.js";

/** How {@link TestClusters.connect} makes a server. */
export interface ConnectOptions {
  /** The server's clock (the system clock by default). */
  serverClock?: Clock;
  /** Creates the `default` ServiceAccount, without which Pods are refused (true by default). */
  serviceAccount?: boolean;
}

/** How {@link TestClusters.start} makes a server and runs its controller. */
export interface StartOptions extends ConnectOptions {
  /** The controller's clock (the system clock by default). */
  clock?: Clock;
}

/**
 * The servers and controllers of a test file; call {@link TestClusters.stop} after each test.
 * @example
 * const clusters = new TestClusters();
 * afterEach(() => clusters.stop());
 * const { client, logs } = await clusters.start(new JobController(), { clock });
 */
export class TestClusters {
  readonly #servers: APIServer[] = [];
  readonly #running: RunningController[] = [];

  /** A new in-process server and a client of it. */
  async connect(options: ConnectOptions = {}): Promise<Client> {
    const server = new APIServer(options.serverClock ? { clock: options.serverClock } : {});
    this.#servers.push(server);
    const client = new Client({ transport: inProcessTransport(server) });
    if (options.serviceAccount !== false) await createDefaultServiceAccount(client);
    return client;
  }

  /** Runs `controller` against `client` on `clock` until {@link TestClusters.stop}. */
  async run(controller: Controller, client: Client, clock?: Clock): Promise<RunningController> {
    const running = await runController(controller, client, clock ? { clock } : {});
    this.#running.push(running);
    return running;
  }

  /** A new server ({@link TestClusters.connect}) with `controller` running against it, and the log lines it writes. */
  async start(controller: Controller, options: StartOptions = {}): Promise<{ client: Client; logs: string[] }> {
    const client = await this.connect(options);
    const running = await this.run(controller, client, options.clock);
    return { client, logs: running.logs };
  }

  /** Stops every controller, then every server. */
  async stop(): Promise<void> {
    for (const r of this.#running.splice(0)) await r.stop();
    for (const s of this.#servers.splice(0)) await s.shutdown();
  }
}
