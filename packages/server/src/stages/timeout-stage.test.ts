import { FakeClock, MemoryStore, type Clock, type Store } from "@orch/store";
import { APIServer } from "../api-server.js";
import { describe, expect, it } from "vitest";
import type { APIResponse } from "../api-request.js";
import { requestInfoOf } from "./request-info-stage.js";
import { chain, type Handler, type ServerRequest } from "./stage.js";
import { parseGoDuration } from "@orch/meta";
import { deadlineTickMs } from "./request-deadlines.js";
import { isLongRunning, requestTimeoutOf, withTimeout } from "./timeout-stage.js";
import { withErrorResponses } from "./request-info-stage.js";

function request(url: string, method = "GET"): ServerRequest {
  return { method, url, headers: new Headers(), info: requestInfoOf(method, url) };
}

const ok = (): APIResponse => ({ status: 200, headers: new Headers(), body: "{}" });

/** A handler that answers only when `release` is called, and notes the signal it was given. */
function slowHandler(): { handler: Handler; release: () => void; signals: (AbortSignal | undefined)[] } {
  let release: () => void = () => undefined;
  const signals: (AbortSignal | undefined)[] = [];
  const handler: Handler = (req) => {
    signals.push(req.signal);
    return new Promise((resolve) => {
      release = () => resolve(ok());
    });
  };
  return { handler, release: () => release(), signals };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("withTimeout", () => {
  it("answers 504 Timeout with the reference's Status when the handler is late, and drops its answer", async () => {
    const clock = new FakeClock(0);
    const slow = slowHandler();
    const pipeline = chain([withErrorResponses, withTimeout({ requestTimeoutMs: 60_000, clock })], slow.handler);
    const pending = pipeline(request("/api/v1/namespaces/default/configmaps"));
    await settle();
    clock.advance(59_999);
    await settle();
    let answered = false;
    void pending.then(() => (answered = true));
    await settle();
    expect(answered).toBe(false);
    clock.advance(1);
    const response = await pending;
    expect(response.status).toBe(504);
    expect(JSON.parse(String(response.body))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Timeout: request did not complete within the allotted timeout",
      reason: "Timeout",
      details: {},
      code: 504,
    });
    slow.release();
    await settle();
    expect((await pending).status).toBe(504);
  });

  it("passes a handler's answer in time through, and leaves no timer once nothing is pending", async () => {
    const fake = new FakeClock(0);
    const set: { ms: number; background: boolean }[] = [];
    const clock: Clock = {
      now: () => fake.now(),
      setTimer: (ms, fn, options) => {
        set.push({ ms, background: options?.background === true });
        return fake.setTimer(ms, fn);
      },
    };
    const slow = slowHandler();
    const pipeline = chain([withTimeout({ requestTimeoutMs: 60_000, clock })], slow.handler);
    const pending = pipeline(request("/api/v1/namespaces"));
    await settle();
    fake.advance(30_000);
    slow.release();
    expect((await pending).status).toBe(200);
    // The one timer fires at the old deadline, finds nothing due and is not armed again.
    fake.advance(30_000);
    expect(fake.pendingTimers()).toBe(0);
    expect(set).toEqual([{ ms: 60_000, background: true }]);
  });

  it("watches every request in flight with one timer, re-armed for the earliest deadline", async () => {
    const fake = new FakeClock(0);
    const set: number[] = [];
    const clock: Clock = { now: () => fake.now(), setTimer: (ms, fn) => (set.push(ms), fake.setTimer(ms, fn)) };
    const handlers = [slowHandler(), slowHandler(), slowHandler()];
    // One stage shared by three requests, as a server shares it.
    const shared = withTimeout({ requestTimeoutMs: 60_000, clock });
    let n = 0;
    const pipeline = chain([withErrorResponses, shared], (req) => (handlers[n++] as ReturnType<typeof slowHandler>).handler(req));
    const first = pipeline(request("/api/v1/namespaces/default/pods"));
    fake.advance(1_000);
    const second = pipeline(request("/api/v1/namespaces/default/pods"));
    const third = pipeline(request("/api/v1/namespaces/default/pods?timeout=5s"));
    await settle();
    // The first request armed the timer for 60 s; the second's later deadline did not touch it;
    // the third's earlier one (6 s) re-armed it.
    expect(set).toEqual([60_000, 5_000]);
    expect(fake.pendingTimers()).toBe(1);
    fake.advance(5_000);
    expect((await third).status).toBe(504);
    // Firing re-armed it for the earliest deadline left, the first request's.
    expect(set).toEqual([60_000, 5_000, 54_000]);
    (handlers[0] as ReturnType<typeof slowHandler>).release();
    expect((await first).status).toBe(200);
    fake.advance(54_000);
    // The first request had finished; the second is now the earliest and times out at 61 s.
    expect(set).toEqual([60_000, 5_000, 54_000, 1_000]);
    fake.advance(1_000);
    expect((await second).status).toBe(504);
    expect(fake.pendingTimers()).toBe(0);
  });

  it("arms the timer once for requests whose deadlines fall in the same tick", async () => {
    const fake = new FakeClock(0);
    const set: number[] = [];
    const clock: Clock = { now: () => fake.now(), setTimer: (ms, fn) => (set.push(ms), fake.setTimer(ms, fn)) };
    const stage = withTimeout({ requestTimeoutMs: 1_000, clock });
    const slow = [slowHandler(), slowHandler(), slowHandler()];
    let n = 0;
    const pipeline = chain([withErrorResponses, stage], (req) => (slow[n++] as ReturnType<typeof slowHandler>).handler(req));
    fake.advance(10);
    const pending = [pipeline(request("/api/v1/pods"))];
    fake.advance(30);
    pending.push(pipeline(request("/api/v1/pods")));
    fake.advance(30);
    pending.push(pipeline(request("/api/v1/pods")));
    await settle();
    // Deadlines 1,010, 1,040 and 1,070 ms all expire on the tick at 1,100 ms.
    expect(set).toEqual([1_100 - 10]);
    fake.advance(1_100 - 70);
    expect((await Promise.all(pending)).map((r) => r.status)).toEqual([504, 504, 504]);
    expect(fake.pendingTimers()).toBe(0);
  });

  it("times a request out on the first tick at or after its deadline", async () => {
    const clock = new FakeClock(0);
    const slow = slowHandler();
    const pipeline = chain([withErrorResponses, withTimeout({ requestTimeoutMs: 1_000, clock })], slow.handler);
    clock.advance(30);
    const pending = pipeline(request("/api/v1/namespaces/default/configmaps"));
    let answered = false;
    void pending.then(() => (answered = true));
    clock.advance(1_000 + deadlineTickMs - 30 - 1);
    await settle();
    expect(answered).toBe(false);
    clock.advance(1);
    expect((await pending).status).toBe(504);
  });

  it("lowers the limit to a shorter ?timeout= and keeps the server's for a longer one", async () => {
    const clock = new FakeClock(0);
    const slow = slowHandler();
    const pipeline = chain([withErrorResponses, withTimeout({ requestTimeoutMs: 60_000, clock })], slow.handler);
    const short = pipeline(request("/api/v1/namespaces/default/pods?timeout=5s"));
    await settle();
    clock.advance(5_000);
    expect((await short).status).toBe(504);

    const long = slowHandler();
    const longPipeline = chain([withErrorResponses, withTimeout({ requestTimeoutMs: 60_000, clock })], long.handler);
    const pending = longPipeline(request("/api/v1/namespaces/default/pods?timeout=10m"));
    await settle();
    clock.advance(59_000);
    long.release();
    expect((await pending).status).toBe(200);
  });

  it("refuses a ?timeout= that is not a duration with the reference's 400", async () => {
    const pipeline = chain([withErrorResponses, withTimeout({ requestTimeoutMs: 60_000, clock: new FakeClock(0) })], async () => ok());
    const response = await pipeline(request("/api/v1/pods?timeout=soon"));
    expect(response.status).toBe(400);
    expect(JSON.parse(String(response.body)).message).toBe('invalid timeout specified in the request URL - time: invalid duration "soon"');
  });

  it("does not bound watches and streaming sub-resources", async () => {
    const clock = new FakeClock(0);
    const slow = slowHandler();
    const pipeline = chain([withTimeout({ requestTimeoutMs: 1_000, clock })], slow.handler);
    const pending = pipeline(request("/api/v1/namespaces/default/configmaps?watch=true"));
    await settle();
    clock.advance(10_000);
    slow.release();
    expect((await pending).status).toBe(200);
    expect(slow.signals[0]).toBeUndefined();
    expect(isLongRunning(requestInfoOf("GET", "/api/v1/namespaces/default/pods/p/log"))).toBe(true);
    expect(isLongRunning(requestInfoOf("POST", "/api/v1/namespaces/default/pods/p/exec"))).toBe(true);
    expect(isLongRunning(requestInfoOf("GET", "/api/v1/namespaces/default/pods/p"))).toBe(false);
    expect(isLongRunning(requestInfoOf("GET", "/version"))).toBe(false);
  });
});

