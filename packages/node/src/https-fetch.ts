/**
 * {@link httpsFetch}: a `fetch` over `node:https` with the TLS material of a kubeconfig (a
 * private CA, a client certificate) and its `proxy-url`, which the global `fetch` cannot take.
 * Response bodies stream, so the HTTP transport of `@orch/client` reads watches through it.
 * @module
 */
import { Agent as HTTPAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HTTPSAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import type { HTTPSClientOptions } from "./https-client.js";
import { TunnelingHTTPAgent, TunnelingHTTPSAgent } from "./internal/connect-tunnel.js";

/** Options of {@link httpsFetch}: the TLS options of {@link HTTPSClientOptions}, and a proxy. */
export interface HTTPSFetchOptions extends HTTPSClientOptions {
  /**
   * An `http://` proxy (`http://user:password@proxy:3128`): every connection is an HTTP
   * CONNECT tunnel through it to the target, with TLS end to end for `https:` targets.
   */
  proxy?: string | URL;
}

/** The `fetch` of {@link httpsFetch}, with `close()` to drop its keep-alive connections. */
export type HTTPSFetch = typeof fetch & {
  /** Destroys the agents' sockets; requests in flight fail. */
  close(): void;
};

/** Statuses whose response has no body, which `Response` refuses one for. */
const noBody = new Set([101, 103, 204, 205, 304]);

function responseOf(res: IncomingMessage): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const status = res.statusCode ?? 0;
  if (noBody.has(status)) res.resume();
  const body = noBody.has(status) ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
  return new Response(body, { status, statusText: res.statusMessage ?? "", headers });
}

/**
 * A `fetch` over `node:https` (and `node:http` for `http:` URLs) with `options`' CA, client
 * certificate, server name and proxy, on keep-alive agents of its own; pass it to
 * `httpTransport` of `@orch/client`, and call its `close()` when done. It takes a URL (string
 * or `URL`) and the `method`, `headers`, `body` (string or bytes) and `signal` of `init`. The
 * body of the response streams as it arrives; aborting the signal ends the request and the
 * body. `timeoutMs` and `maxResponseBytes` of the options do not apply (watches are long and
 * large).
 *
 * @throws TypeError when `proxy` is not an `http:` URL.
 *
 * @example
 * ```ts
 * const client = new Client({ transport: httpTransport({ baseURL: server, fetch: httpsFetch({ ca, cert, key }) }) });
 * ```
 */
export function httpsFetch(options: HTTPSFetchOptions = {}): HTTPSFetch {
  const tls: { ca?: string; cert?: string; key?: string; servername?: string; rejectUnauthorized?: boolean } = {};
  if (options.ca !== undefined) tls.ca = options.ca;
  if (options.cert !== undefined) tls.cert = options.cert;
  if (options.key !== undefined) tls.key = options.key;
  if (options.servername !== undefined) tls.servername = options.servername;
  if (options.insecureSkipTLSVerify) tls.rejectUnauthorized = false;
  let proxy: URL | undefined;
  if (options.proxy !== undefined) {
    proxy = new URL(options.proxy);
    if (proxy.protocol !== "http:") throw new TypeError(`httpsFetch: proxy ${proxy.href} is not an http:// proxy (the only kind supported)`);
  }
  const httpsAgent = proxy ? new TunnelingHTTPSAgent(proxy, { keepAlive: true, ...tls }) : new HTTPSAgent({ keepAlive: true, ...tls });
  const httpAgent = proxy ? new TunnelingHTTPAgent(proxy, { keepAlive: true }) : new HTTPAgent({ keepAlive: true });
  const doFetch: typeof fetch = (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => (headers[name] = value));
      const body = typeof init.body === "string" ? Buffer.from(init.body) : init.body instanceof Uint8Array ? Buffer.from(init.body) : undefined;
      if (init.body !== undefined && init.body !== null && body === undefined) throw new TypeError("httpsFetch takes a string or bytes body");
      if (body) headers["content-length"] = String(body.length);
      const https = target.protocol === "https:";
      const send = https ? httpsRequest : httpRequest;
      const req = send(target, { method: init.method ?? "GET", headers, agent: https ? httpsAgent : httpAgent }, (res) => resolve(responseOf(res)));
      req.on("error", reject);
      const signal = init.signal;
      if (signal) {
        const abort = () => req.destroy(new DOMException("This operation was aborted", "AbortError"));
        if (signal.aborted) abort();
        else signal.addEventListener("abort", abort, { once: true });
        req.on("close", () => signal.removeEventListener("abort", abort));
      }
      req.end(body);
    });
  return Object.assign(doFetch, {
    close: () => {
      httpsAgent.destroy();
      httpAgent.destroy();
    },
  });
}
