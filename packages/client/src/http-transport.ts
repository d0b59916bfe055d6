/**
 * The HTTP transport: requests go through a `fetch` function (the global one by default), and
 * watch bodies are read incrementally from `response.body`. Credentials come from a
 * {@link CredentialSource} asked before each request, with one retry after a 401 it refreshes.
 * @module
 */
import type { ClientCertificate, CredentialSource, Credentials } from "./credentials.js";
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
  /** Sent as `Authorization: Bearer <token>` (credentials from {@link HTTPTransportOptions.credentials} win). */
  bearerToken?: string;
  /**
   * Asked before every request: a token is sent as `Authorization: Bearer`, else basic
   * credentials as `Authorization: Basic`. A rejection is the request's error (it is not
   * sent). On a 401 the transport calls `unauthorized(used)` and, when that resolves true,
   * asks again and sends the request once more.
   */
  credentials?: CredentialSource;
  /**
   * The `fetch` for a client certificate (or none): called before every request with the
   * certificate of the credentials, so a changed certificate gets a `fetch` with new
   * connections. Wins over {@link HTTPTransportOptions.fetch}; cache what it returns.
   */
  fetchFor?: (certificate: ClientCertificate | undefined) => typeof fetch;
}

/**
 * A transport over HTTP(S) through `fetch`.
 *
 * @example
 * const client = new Client({ transport: httpTransport({ baseURL: "https://127.0.0.1:6443", bearerToken }) });
 */
export function httpTransport(options: HTTPTransportOptions): Transport {
  const base = String(options.baseURL).replace(/\/+$/, "");
  const source = options.credentials;
  const send = async (req: TransportRequest, credentials: Credentials): Promise<Response> => {
    const headers = new Headers(options.headers);
    const authorization = authorizationOf(credentials);
    if (authorization !== undefined) headers.set("Authorization", authorization);
    else if (options.bearerToken !== undefined) headers.set("Authorization", `Bearer ${options.bearerToken}`);
    for (const [k, v] of Object.entries(req.headers ?? {})) headers.set(k, v);
    const query = req.query?.toString() ?? "";
    const init: RequestInit = { method: req.method, headers };
    if (req.body) init.body = req.body as Uint8Array<ArrayBuffer>;
    if (req.signal) init.signal = req.signal;
    const doFetch = options.fetchFor?.(credentials.clientCertificate) ?? options.fetch ?? globalThis.fetch;
    return doFetch(`${base}${req.path}${query ? `?${query}` : ""}`, init);
  };
  return {
    async request(req: TransportRequest): Promise<TransportResponse> {
      const used = source === undefined ? {} : await source.credentials();
      let res = await send(req, used);
      if (res.status === 401 && source?.unauthorized !== undefined && (await source.unauthorized(used))) {
        // The first answer is dropped: its body is not read, so release the connection.
        await res.body?.cancel().catch(() => undefined);
        res = await send(req, await source.credentials());
      }
      const response = res;
      return {
        status: response.status,
        headers: response.headers,
        text: () => response.text(),
        lines: () => splitLines(textChunks(response)),
      };
    },
  };
}

/** The `Authorization` header of `credentials`: a token, else basic; undefined for neither. */
function authorizationOf(credentials: Credentials): string | undefined {
  if (credentials.token !== undefined) return `Bearer ${credentials.token}`;
  if (credentials.basic !== undefined) {
    const bytes = new TextEncoder().encode(`${credentials.basic.username}:${credentials.basic.password}`);
    return `Basic ${btoa(String.fromCharCode(...bytes))}`;
  }
  return undefined;
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
