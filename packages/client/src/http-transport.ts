/**
 * The HTTP transport: requests go through a `fetch` function (the global one by default), and
 * watch bodies are read incrementally from `response.body`.
 * @module
 */
import { splitLines } from "./internal/lines.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";

/** Options of {@link httpTransport}. */
export interface HTTPTransportOptions {
  /** Where the server is: `https://127.0.0.1:6443` (a path prefix is kept: `https://host/k8s`). */
  baseURL: string | URL;
  /**
   * The `fetch` port; `globalThis.fetch` by default, looked up at each request. Pass one with a
   * custom TLS agent (for example undici's `fetch` with a `dispatcher`) for client certificates.
   */
  fetch?: typeof fetch;
  /** Headers added to every request (a request's own headers win). */
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string;
}

/**
 * A transport over HTTP(S) through `fetch`.
 *
 * @example
 * const client = new Client({ transport: httpTransport({ baseURL: "https://127.0.0.1:6443", bearerToken }) });
 */
export function httpTransport(options: HTTPTransportOptions): Transport {
  const base = String(options.baseURL).replace(/\/+$/, "");
  return {
    async request(req: TransportRequest): Promise<TransportResponse> {
      const headers = new Headers(options.headers);
      if (options.bearerToken !== undefined) headers.set("Authorization", `Bearer ${options.bearerToken}`);
      for (const [k, v] of Object.entries(req.headers ?? {})) headers.set(k, v);
      const query = req.query?.toString() ?? "";
      const init: RequestInit = { method: req.method, headers };
      if (req.body) init.body = req.body as Uint8Array<ArrayBuffer>;
      if (req.signal) init.signal = req.signal;
      const doFetch = options.fetch ?? globalThis.fetch;
      const res = await doFetch(`${base}${req.path}${query ? `?${query}` : ""}`, init);
      return {
        status: res.status,
        headers: res.headers,
        text: () => res.text(),
        lines: () => splitLines(textChunks(res)),
      };
    },
  };
}

async function* textChunks(res: Response): AsyncGenerator<string, void, undefined> {
  if (!res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      const text = decoder.decode(next.value, { stream: true });
      if (text) yield text;
    }
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    // Stop the download when the consumer stops early; errors here (already aborted) do not matter.
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
