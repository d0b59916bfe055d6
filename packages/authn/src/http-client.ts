/**
 * The port authenticators call remote services through (OIDC discovery and keys, the token
 * webhook): a small fetch-like function, so the package stays free of `node:*`. `@orch/node`
 * supplies one over `node:https` with a custom CA and a client certificate.
 * @module
 */

/** A request made through an {@link HTTPClient}. */
export interface HTTPRequest {
  /** `GET` or `POST`. */
  method: "GET" | "POST";
  /** Request headers. */
  headers?: Record<string, string>;
  /** The body of a POST. */
  body?: string | Uint8Array;
  /** Aborts the request (a deadline, or the client went away). */
  signal?: AbortSignal;
}

/** The answer to an {@link HTTPRequest}: status, headers, and the whole body. */
export interface HTTPResponse {
  /** The HTTP status code. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The whole body. */
  body: Uint8Array;
}

/**
 * Makes one HTTP request and resolves with the whole response; rejects when there is no
 * response (connection refused, TLS failure, aborted). A non-2xx status resolves.
 */
export type HTTPClient = (url: string, request: HTTPRequest) => Promise<HTTPResponse>;

/**
 * An {@link HTTPClient} over a web-standard `fetch` (the global one by default): for runtimes
 * whose `fetch` trusts the right CAs. Under Node, with a private CA or a client certificate, use
 * `httpsClient` from `@orch/node`.
 */
export function fetchHTTPClient(fetchFn: typeof fetch = globalThis.fetch): HTTPClient {
  return async (url, request) => {
    const init: RequestInit = { method: request.method, redirect: "error" };
    if (request.headers) init.headers = request.headers;
    if (request.body !== undefined) init.body = request.body as BodyInit;
    if (request.signal) init.signal = request.signal;
    const response = await fetchFn(url, init);
    return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) };
  };
}
