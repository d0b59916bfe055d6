/**
 * Test helpers: polling until a condition holds, running one controller.
 * @module
 */
import type { Client } from "@orch/client";
import { systemClock, type Clock } from "@orch/store";
import type { ClusterSigning, Controller, ControllerContext } from "../controller.js";
import { SharedInformers } from "../shared-informers.js";

/** Polls `cond` (on real timers) until it holds, for at most `ms`; false when it never did. */
export async function eventually(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A controller under test, run with its own informers; {@link RunningController.stop} ends both. */
export interface RunningController {
  /** The log lines the controller wrote. */
  logs: string[];
  /** Stops the controller, then its informers. */
  stop(): Promise<void>;
}

/** Runs `controller` against `client` with fresh shared informers, on `clock` (`systemClock` by default). */
export async function runController(
  controller: Controller,
  client: Client,
  options: { clock?: Clock; signing?: ClusterSigning } = {},
): Promise<RunningController> {
  const informers = new SharedInformers(client);
  const logs: string[] = [];
  informers.start();
  const ctx: ControllerContext = { client, informers, clock: options.clock ?? systemClock, log: (m) => logs.push(m) };
  if (options.signing) ctx.signing = options.signing;
  await controller.run(ctx);
  return {
    logs,
    stop: async () => {
      await controller.stop();
      await informers.stop();
    },
  };
}

/** Lets pending promise callbacks and in-process requests run (advancing a `FakeClock` fires timers synchronously). */
export function settle(ms = 30): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
