import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { dealHand, QueueSet, type Admission } from "./queue-set.js";

const queued = (seats: number, queues = 8, handSize = 2, queueLengthLimit = 50) => {
  const clock = new FakeClock();
  const set = new QueueSet({ seats, queuing: { queues, handSize, queueLengthLimit }, clock, maxQueueWaitMs: 15_000 });
  return { clock, set };
};

/** Lets settled promises' callbacks run. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("dealHand", () => {
  it("deals the same distinct queues to the same flow, and other queues to other flows", () => {
    const hand = dealHand("global-default\u0000alice", 128, 6);
    expect(hand).toEqual(dealHand("global-default\u0000alice", 128, 6));
    expect(new Set(hand).size).toBe(6);
    expect(hand.every((q) => q >= 0 && q < 128)).toBe(true);
    const hands = new Set(["a", "b", "c", "d", "e"].map((f) => dealHand(f, 128, 6).join(",")));
    expect(hands.size).toBe(5);
  });

  it("deals every queue when the hand is the deck", () => {
    expect([...dealHand("x", 5, 5)].sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("QueueSet", () => {
  it("lets requests through while seats are free, then queues them until a seat is released", async () => {
    const { set } = queued(1);
    const first = await set.acquire("a");
    expect(first.ok).toBe(true);
    let second: Admission | undefined;
    void set.acquire("a").then((a) => (second = a));
    await flush();
    expect(second).toBeUndefined();
    expect(set.waiting).toBe(1);
    if (first.ok) first.release();
    await flush();
    expect(second?.ok).toBe(true);
    expect(set.executing).toBe(1);
  });

  it("admits at once without a promise while seats are free and nothing waits, and leaves the rest to acquire", async () => {
    const { set } = queued(2);
    const first = set.admitNow("a");
    expect(first?.ok).toBe(true);
    expect(set.admitNow("b", { width: 2 })).toBeUndefined(); // one seat left
    expect(set.executing).toBe(1);
    let waiting: Admission | undefined;
    void set.acquire("b", undefined, { width: 2 }).then((a) => (waiting = a));
    await flush();
    expect(set.waiting).toBe(1);
    expect(set.admitNow("c")).toBeUndefined(); // a seat is free, but a request waits: none is let past it
    first?.release();
    await flush();
    expect(waiting?.ok).toBe(true);
    expect(set.seatsInUse).toBe(2);
    const reject = new QueueSet({ seats: 1, clock: new FakeClock(), maxQueueWaitMs: 15_000 });
    expect(reject.admitNow("a")?.ok).toBe(true);
    expect(reject.admitNow("a")).toBeUndefined();
    expect(await reject.acquire("a")).toEqual({ ok: false, reason: "concurrency-limit", waitedMs: 0 });
  });

  it("dispatches a light flow before the backlog of a heavy flow drains", async () => {
    // One queue per flow (hand size 1): the heavy flow's backlog is in one queue, the light flow's in another.
    const { set } = queued(1, 64, 1);
    const order: string[] = [];
    const running: Admission[] = [];
    const track = (flow: string) =>
      void set.acquire(flow).then((a) => {
        order.push(flow);
        running.push(a);
      });
    let light = "light";
    for (let i = 0; dealHand(light, 64, 1)[0] === dealHand("heavy", 64, 1)[0]; i++) light = `light-${i}`;
    for (let i = 0; i < 20; i++) track("heavy");
    await flush();
    for (let i = 0; i < 3; i++) track(light);
    // Release one seat at a time, as the requests finish.
    for (let i = 0; i < 8; i++) {
      await flush();
      const next = running.shift();
      if (next?.ok) next.release();
    }
    await flush();
    const lightDone = order.filter((f) => f === light).length;
    expect(lightDone).toBe(3);
    expect(order.length).toBeLessThan(20);
  });

  it("shares the seats' time, not the dispatches: a flow of slow requests gets fewer turns than a flow of quick ones", async () => {
    const { set, clock } = queued(1, 64, 1);
    let quick = "quick";
    for (let i = 0; dealHand(quick, 64, 1)[0] === dealHand("slow", 64, 1)[0]; i++) quick = `quick-${i}`;
    const order: string[] = [];
    const running: { flow: string; admission: Admission }[] = [];
    const track = (flow: string) =>
      void set.acquire(flow).then((admission) => {
        order.push(flow);
        running.push({ flow, admission });
      });
    // Both flows keep a backlog; each slow request holds the seat 100 ms, each quick one 1 ms.
    for (let i = 0; i < 30; i++) track("slow");
    for (let i = 0; i < 30; i++) track(quick);
    for (let done = 0; done < 30; done++) {
      await flush();
      const next = running.shift();
      if (!next?.admission.ok) break;
      clock.advance(next.flow === "slow" ? 100 : 1);
      next.admission.release();
    }
    await flush();
    const first30 = order.slice(0, 30);
    const slowTurns = first30.filter((f) => f === "slow").length;
    // Round robin would give each flow 15 of the first 30 turns; by time, the quick flow gets nearly all.
    expect(slowTurns).toBeLessThanOrEqual(3);
    expect(first30.filter((f) => f === quick).length).toBeGreaterThanOrEqual(27);
  });

  it("refuses queue-full when the flow's queue holds queueLengthLimit requests", async () => {
    const { set } = queued(1, 1, 1, 2);
    expect((await set.acquire("a")).ok).toBe(true);
    void set.acquire("a");
    void set.acquire("a");
    expect(await set.acquire("a")).toMatchObject({ ok: false, reason: "queue-full" });
  });

  it("refuses concurrency-limit at once on a Reject level with no free seat", async () => {
    const set = new QueueSet({ seats: 2, clock: new FakeClock(), maxQueueWaitMs: 1000 });
    const a = await set.acquire("x");
    expect((await set.acquire("y")).ok).toBe(true);
    expect(await set.acquire("z")).toMatchObject({ ok: false, reason: "concurrency-limit" });
    if (a.ok) a.release();
    expect((await set.acquire("z")).ok).toBe(true);
  });

  it("takes a request out of its queue when its client goes away (cancelled)", async () => {
    const { set } = queued(1);
    const first = await set.acquire("a");
    const gone = new AbortController();
    const pending = set.acquire("a", () => gone.signal);
    expect(set.waiting).toBe(1);
    gone.abort();
    expect(await pending).toMatchObject({ ok: false, reason: "cancelled" });
    expect(set.waiting).toBe(0);
    if (first.ok) first.release();
    expect(set.executing).toBe(0);
  });

  it("refuses time-out after the wait bound on the clock", async () => {
    const { clock, set } = queued(1);
    await set.acquire("a");
    const pending = set.acquire("a");
    clock.advance(14_999);
    expect(set.waiting).toBe(1);
    clock.advance(1);
    expect(await pending).toMatchObject({ ok: false, reason: "time-out", waitedMs: 15_000 });
    expect(set.waiting).toBe(0);
  });

  it("dispatches a narrow request of another flow into the free seats while a wide one waits for enough", async () => {
    const { set } = queued(10, 64, 1);
    let other = "y";
    for (let i = 0; dealHand(other, 64, 1)[0] === dealHand("x", 64, 1)[0]; i++) other = `y-${i}`;
    const a = await set.acquire("x", undefined, { width: 6 });
    expect(set.seatsInUse).toBe(6);
    let b: Admission | undefined;
    void set.acquire("x", undefined, { width: 6 }).then((admission) => (b = admission));
    await flush();
    expect(b).toBeUndefined();
    const c = await set.acquire(other, undefined, { width: 1 });
    expect(c.ok).toBe(true);
    expect(set.seatsInUse).toBe(7);
    if (a.ok) a.release();
    await flush();
    expect(b?.ok).toBe(true);
    expect(set.seatsInUse).toBe(7);
  });

  it("lets no request past the one that is next in fair order, even one that would fit", async () => {
    const { set, clock } = queued(10, 64, 1);
    let other = "y";
    for (let i = 0; dealHand(other, 64, 1)[0] === dealHand("x", 64, 1)[0]; i++) other = `y-${i}`;
    const a = await set.acquire("x", undefined, { width: 6 });
    const y1 = await set.acquire(other);
    const settled: string[] = [];
    void set.acquire(other, undefined, { width: 4 }).then(() => settled.push("y2"));
    void set.acquire("x", undefined, { width: 6 }).then(() => settled.push("b"));
    // y's first request runs a whole second: its flow is charged for it, so x's waiting request comes first.
    clock.advance(1000);
    if (y1.ok) y1.release();
    await flush();
    // y2 would fit (6 + 4 seats of 10), but b is next and does not fit yet.
    expect(settled).toEqual([]);
    expect(set.seatsInUse).toBe(6);
    if (a.ok) a.release();
    await flush();
    // a's second is charged to x now (6 seat-seconds): y2 comes first, and both fit.
    expect(settled).toEqual(["y2", "b"]);
    expect(set.seatsInUse).toBe(10);
  });

  it("runs a request wider than the level once nothing else executes, and alone", async () => {
    const { set } = queued(4);
    const a = await set.acquire("a");
    let wide: Admission | undefined;
    void set.acquire("b", undefined, { width: 6 }).then((admission) => (wide = admission));
    await flush();
    expect(wide).toBeUndefined();
    if (a.ok) a.release();
    await flush();
    expect(wide?.ok).toBe(true);
    expect(set.seatsInUse).toBe(6);
    let next: Admission | undefined;
    void set.acquire("a").then((admission) => (next = admission));
    await flush();
    expect(next).toBeUndefined();
  });

  it("lets a Reject level run a request wider than its seats when nothing executes, and refuses the next", async () => {
    const set = new QueueSet({ seats: 2, clock: new FakeClock(), maxQueueWaitMs: 1000 });
    expect((await set.acquire("x", undefined, { width: 3 })).ok).toBe(true);
    expect(await set.acquire("y")).toMatchObject({ ok: false, reason: "concurrency-limit" });
  });

  it("charges a request that starts later only for the time it runs, not the time it held its seats before", async () => {
    const { set, clock } = queued(1, 64, 1);
    let late = "late";
    for (let i = 0; dealHand(late, 64, 1)[0] === dealHand("slow", 64, 1)[0]; i++) late = `late-${i}`;
    const order: string[] = [];
    const running: { flow: string; admission: Admission }[] = [];
    const track = (flow: string) =>
      void set.acquire(flow, undefined, { startsLater: flow === late }).then((admission) => {
        order.push(flow);
        running.push({ flow, admission });
      });
    // Each request holds the seat 100 ms; a late one waits 99 ms of them before it begins.
    for (let i = 0; i < 30; i++) track("slow");
    for (let i = 0; i < 30; i++) track(late);
    for (let done = 0; done < 30; done++) {
      await flush();
      const next = running.shift();
      if (!next?.admission.ok) break;
      if (next.flow === late) {
        clock.advance(99);
        next.admission.begin();
        clock.advance(1);
      } else clock.advance(100);
      next.admission.release();
    }
    await flush();
    const first30 = order.slice(0, 30);
    expect(first30.filter((f) => f === late).length).toBeGreaterThanOrEqual(27);
  });

  it("dispatches waiting requests into new seats when the seats grow", async () => {
    const { set } = queued(1);
    await set.acquire("a");
    const pending = set.acquire("b");
    set.setSeats(2);
    expect((await pending).ok).toBe(true);
    expect(set.executing).toBe(2);
  });
});