describe("requestTimeoutOf and parseGoDuration", () => {
  it("reads durations as the reference does", () => {
    expect(parseGoDuration("5s")).toBe(5_000);
    expect(parseGoDuration("1m30s")).toBe(90_000);
    expect(parseGoDuration("1.5h")).toBe(5_400_000);
    expect(parseGoDuration("250ms")).toBe(250);
    expect(parseGoDuration("-1s")).toBe(-1_000);
    expect(parseGoDuration("0")).toBe(0);
    expect(() => parseGoDuration("5")).toThrow('time: missing unit in duration "5"');
    expect(() => parseGoDuration("1d")).toThrow('time: unknown unit "d" in duration "1d"');
    expect(() => parseGoDuration("")).toThrow('time: invalid duration ""');
  });

  it("keeps the server's limit for zero, negative or longer timeouts", () => {
    const q = (t: string) => new URLSearchParams({ timeout: t });
    expect(requestTimeoutOf(new URLSearchParams(), 60_000)).toBe(60_000);
    expect(requestTimeoutOf(q("30s"), 60_000)).toBe(30_000);
    expect(requestTimeoutOf(q("0s"), 60_000)).toBe(60_000);
    expect(requestTimeoutOf(q("-5s"), 60_000)).toBe(60_000);
    expect(requestTimeoutOf(q("2m"), 60_000)).toBe(60_000);
  });
});

