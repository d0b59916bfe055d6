/**
 * The queue set of one limited priority level: the requests executing at once occupy at most
 * `seats` seats, each as many as its width (one for most requests, more for a LIST of many
 * objects); the rest wait in queues chosen by shuffle sharding, or are refused at once for a
 * `Reject` level.
 *
 * Dispatch is fair queuing by virtual time, as the reference's queue sets do: a virtual clock
 * R advances, in seat-seconds per active queue, at the rate the seats of running requests are
 * used (at most the level's seats) divided by the number of queues with requests waiting or
 * executing; each queue keeps the R at which its next request may start (`nextDispatchR`), which
 * each dispatch moves on by the request's estimated work (its width times an assumed duration)
 * and each completion corrects to the seat-seconds it really took (its width times how long it
 * ran). A request runs from its dispatch, or, when it was let through to start later (a wide
 * request waiting for a turn of the event loop), from when it says it begins: it holds its seats
 * from its dispatch, but the seat-seconds it is charged, and those R counts, are those it ran.
 * Each time seats free, the waiting queue whose oldest request would finish first in R
 * (`nextDispatchR` plus that request's work; ties go round robin) gives it up, when its width
 * fits in the free seats; when it does not, nothing is dispatched until enough seats free (a
 * request wider than the level waits until nothing executes). So a flow gets its share of the seats' time, not of the dispatches: a flow of
 * wide, slow LISTs gets fewer dispatches than a flow of quick GETs, and a flow that floods its
 * queues does not starve one that sends a few. A queue that falls idle forgets its credit and
 * its debt: it starts again at the current R.
 * @module
 */
import type { Clock } from "@orch/store";

/** Why a request was not let through: as the reference's `rejected_requests_total{reason}`. */
export type Rejection = "queue-full" | "concurrency-limit" | "time-out" | "cancelled";

/** The outcome of {@link QueueSet.acquire}. */
export type Admission =
  | {
      ok: true;
      /** Gives the seats back (idempotent). */
      release: () => void;
      /** Says that a request let through with `startsLater` begins to run now (idempotent; nothing otherwise). */
      begin: () => void;
      /** How long the request waited in its queue (ms; 0 when it was not queued). */
      waitedMs: number;
    }
  | { ok: false; reason: Rejection; waitedMs: number };

/** The work of a request, as {@link QueueSet.acquire} takes it. */
export interface RequestWork {
  /** The seats it occupies while it executes (1 by default; at least 1 is used). */
  width?: number;
  /**
   * True when it does not run as soon as it is let through but holds its seats until it calls
   * the admission's `begin`: its work is counted from then.
   */
  startsLater?: boolean;
}

