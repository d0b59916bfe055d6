import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { noopMetrics, type MetricsRecorder } from "../metrics.js";
import { batchingSink, fanOutSink } from "./batching-sink.js";
import type { AuditEvent, AuditSink } from "./event.js";

function event(n: number): AuditEvent {
  return {
    kind: "Event",
    apiVersion: "audit.orch.io/v1",
    level: "Metadata",
    auditID: `id-${n}`,
    stage: "ResponseComplete",
    requestURI: "/api/v1/namespaces",
    verb: "list",
    user: { username: "alice", groups: [] },
    requestReceivedTimestamp: "2026-11-24T00:00:00.000000Z",
    stageTimestamp: "2026-11-24T00:00:00.000000Z",
  };
}

/** Lets the sink's promise chains run (no timers involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

function errorCounter(): MetricsRecorder & { errors: Record<string, number> } {
  const errors: Record<string, number> = {};
  return {
    ...noopMetrics,
    errors,
    auditError: (plugin, n) => {
      errors[plugin] = (errors[plugin] ?? 0) + n;
    },
  };
}

describe("batchingSink", () => {
  it("sends a batch as soon as it holds maxBatchSize events, splitting larger writes", async () => {
    const clock = new FakeClock();
    const sent: string[][] = [];
    const sink = batchingSink({ send: async (events) => void sent.push(events.map((e) => e.auditID)), maxBatchSize: 2, clock });
    void sink.write([event(1), event(2), event(3)]);
    await settle();
    expect(sent).toEqual([["id-1", "id-2"]]);
    expect(sink.buffered).toBe(1);
  });

  it("sends a partial batch once its first event waited maxWaitMs", async () => {
    const clock = new FakeClock();
    const sent: string[][] = [];
    const sink = batchingSink({ send: async (events) => void sent.push(events.map((e) => e.auditID)), maxBatchSize: 10, maxWaitMs: 1000, clock });
    void sink.write([event(1)]);
    clock.advance(500);
    void sink.write([event(2)]);
    await settle();
    expect(sent).toEqual([]);
    clock.advance(500);
    await settle();
    expect(sent).toEqual([["id-1", "id-2"]]);
  });

  it("retries a failed batch after the back-off, growing it, then delivers", async () => {
    const clock = new FakeClock();
    let calls = 0;
    const delivered: string[] = [];
    const sink = batchingSink({
      send: async (events) => {
        calls++;
        if (calls < 3) throw new Error("down");
        delivered.push(...events.map((e) => e.auditID));
      },
      maxBatchSize: 1,
      initialBackoffMs: 100,
      clock,
    });
    void sink.write([event(1)]);
    await settle();
    expect(calls).toBe(1);
    clock.advance(100);
    await settle();
    expect(calls).toBe(2);
    clock.advance(100);
    await settle();
    expect(calls).toBe(2); // the second wait is 150 ms
    clock.advance(50);
    await settle();
    expect(calls).toBe(3);
    expect(delivered).toEqual(["id-1"]);
    expect(sink.dropped).toBe(0);
  });

  it("drops a batch after the last attempt and counts it as an audit error", async () => {
    const clock = new FakeClock();
    const metrics = errorCounter();
    const sink = batchingSink({ send: () => Promise.reject(new Error("down")), maxBatchSize: 2, initialBackoffMs: 10, attempts: 2, metrics, clock });
    void sink.write([event(1), event(2)]);
    await settle();
    clock.advance(10);
    await settle();
    expect(sink.dropped).toBe(2);
    expect(metrics.errors).toEqual({ webhook: 2 });
  });

  it("never blocks a write: events beyond the buffer are dropped and counted", async () => {
    const clock = new FakeClock();
    const metrics = errorCounter();
    // The transport never answers: the first batch stays in flight.
    const sink = batchingSink({ send: () => new Promise<void>(() => undefined), maxBatchSize: 2, bufferSize: 3, metrics, clock });
    void sink.write([event(1), event(2)]);
    await settle();
    const result = sink.write([event(3), event(4), event(5), event(6)]);
    expect(result).toBeUndefined();
    expect(sink.buffered).toBe(3);
    expect(sink.dropped).toBe(1);
    expect(metrics.errors).toEqual({ webhook: 1 });
  });

  it("flush sends what waits without waiting for maxWaitMs", async () => {
    const clock = new FakeClock();
    const sent: string[][] = [];
    const sink = batchingSink({ send: async (events) => void sent.push(events.map((e) => e.auditID)), maxBatchSize: 10, clock });
    void sink.write([event(1), event(2)]);
    await sink.flush();
    expect(sent).toEqual([["id-1", "id-2"]]);
    expect(sink.buffered).toBe(0);
  });

  it("in blocking mode, write resolves once the request's events were delivered", async () => {
    const sent: string[] = [];
    let release: (() => void) | undefined;
    const sink = batchingSink({
      mode: "blocking",
      send: (events) =>
        new Promise<void>((resolve) => {
          release = () => {
            sent.push(...events.map((e) => e.auditID));
            resolve();
          };
        }),
    });
    let done = false;
    const pending = sink.write([event(1)]);
    expect(pending).toBeInstanceOf(Promise);
    void (pending as Promise<void>).then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    release?.();
    await pending;
    expect(done).toBe(true);
    expect(sent).toEqual(["id-1"]);
  });

  it("blocking mode swallows a delivery failure (counted); blocking-strict rejects", async () => {
    const metrics = errorCounter();
    const fail = () => Promise.reject(new Error("down"));
    const blocking = batchingSink({ mode: "blocking", send: fail, attempts: 1, metrics });
    await expect(blocking.write([event(1)])).resolves.toBeUndefined();
    const strict = batchingSink({ mode: "blocking-strict", send: fail, attempts: 1, metrics });
    await expect(strict.write([event(2)])).rejects.toThrow(/could not be delivered/);
    expect(metrics.errors).toEqual({ webhook: 2 });
  });
});

describe("fanOutSink", () => {
  it("hands every event to each sink and waits for the blocking ones", async () => {
    const a: string[] = [];
    const b: string[] = [];
    const first: AuditSink = { write: (events) => void a.push(...events.map((e) => e.auditID)) };
    const second: AuditSink = { write: async (events) => void b.push(...events.map((e) => e.auditID)) };
    const both = fanOutSink([first, second]);
    const result = both.write([event(1)]);
    expect(result).toBeInstanceOf(Promise);
    await result;
    expect(a).toEqual(["id-1"]);
    expect(b).toEqual(["id-1"]);
  });
});
