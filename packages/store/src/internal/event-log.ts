/**
 * The retained events of the memory store. Every write makes exactly one revision and one
 * event, so the log is a contiguous run of revisions `(compacted, newest]` and the event of
 * revision `r` sits at a computed index: no search, no per-event key.
 * @module
 */
import type { StoreEvent } from "../store.js";

/** See the module comment. */
export class EventLog {
  #events: StoreEvent[] = [];
  /** Clock time of each event's write, never decreasing. */
  #times: number[] = [];
  /** Index in the arrays of the oldest retained event. */
  #head = 0;
  /** Revision of the oldest retained event (or of the next write, when empty). */
  #first = 1;

  /** Revision of the oldest retained event (the next write's revision when empty). */
  get first(): number {
    return this.#first;
  }

  /** Number of retained events. */
  get length(): number {
    return this.#events.length - this.#head;
  }

  /** Appends the event of the next revision, written at `time`. */
  append(event: StoreEvent, time: number): void {
    const times = this.#times;
    const last = times.length > this.#head ? (times[times.length - 1] as number) : time;
    this.#events.push(event);
    times.push(time > last ? time : last);
  }

  /** The event of `revision`, which must be retained. */
  at(revision: number): StoreEvent {
    return this.#events[this.#head + revision - this.#first] as StoreEvent;
  }

  /** The newest revision written at or before `time`, or `first - 1` when there is none. */
  revisionAtOrBefore(time: number): number {
    const times = this.#times;
    let lo = this.#head;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((times[mid] as number) <= time) lo = mid + 1;
      else hi = mid;
    }
    return this.#first + (lo - this.#head) - 1;
  }

  /** Drops the events of revisions up to and including `revision`. */
  dropThrough(revision: number): void {
    const n = Math.min(revision - this.#first + 1, this.length);
    if (n <= 0) return;
    const events = this.#events;
    const times = this.#times;
    for (let i = this.#head; i < this.#head + n; i++) (events as unknown[])[i] = undefined;
    this.#head += n;
    this.#first += n;
    if (this.#head === events.length) {
      this.#events = [];
      this.#times = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= events.length) {
      this.#events = events.slice(this.#head);
      this.#times = times.slice(this.#head);
      this.#head = 0;
    }
  }
}
