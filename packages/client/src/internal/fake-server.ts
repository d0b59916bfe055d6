/**
 * A fake in-process server for this package's tests: it records every request and answers
 * with whatever the test's handler returns; {@link WatchFeed} drives a watch stream by hand.
 */
import type { InProcessRequest, InProcessResponse, InProcessServer } from "../in-process-transport.js";

/** A recorded request, with its query parsed and its body decoded. */
export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
  signal: AbortSignal | undefined;
}

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): InProcessResponse {
  return { status, headers: new Headers({ "Content-Type": "application/json", ...headers }), body: JSON.stringify(body) };
}

/** A Failure Status response. */
export function failure(code: number, reason: string, message: string): InProcessResponse {
  return json(code, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code });
}

/** A watch stream the test pushes lines into; it records whether the consumer closed it. */
export class WatchFeed {
  closed = false;
  #queue: (string | null)[] = [];
  #wake: (() => void) | undefined;

  /** Sends one event. */
  push(type: string, object: unknown): void {
    this.#queue.push(`${JSON.stringify({ type, object })}\n`);
    this.#wake?.();
  }

  /** Sends raw text (for framing tests). */
  raw(text: string): void {
    this.#queue.push(text);
    this.#wake?.();
  }

  /** Ends the stream. */
  end(): void {
    this.#queue.push(null);
    this.#wake?.();
  }

  /** The response carrying this feed. */
  response(signal?: AbortSignal): InProcessResponse {
    signal?.addEventListener("abort", () => this.end(), { once: true });
    return { status: 200, headers: new Headers({ "Content-Type": "application/json" }), stream: this.#stream() };
  }

  async *#stream(): AsyncGenerator<string, void, undefined> {
    try {
      for (;;) {
        while (this.#queue.length === 0) await new Promise<void>((resolve) => (this.#wake = resolve));
        const next = this.#queue.shift();
        if (next === null || next === undefined) return;
        yield next;
      }
    } finally {
      this.closed = true;
    }
  }
}

/** A server that records requests and answers through `handler`. */
export class FakeServer implements InProcessServer {
  readonly requests: Recorded[] = [];

  constructor(public handler: (req: Recorded) => InProcessResponse | Promise<InProcessResponse>) {}

  async handle(request: InProcessRequest): Promise<InProcessResponse> {
    const url = new URL(request.url, "http://fake");
    const text = request.body ? new TextDecoder().decode(request.body) : undefined;
    let body: unknown = text;
    if (text !== undefined) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const rec: Recorded = { method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers, body, signal: request.signal };
    this.requests.push(rec);
    return this.handler(rec);
  }

  /** The last request. */
  get last(): Recorded {
    const r = this.requests[this.requests.length - 1];
    if (!r) throw new Error("no request yet");
    return r;
  }
}
