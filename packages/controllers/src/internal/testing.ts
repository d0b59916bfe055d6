/**
 * Test helpers: polling until a condition holds, running one controller.
 * @module
 */
import type { Client, Transport, TransportRequest, TransportResponse } from "@orch/client";
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

/** A response with `body` as JSON, for {@link interceptTransport}. */
export function jsonResponse(status: number, body: unknown): TransportResponse {
  const text = JSON.stringify(body);
  return {
    status,
    headers: new Headers({ "content-type": "application/json" }),
    text: () => Promise.resolve(text),
    lines: async function* () {
      yield text;
    },
  };
}

/**
 * `inner` with every request going through `intercept` first, which answers it itself or
 * passes it on with `next` (and may rewrite the answer): a server whose discovery fails or
 * lists other verbs.
 */
export function interceptTransport(
  inner: Transport,
  intercept: (request: TransportRequest, next: () => Promise<TransportResponse>) => Promise<TransportResponse>,
): Transport {
  return { request: (request) => intercept(request, () => inner.request(request)) };
}

/**
 * A transport over `inner` whose first PUT to a path containing `pathPart` answers 409
 * Conflict, when `enabled`, to prove a controller retries a conflict quietly; `conflicted()`
 * says whether it happened.
 */
export function conflictOnce(inner: Transport, pathPart: string, enabled = true): { transport: Transport; conflicted: () => boolean } {
  let conflicted = false;
  const transport = interceptTransport(inner, (request, next) => {
    if (enabled && !conflicted && request.method === "PUT" && request.path.includes(pathPart)) {
      conflicted = true;
      return Promise.resolve(
        jsonResponse(409, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Conflict", code: 409, message: "the object has been modified" }),
      );
    }
    return next();
  });
  return { transport, conflicted: () => conflicted };
}

/**
 * Creates the `default` ServiceAccount of `namespace`, as the `serviceaccount` controller would
 * (for tests that create Pods without running it: the ServiceAccount admission plugin refuses a
 * Pod whose account is missing).
 */
export async function createDefaultServiceAccount(client: Client, namespace = "default"): Promise<void> {
  await client.serviceAccounts.create({ metadata: { name: "default" } }, { namespace });
}