/** The queuing of a `Queue` level (`limitResponse.queuing`). */
export interface QueuingConfig {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** What a {@link QueueSet} is built from. */
export interface QueueSetOptions {
  /** How many requests may execute at once (at least 1 is used). */
  seats: number;
  /** The queues of a `Queue` level; absent for a `Reject` level. */
  queuing?: QueuingConfig;
  /** Timers of the wait bound. */
  clock: Clock;
  /** The longest a request waits in its queue before it is refused `time-out` (ms). */
  maxQueueWaitMs: number;
  /** Told when the number of waiting (`inQueue`) or executing requests changes. */
  onChange?: (gauge: "inQueue" | "executing", delta: number) => void;
}

interface Waiter {
  queue: Queue;
  /** The seats the request occupies once it executes. */
  width: number;
  /** True when it begins to run later than its dispatch (see {@link RequestWork}). */
  startsLater: boolean;
  enqueuedAt: number;
  settle: (admission: Admission) => void;
  cleanup: () => void;
}

interface Queue {
  index: number;
  waiting: Waiter[];
  executing: number;
  /** The seats the queue's executing requests occupy. */
  seatsInUse: number;
  /** The seats the queue's waiting requests will occupy. */
  seatsWaiting: number;
  /** The virtual time (seat-seconds) at which the queue's next request may start. */
  nextDispatchR: number;
}

/** How long a request is assumed to execute when it is dispatched (seconds); its work is this times its width, corrected when it ends. */
const estimatedDuration = 0.003;

/** FNV-1a, 64 bits, of `text`'s UTF-16 code units. */
function fnv1a64(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}

/**
 * The hand shuffle sharding deals `flowKey`: `handSize` distinct queue indexes out of `queues`,
 * drawn from a 64-bit hash of the key as mixed-radix digits (as the reference's dealer). The
 * same key always gets the same hand.
 */
export function dealHand(flowKey: string, queues: number, handSize: number): number[] {
  let hash = fnv1a64(flowKey);
  const size = Math.max(1, Math.min(handSize, queues));
  const hand: number[] = [];
  const picked: number[] = [];
  for (let i = 0; i < size; i++) {
    const remaining = BigInt(queues - i);
    let card = Number(hash % remaining);
    hash /= remaining;
    // The card-th queue not dealt yet: step over the dealt ones at or below it, in order.
    for (const p of picked) if (card >= p) card++;
    hand.push(card);
    picked.push(card);
    picked.sort((a, b) => a - b);
  }
  return hand;
}

/** The seats and queues of one limited priority level. */
export class QueueSet {
  #seats: number;
  readonly #queuing: QueuingConfig | undefined;
  readonly #clock: Clock;
  readonly #maxWaitMs: number;
  readonly #onChange: (gauge: "inQueue" | "executing", delta: number) => void;
  readonly #queues: Queue[];
  #executing = 0;
  #waiting = 0;
  /** The seats the executing requests occupy. */
  #seatsInUse = 0;
  /** The seats of the executing requests that run (began). */
  #seatsRunning = 0;
  /** The queue dispatched from last: ties between queues go round robin from the one after it. */
  #last = -1;
  /** The virtual clock R, in seat-seconds per active queue. */
  #currentR = 0;
  /** When R was last advanced (clock ms). */
  #lastAdvance: number;
  /** How many queues have requests waiting or executing. */
  #activeQueues = 0;

  /** A queue set of `options.seats` seats. */
  constructor(options: QueueSetOptions) {
    this.#seats = Math.max(1, options.seats);
    this.#queuing = options.queuing;
    this.#clock = options.clock;
    this.#maxWaitMs = options.maxQueueWaitMs;
    this.#onChange = options.onChange ?? (() => undefined);
    const count = options.queuing ? Math.max(1, options.queuing.queues) : 1;
    this.#queues = Array.from({ length: count }, (_, index) => ({ index, waiting: [], executing: 0, seatsInUse: 0, seatsWaiting: 0, nextDispatchR: 0 }));
    this.#lastAdvance = this.#clock.now();
  }

  /** Moves R on to now, at the rate the running requests used seats (at most the level's), shared by the active queues; gives now (clock ms). */
  #advance(): number {
    const now = this.#clock.now();
    if (this.#activeQueues > 0 && now > this.#lastAdvance) {
      this.#currentR += ((now - this.#lastAdvance) / 1000) * (Math.min(this.#seatsRunning, this.#seats) / this.#activeQueues);
    }
    this.#lastAdvance = now;
    return now;
  }

