import { MemoryStore, FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import type { APIResponse } from "../api-request.js";
import { FlowControl } from "../flowcontrol/flow-control.js";
import { LoopTurns } from "../flowcontrol/loop-turns.js";
import { noopMetrics } from "../metrics.js";
import { withMaxInFlightLimit, withPriorityAndFairness } from "./flow-control-stage.js";
import { withRequestInfo } from "./request-info-stage.js";
import { chain, type ServerRequest } from "./stage.js";

const alice = { name: "alice", groups: ["system:authenticated"] };
const admin = { name: "admin", groups: ["system:masters", "system:authenticated"] };

function request(user: { name: string; groups: string[] }, url = "/api/v1/namespaces/default/configmaps", method = "GET"): ServerRequest {
  return { method, url, headers: new Headers(), user };
}

/** A handler whose answers wait until `open()` is called. */
function gate() {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const handler = async (): Promise<APIResponse> => {
    await opened;
    return { status: 200, headers: new Headers(), body: "{}" };
  };
  return { handler, open: () => open() };
}

/** Flow control with only the mandatory configuration (not started): `catch-all` has all `limit` seats. */
function mandatoryOnly(limit: number): FlowControl {
  const clock = new FakeClock();
  const input = { domain: "orch.io", clock, store: new MemoryStore({ clock }), objects: undefined as never, served: () => undefined, log: () => undefined };
  return new FlowControl(input, { serverConcurrencyLimit: limit, maxQueueWaitMs: 1000, metrics: noopMetrics });
}

describe("withPriorityAndFairness", () => {
  it("answers 429 with Retry-After and the PF headers when the Reject level has no free seat; the exempt level passes", async () => {
    const { handler, open } = gate();
    const pipeline = chain([withRequestInfo, withPriorityAndFairness(mandatoryOnly(1), "orch.io")], handler);
    const first = pipeline(request(alice));
    const refused = await pipeline(request(alice));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("1");
    expect(refused.headers.has("X-Orch-PF-FlowSchema-UID")).toBe(true);
    expect(refused.headers.has("X-Orch-PF-PriorityLevel-UID")).toBe(true);
    const status = JSON.parse(String(refused.body)) as Record<string, unknown>;
    expect(status).toMatchObject({
      kind: "Status",
      reason: "TooManyRequests",
      code: 429,
      message: "Too many requests, please try again later.",
      details: { retryAfterSeconds: 1 },
    });
    const exempt = pipeline(request(admin));
    open();
    expect((await first).status).toBe(200);
    expect((await exempt).status).toBe(200);
    // The seat was given back.
    expect((await pipeline(request(alice))).status).toBe(200);
  });

  it("runs a request whose seats are free at once, with the metrics of a dispatch that did not wait", async () => {
    const recorded: string[] = [];
    const metrics = {
      ...noopMetrics,
      flowControlDispatched: (l: { priority_level: string; flow_schema: string }) => recorded.push(`dispatched ${l.priority_level}/${l.flow_schema}`),
      flowControlWaited: (l: { priority_level: string }, execute: boolean, seconds: number) =>
        recorded.push(`waited ${l.priority_level} ${execute} ${seconds}`),
    };
    const clock = new FakeClock();
    const input = { domain: "orch.io", clock, store: new MemoryStore({ clock }), objects: undefined as never, served: () => undefined, log: () => undefined };
    const flowControl = new FlowControl(input, { serverConcurrencyLimit: 4, maxQueueWaitMs: 1000, metrics });
    const handled: string[] = [];
    const pipeline = chain([withRequestInfo, withPriorityAndFairness(flowControl, "orch.io")], (r) => {
      handled.push(r.url);
      return Promise.resolve({ status: 200, headers: new Headers(), body: "{}" });
    });
    const answer = pipeline(request(alice));
    // Admitted without waiting for a promise of its seats: the handler already runs.
    expect(handled).toEqual(["/api/v1/namespaces/default/configmaps"]);
    const response = await answer;
    expect(response.headers.has("X-Orch-PF-PriorityLevel-UID")).toBe(true);
    expect(recorded).toEqual(["waited catch-all true 0", "dispatched catch-all/catch-all"]);
    recorded.length = 0;
    await pipeline(request(admin));
    expect(recorded).toEqual(["dispatched exempt/exempt"]);
  });

  it("starts a request that goes through many objects on a turn of its own, holding its seats until it has run", async () => {
    const flowControl = mandatoryOnly(10);
    const estimates: number[] = [];
    const flow = {
      classify: flowControl.classify.bind(flowControl),
      acquire: flowControl.acquire.bind(flowControl),
      // A LIST of 600 objects in a level of 10 seats (bounded to 6); a LIST of 50 is one seat and no turn.
      estimate: (_: unknown, work: { verb: string; query?: URLSearchParams }) => {
        const objects = work.verb !== "list" ? 0 : work.query?.get("limit") === "50" ? 50 : 600;
        const seats = objects > 100 ? 6 : 1;
        estimates.push(seats);
        return { objects, seats };
      },
    };
    const scheduled: (() => void)[] = [];
    const turns = new LoopTurns((fn) => scheduled.push(fn));
    const handled: string[] = [];
    const pipeline = chain([withRequestInfo, withPriorityAndFairness(flow, "orch.io", turns)], async (r) => {
      handled.push(r.url);
      return { status: 200, headers: new Headers(), body: "{}" };
    });
    const collection = "/api/v1/namespaces/default/configmaps";
    const wide = pipeline(request(alice));
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Let through, waiting for its turn: not run yet, its 6 seats taken.
    expect(handled).toEqual([]);
    expect(scheduled).toHaveLength(1);
    // A second wide one does not fit in the 4 seats left of the Reject level; narrow ones do, and run at once.
    expect((await pipeline(request(alice))).status).toBe(429);
    expect((await pipeline(request(alice, `${collection}/one`))).status).toBe(200);
    expect((await pipeline(request(alice, `${collection}?limit=50`))).status).toBe(200);
    expect(handled).toEqual([`${collection}/one`, `${collection}?limit=50`]);
    scheduled.shift()?.();
    expect((await wide).status).toBe(200);
    expect(handled.at(-1)).toBe(collection);
    // Its seats are back.
    const again = pipeline(request(alice));
    await new Promise((resolve) => setTimeout(resolve, 0));
    scheduled.shift()?.();
    expect((await again).status).toBe(200);
    expect(estimates).toEqual([6, 6, 1, 1, 6]);
  });

  it("holds the seat of a large answer until the adapter says it is written, of a small one only until it is answered", async () => {
    let large = true;
    const bodyParts = { parts: [new TextEncoder().encode("{}")], byteLength: 2 };
    const pipeline = chain([withRequestInfo, withPriorityAndFairness(mandatoryOnly(1), "orch.io")], () =>
      Promise.resolve<APIResponse>(large ? { status: 200, headers: new Headers(), bodyParts } : { status: 200, headers: new Headers(), body: "{}" }),
    );
    const written: (() => void)[] = [];
    const fromAdapter = (): ServerRequest => ({ ...request(alice), whenWritten: (callback) => written.push(callback) });
    expect((await pipeline(fromAdapter())).status).toBe(200);
    expect(written).toHaveLength(1);
    // Answered, not yet written: its seat is still taken, and catch-all refuses what finds none.
    expect((await pipeline(request(alice))).status).toBe(429);
    written[0]?.();
    expect((await pipeline(request(alice))).status).toBe(200);
    // A small answer gives its seat back when it is answered.
    large = false;
    expect((await pipeline(fromAdapter())).status).toBe(200);
    expect(written).toHaveLength(1);
    expect((await pipeline(request(alice))).status).toBe(200);
  });

  it("names the headers X-Kubernetes-PF-* under k8s.io", async () => {
    const pipeline = chain([withRequestInfo, withPriorityAndFairness(mandatoryOnly(10), "k8s.io")], async () => ({ status: 200, headers: new Headers() }));
    const response = await pipeline(request(alice));
    expect(response.headers.has("X-Kubernetes-PF-FlowSchema-UID")).toBe(true);
    expect(response.headers.has("X-Orch-PF-FlowSchema-UID")).toBe(false);
  });

  it("gives the seat back when the handler throws, and answers the error with the PF headers", async () => {
    const pipeline = chain([withRequestInfo, withPriorityAndFairness(mandatoryOnly(1), "orch.io")], async () => {
      throw new Error("boom");
    });
    const failed = await pipeline(request(alice));
    expect(failed.status).toBe(500);
    expect(failed.headers.has("X-Orch-PF-PriorityLevel-UID")).toBe(true);
    expect((await pipeline(request(alice))).status).toBe(500);
  });

  it("gives the seat back when the handler throws synchronously (no async frame) too", async () => {
    let calls = 0;
    const pipeline = chain([withRequestInfo, withPriorityAndFairness(mandatoryOnly(1), "orch.io")], () => {
      calls++;
      if (calls === 1) throw new Error("boom");
      return Promise.resolve({ status: 200, headers: new Headers() });
    });
    const failed = await pipeline(request(alice));
    expect(failed.status).toBe(500);
    expect(failed.headers.has("X-Orch-PF-FlowSchema-UID")).toBe(true);
    // The one seat of catch-all is free again: the next request is let through, not refused 429.
    expect((await pipeline(request(alice))).status).toBe(200);
  });
});

describe("withMaxInFlightLimit", () => {
  it("limits reads and writes separately, never watches or system:masters", async () => {
    const { handler, open } = gate();
    const pipeline = chain([withRequestInfo, withMaxInFlightLimit({ readOnly: 1, mutating: 1 })], handler);
    const read = pipeline(request(alice));
    const refused = await pipeline(request(alice));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("1");
    const write = pipeline(request(alice, "/api/v1/namespaces/default/configmaps", "POST"));
    expect((await pipeline(request(alice, "/api/v1/namespaces/default/configmaps", "POST"))).status).toBe(429);
    const watch = pipeline(request(alice, "/api/v1/namespaces/default/configmaps?watch=true"));
    const masters = pipeline(request(admin));
    open();
    expect((await Promise.all([read, write, watch, masters])).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await pipeline(request(alice))).status).toBe(200);
  });
});
