/**
 * The deadlines of the requests in flight, watched by one timer per server instead of one per
 * request: setting and clearing a timer on every request cost more than the rest of the time
 * limit did. The timer is armed for the earliest deadline, rounded up to a coarse tick so that
 * many deadlines close together expire in one wake-up, and it is not cancelled when a request
 * finishes in time: it fires once, finds nothing due, and re-arms for the earliest deadline
 * still pending, if any. Under steady load that is one wake-up per time limit, not two timer
 * calls per request.
 * @module
 */
import type { Clock } from "@orch/store";

/** How coarse the expiry is: a request times out at most this late (ms). */
export const deadlineTickMs = 100;

/** The tick a timer for a deadline at `at` wakes at: the first at or after it. */
function wakeOf(at: number): number {
  return Math.ceil(at / deadlineTickMs) * deadlineTickMs;
}

/**
 * One request in flight: when it times out, and what to do then. A subclass says what
 * {@link Deadline.expire} does; the links are the list's (a linked list adds and removes without
 * hashing, which a `Set` of objects pays for on every request).
 */
export abstract class Deadline {
  /** @internal */ prev: Deadline | undefined = undefined;
  /** @internal */ next: Deadline | undefined = undefined;
  /** @internal */ listed = false;

  /** @param at The clock time (ms) at which the request times out. */
  constructor(readonly at: number) {}

  /** Called once, when `at` has passed and the request has not finished. */
  abstract expire(): void;
}

/**
 * The pending {@link Deadline}s and the one timer that expires them. The timer does not keep the
 * process alive on its own (a request in flight has a connection that does).
 */
export class RequestDeadlines {
  readonly #clock: Clock;
  #head: Deadline | undefined = undefined;
  /** When the armed timer fires; `Infinity` when none is armed. */
  #armedAt = Infinity;
  #cancel: (() => void) | undefined = undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Starts watching `deadline`; {@link remove} it when its request finishes. */
  add(deadline: Deadline): void {
    deadline.listed = true;
    deadline.prev = undefined;
    deadline.next = this.#head;
    if (this.#head) this.#head.prev = deadline;
    this.#head = deadline;
    // The common case: a deadline on or after the armed tick costs nothing more.
    const wake = wakeOf(deadline.at);
    if (wake < this.#armedAt) this.#arm(wake);
  }

  /** Stops watching `deadline` (its request finished, or it expired); the timer stays as it is. */
  remove(deadline: Deadline): void {
    if (!deadline.listed) return;
    deadline.listed = false;
    if (deadline.prev) deadline.prev.next = deadline.next;
    else this.#head = deadline.next;
    if (deadline.next) deadline.next.prev = deadline.prev;
    deadline.prev = undefined;
    deadline.next = undefined;
  }

  #arm(wake: number): void {
    this.#cancel?.();
    this.#armedAt = wake;
    this.#cancel = this.#clock.setTimer(wake - this.#clock.now(), () => this.#fire(), { background: true });
  }

  #fire(): void {
    this.#cancel = undefined;
    this.#armedAt = Infinity;
    const now = this.#clock.now();
    let next = Infinity;
    const due: Deadline[] = [];
    for (let deadline = this.#head; deadline !== undefined; deadline = deadline.next) {
      if (deadline.at <= now) due.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of due) this.remove(deadline);
    if (next !== Infinity) this.#arm(wakeOf(next));
    for (const deadline of due) deadline.expire();
  }
}