  /** Notes that `queue` gets a request: an idle queue becomes active, starting at the current R. */
  #activate(queue: Queue): void {
    if (queue.waiting.length === 0 && queue.executing === 0) {
      this.#activeQueues++;
      queue.nextDispatchR = this.#currentR;
    }
  }

  /** Notes that `queue` may have fallen idle. */
  #settle(queue: Queue): void {
    if (queue.waiting.length === 0 && queue.executing === 0) this.#activeQueues--;
  }

  /** The seats of the level. */
  get seats(): number {
    return this.#seats;
  }

  /** How many requests execute now. */
  get executing(): number {
    return this.#executing;
  }

  /** How many seats the executing requests occupy now. */
  get seatsInUse(): number {
    return this.#seatsInUse;
  }

  /** How many requests wait in the queues now. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Changes the number of seats (a new configuration); waiting requests are dispatched into new ones. */
  setSeats(seats: number): void {
    this.#seats = Math.max(1, seats);
    this.#dispatch();
  }

  /** True when a request `width` seats wide may start now: it fits in the free seats, or is wider than the level and nothing executes. */
  #fits(width: number): boolean {
    return this.#seatsInUse + width <= this.#seats || this.#executing === 0;
  }

  /**
   * The seats of {@link acquire} when they are given at once (nothing waits and they are free),
   * without a promise: most requests are admitted so, and a promise and its reaction per request
   * are CPU time on the server's one thread. `undefined` when the request would wait or be
   * refused: {@link acquire} then queues or refuses it.
   */
  admitNow(flowKey: string, work: RequestWork = {}): (Admission & { ok: true }) | undefined {
    const seats = Math.max(1, Math.floor(work.width ?? 1));
    const queuing = this.#queuing;
    let queue: Queue;
    if (!queuing) {
      if (!this.#fits(seats)) return undefined;
      queue = this.#queues[0] as Queue;
    } else {
      if (this.#waiting !== 0 || !this.#fits(seats)) return undefined;
      queue = this.#shortest(this.#handOf(flowKey, queuing.handSize));
    }
    this.#advance();
    this.#activate(queue);
    return this.#start(queue, seats, work.startsLater === true, 0);
  }

  /**
   * Asks for `width` seats (at least 1) for a request of flow `flowKey` (the flow schema's name
   * and the distinguisher). Resolves at once when nothing waits and they are free; a `Reject`
   * level refuses `concurrency-limit` otherwise; a `Queue` level puts the request in the queue
   * of its hand with the fewest seats asked for (`queue-full` when that queue holds
   * `queueLengthLimit` requests) until it is dispatched, the request's signal aborts
   * (`cancelled`) or the wait bound passes (`time-out`). Never rejects. `signalOf` is asked only
   * for a request that waits (an adapter may make the signal on demand: most requests never
   * need one).
   */
  acquire(flowKey: string, signalOf?: () => AbortSignal | undefined, work: RequestWork = {}): Promise<Admission> {
    const admitted = this.admitNow(flowKey, work);
    if (admitted) return Promise.resolve(admitted);
    const seats = Math.max(1, Math.floor(work.width ?? 1));
    const startsLater = work.startsLater === true;
    const queuing = this.#queuing;
    if (!queuing) return Promise.resolve({ ok: false, reason: "concurrency-limit", waitedMs: 0 });
    const queue = this.#shortest(this.#handOf(flowKey, queuing.handSize));
    if (queue.waiting.length >= queuing.queueLengthLimit) return Promise.resolve({ ok: false, reason: "queue-full", waitedMs: 0 });
    const signal = signalOf?.();
    if (signal?.aborted) return Promise.resolve({ ok: false, reason: "cancelled", waitedMs: 0 });
    return new Promise<Admission>((resolve) => {
      const enqueuedAt = this.#clock.now();
      let cancelTimer = () => undefined as void;
      const onAbort = () => this.#remove(waiter, "cancelled");
      const waiter: Waiter = {
        queue,
        width: seats,
        startsLater,
        enqueuedAt,
        settle: resolve,
        cleanup: () => {
          cancelTimer();
          signal?.removeEventListener("abort", onAbort);
        },
      };
      this.#advance();
      this.#activate(queue);
      queue.waiting.push(waiter);
      queue.seatsWaiting += seats;
      this.#waiting++;
      this.#onChange("inQueue", 1);
      cancelTimer = this.#clock.setTimer(this.#maxWaitMs, () => this.#remove(waiter, "time-out"));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#dispatch();
    });
  }

  /** The hands dealt so far, by flow key: a flow's hand never changes, and dealing hashes the key. */
  readonly #hands = new Map<string, number[]>();

  /** The hand of `flowKey`, dealt once (the memory is dropped past 4,096 flows, then dealt again as they come). */
  #handOf(flowKey: string, handSize: number): number[] {
    let hand = this.#hands.get(flowKey);
    if (!hand) {
      if (this.#hands.size >= 4096) this.#hands.clear();
      hand = dealHand(flowKey, this.#queues.length, handSize);
      this.#hands.set(flowKey, hand);
    }
    return hand;
  }

  /** The queue of `hand` with the fewest seats asked for (waiting and in use), the first on a tie. */
  #shortest(hand: number[]): Queue {
    let best = this.#queues[hand[0] ?? 0] as Queue;
    for (const i of hand) {
      const q = this.#queues[i] as Queue;
      if (q.seatsWaiting + q.seatsInUse < best.seatsWaiting + best.seatsInUse) best = q;
    }
    return best;
  }

  /**
   * Dispatches a request `width` seats wide of `queue` (already active, R advanced): its
   * estimated work is charged to the queue; it runs now, or when it begins (`startsLater`).
   */
  #start(queue: Queue, width: number, startsLater: boolean, waitedMs: number): Admission & { ok: true } {
    this.#executing++;
    this.#seatsInUse += width;
    queue.executing++;
    queue.seatsInUse += width;
    queue.nextDispatchR += width * estimatedDuration;
    this.#onChange("executing", 1);
    let runningSince: number | undefined;
    let released = false;
    const begin = () => {
      if (runningSince !== undefined || released) return;
      runningSince = this.#advance();
      this.#seatsRunning += width;
    };
    if (!startsLater) begin();
    return {
      ok: true,
      waitedMs,
      begin,
      release: () => {
        if (released) return;
        released = true;
        const now = this.#advance();
        // The estimate becomes the seat-seconds the request really ran.
        const ranMs = runningSince === undefined ? 0 : now - runningSince;
        if (runningSince !== undefined) this.#seatsRunning -= width;
        queue.nextDispatchR += width * (ranMs / 1000 - estimatedDuration);
        this.#executing--;
        this.#seatsInUse -= width;
        queue.executing--;
        queue.seatsInUse -= width;
        this.#settle(queue);
        this.#onChange("executing", -1);
        this.#dispatch();
      },
    };
  }

  /** Takes `waiter` out of its queue, refused for `reason` (nothing when it already left). */
  #remove(waiter: Waiter, reason: Rejection): void {
    const at = waiter.queue.waiting.indexOf(waiter);
    if (at === -1) return;
    this.#advance();
    waiter.queue.waiting.splice(at, 1);
    waiter.queue.seatsWaiting -= waiter.width;
    this.#settle(waiter.queue);
    this.#waiting--;
    this.#onChange("inQueue", -1);
    waiter.cleanup();
    waiter.settle({ ok: false, reason, waitedMs: this.#clock.now() - waiter.enqueuedAt });
  }

  /**
   * Fills free seats from the queues: the waiting queue whose oldest request would finish first
   * in R, ties round robin, while that request fits in the free seats.
   */
  #dispatch(): void {
    const n = this.#queues.length;
    if (this.#seatsInUse < this.#seats && this.#waiting > 0) this.#advance();
    while (this.#seatsInUse < this.#seats && this.#waiting > 0) {
      let queue: Queue | undefined;
      let finish = Infinity;
      for (let step = 1; step <= n; step++) {
        const candidate = this.#queues[(this.#last + step) % n] as Queue;
        const oldest = candidate.waiting[0];
        if (!oldest) continue;
        const candidateFinish = candidate.nextDispatchR + oldest.width * estimatedDuration;
        if (candidateFinish < finish) {
          queue = candidate;
          finish = candidateFinish;
        }
      }
      if (!queue) return;
      const waiter = queue.waiting[0] as Waiter;
      // The next request in fair order waits for enough seats: none is let past it.
      if (!this.#fits(waiter.width)) return;
      this.#last = queue.index;
      queue.waiting.shift();
      queue.seatsWaiting -= waiter.width;
      this.#waiting--;
      this.#onChange("inQueue", -1);
      waiter.cleanup();
      waiter.settle(this.#start(queue, waiter.width, waiter.startsLater, this.#clock.now() - waiter.enqueuedAt));
    }
  }
}