describe("APIServer time limits", () => {
  it("answers 504 for a request whose store read does not answer in requestTimeoutMs", async () => {
    const clock = new FakeClock(0);
    const memory = new MemoryStore({ clock });
    const hanging: Store = {
      get: (key, opts) => (key.endsWith("/slow") ? new Promise(() => undefined) : memory.get(key, opts)),
      list: (prefix, opts) => memory.list(prefix, opts),
      create: (key, value) => memory.create(key, value),
      update: (key, value, rev) => memory.update(key, value, rev),
      delete: (key, rev) => memory.delete(key, rev),
      watch: (prefix, from, signal) => memory.watch(prefix, from, signal),
      revision: () => memory.revision(),
      compact: (rev) => memory.compact(rev),
    };
    const server = new APIServer({ store: hanging, watchCache: false, clock, requestTimeoutMs: 5_000 });
    await server.ready();
    const pending = server.handle({ method: "GET", url: "/api/v1/namespaces/default/configmaps/slow", headers: new Headers() });
    await settle();
    clock.advance(5_000);
    const response = await pending;
    expect(response.status).toBe(504);
    expect(JSON.parse(String(response.body)).reason).toBe("Timeout");
    const fast = await server.handle({ method: "GET", url: "/api/v1/namespaces/default/configmaps/fast", headers: new Headers() });
    expect(fast.status).toBe(404);
    await server.shutdown();
  });

  it("ends a watch without timeoutSeconds between minRequestTimeoutSeconds and twice that", async () => {
    const clock = new FakeClock(0);
    const server = new APIServer({ clock, minRequestTimeoutSeconds: 10, requestTimeoutMs: 1_000 });
    await server.ready();
    const response = await server.handle({ method: "GET", url: "/api/v1/namespaces/default/configmaps?watch=1", headers: new Headers() });
    expect(response.status).toBe(200);
    const stream = (response.stream as AsyncIterable<string>)[Symbol.asyncIterator]();
    const next = stream.next();
    let done = false;
    void next.then(() => (done = true));
    // Past the request time limit and just short of the minimum: the watch goes on.
    clock.advance(9_999);
    await settle();
    expect(done).toBe(false);
    clock.advance(10_001);
    expect((await next).done).toBe(true);
    await server.shutdown();
  });
});
