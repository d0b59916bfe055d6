import { MemoryStore, FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import type { APIResponse } from "../api-request.js";
import { FlowControl } from "../flowcontrol/flow-control.js";
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
