/**
 * Audit sinks that combine and deliver: {@link batchingSink}, the logic of the webhook backend
 * (batches, a bounded buffer, retries with back-off; the transport is injected), and
 * {@link fanOutSink}, which hands every event to several backends.
 * @module
 */
import type { Clock } from "@orch/store";
import { systemClock } from "@orch/store";
import type { MetricsRecorder } from "../metrics.js";
import type { AuditEvent, AuditSink } from "./event.js";

/**
 * How a backend delivers: `batch` buffers events and sends them in the background (a request
 * never waits); `blocking` sends each request's events before the request goes on, and
 * `blocking-strict` also fails the request when its `RequestReceived` event cannot be delivered.
 */
export type AuditDeliveryMode = "batch" | "blocking" | "blocking-strict";

/** The audit delivery modes, as the `--audit-webhook-mode` flag accepts them. */
export const auditDeliveryModes: readonly AuditDeliveryMode[] = ["batch", "blocking", "blocking-strict"];

/** Options of {@link batchingSink}. */
export interface BatchingSinkOptions {
  /**
   * Delivers one batch (the transport: an HTTPS POST of an EventList, say); rejects when the
   * batch was not accepted, and is then retried.
   */
  send(events: readonly AuditEvent[]): Promise<void>;
  /** `batch` by default. */
  mode?: AuditDeliveryMode;
  /** The most events in one batch (400 by default). */
  maxBatchSize?: number;
  /** How long, in milliseconds, the first event of a batch waits for more before the batch is sent (30 000 by default). */
  maxWaitMs?: number;
  /** How many events may wait to be sent in `batch` mode (10 000 by default); more are dropped. */
  bufferSize?: number;
  /** The wait before the first retry, in milliseconds (10 000 by default); each further wait is 1.5 times longer. */
  initialBackoffMs?: number;
  /** How many times a batch is sent before it is given up and dropped (5 by default). */
  attempts?: number;
  /** Counts dropped events in `apiserver_audit_error_total{plugin}`. */
  metrics?: MetricsRecorder;
  /** The `plugin` label of dropped events (`webhook` by default). */
  plugin?: string;
  /** Timers of the batch wait and the back-off; `systemClock` by default. */
  clock?: Clock;
  /** Receives one line per batch given up. */
  log?: (message: string) => void;
}

/** An {@link AuditSink} that buffers: {@link BatchingSink.flush} delivers what waits (at shutdown). */
export interface BatchingSink extends AuditSink {
  /** Sends every buffered event now and resolves when nothing is left in flight (retries included). */
  flush(): Promise<void>;
  /** Events waiting in the buffer, not yet handed to `send`. */
  readonly buffered: number;
  /** Events dropped so far: buffer full, or given up after the last retry. */
  readonly dropped: number;
}

/**
 * A sink that delivers events in batches through `options.send`. In `batch` mode `write` never
 * waits: events go to a bounded buffer (dropped, and counted with `auditError`, when it is full),
 * and a batch leaves when it holds `maxBatchSize` events or its first event waited `maxWaitMs`;
 * one batch is in flight at a time, retried with back-off and dropped after `attempts` failures.
 * In the blocking modes `write` returns a promise of the delivery of that request's events (with
 * the same retries); `blocking-strict` rejects it when delivery failed.
 *
 * @example
 * const sink = batchingSink({ send: (events) => postEventList(events), metrics });
 */
export function batchingSink(options: BatchingSinkOptions): BatchingSink {
  const mode = options.mode ?? "batch";
  const maxBatchSize = Math.max(1, options.maxBatchSize ?? 400);
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const bufferSize = Math.max(1, options.bufferSize ?? 10_000);
  const initialBackoffMs = options.initialBackoffMs ?? 10_000;
  const attempts = Math.max(1, options.attempts ?? 5);
  const clock = options.clock ?? systemClock;
  const plugin = options.plugin ?? "webhook";
  let queue: AuditEvent[] = [];
  let dropped = 0;
  let cancelWait: (() => void) | undefined;
  let inFlight: Promise<void> | undefined;

  const drop = (count: number) => {
    if (count <= 0) return;
    dropped += count;
    options.metrics?.auditError(plugin, count);
  };
  const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimer(ms, resolve));

  /** Sends `batch`, retrying with back-off; resolves true when it was delivered. */
  const deliver = async (batch: readonly AuditEvent[]): Promise<boolean> => {
    let wait = initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await options.send(batch);
        return true;
      } catch (error) {
        if (attempt >= attempts) {
          options.log?.(`audit ${plugin}: dropped ${batch.length} events after ${attempt} attempts: ${error instanceof Error ? error.message : String(error)}`);
          drop(batch.length);
          return false;
        }
      }
      await sleep(wait);
      wait *= 1.5;
    }
  };

  /** Sends batches while the buffer holds a full one (or everything, when `all`). */
  const pump = (all: boolean): Promise<void> => {
    if (inFlight) return inFlight;
    if (queue.length === 0 || (!all && queue.length < maxBatchSize)) return Promise.resolve();
    cancelWait?.();
    cancelWait = undefined;
    inFlight = (async () => {
      while (queue.length > 0 && (all || queue.length >= maxBatchSize)) {
        const batch = queue.slice(0, maxBatchSize);
        queue = queue.slice(batch.length);
        await deliver(batch);
      }
    })().finally(() => {
      inFlight = undefined;
      arm();
    });
    return inFlight;
  };

  /** Starts the wait of the oldest buffered event, or sends a full batch that formed meanwhile. */
  const arm = () => {
    if (inFlight || queue.length === 0) return;
    if (queue.length >= maxBatchSize) {
      void pump(false);
      return;
    }
    cancelWait ??= clock.setTimer(maxWaitMs, () => {
      cancelWait = undefined;
      void pump(true);
    });
  };

  const write = (events: readonly AuditEvent[]): void | Promise<void> => {
    if (events.length === 0) return;
    if (mode !== "batch") {
      return deliver(events).then((ok) => {
        if (!ok && mode === "blocking-strict") throw new Error(`audit ${plugin}: the events could not be delivered`);
      });
    }
    const room = bufferSize - queue.length;
    queue.push(...events.slice(0, Math.max(0, room)));
    drop(events.length - Math.max(0, room));
    arm();
  };

  return {
    write,
    async flush() {
      while (queue.length > 0 || inFlight) await pump(true);
    },
    get buffered() {
      return queue.length;
    },
    get dropped() {
      return dropped;
    },
  };
}

/**
 * A sink that hands every event to each of `sinks` (the log and the webhook backends at once).
 * When some of them return a promise (blocking delivery), the result waits for all of them and
 * rejects when one rejects.
 */
export function fanOutSink(sinks: readonly AuditSink[]): AuditSink {
  if (sinks.length === 1) return sinks[0] as AuditSink;
  return {
    write(events) {
      const pending: Promise<void>[] = [];
      for (const sink of sinks) {
        try {
          const result = sink.write(events);
          if (result) pending.push(result);
        } catch {
          // A sink must not throw; the others still get the events.
        }
      }
      return pending.length > 0 ? Promise.all(pending).then(() => undefined) : undefined;
    },
  };
}
