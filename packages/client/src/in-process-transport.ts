/**
 * The in-process transport: requests go straight to `APIServer.handle`, with no socket and no
 * HTTP framing, through the same pipeline a remote client's requests take.
 * @module
 */
import { fromUtf8, splitLines } from "./internal/lines.js";
import type { Transport, TransportRequest, TransportResponse } from "./transport.js";

/** The user an in-process request runs as (the shape of `@orch/server`'s `UserInfo`). */
export interface InProcessUser {
  /** The user name. */
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The request `APIServer.handle` takes (structurally `@orch/server`'s `APIRequest`). */
export interface InProcessRequest {
  /** The HTTP method. */
  method: string;
  /** Path and query. */
  url: string;
  /** Request headers. */
  headers: Headers;
  /** The encoded body. */
  body?: Uint8Array;
  /** Who makes the request, as if authenticated. */
  user?: InProcessUser;
  /** Aborted when the client goes away; ends watches. */
  signal?: AbortSignal;
}

/** The response `APIServer.handle` gives (structurally `@orch/server`'s `APIResponse`). */
export interface InProcessResponse {
  /** The HTTP status code. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The complete body. */
  body?: Uint8Array | string;
  /** A watch stream: one `\n`-terminated JSON document per chunk. */
  stream?: AsyncIterable<string>;
}

/**
 * Anything with `handle(request)`: an `APIServer` from `@orch/server`, or a fake in a test.
 * Typed structurally so that this package does not depend on the server.
 */
export interface InProcessServer {
  /** Serves one request; never rejects for a request the server refuses (that is a Status response). */
  handle(request: InProcessRequest): Promise<InProcessResponse>;
}

/** Options of {@link inProcessTransport}. */
export interface InProcessTransportOptions {
  /**
   * Every request runs as this user: the server's authentication stage keeps it and
   * authenticates nothing (a test acting as a given user). Without it, requests are
   * authenticated from their headers like any other, so with no `Authorization` header they are
   * `system:anonymous`.
   */
  user?: InProcessUser;
  /** Headers added to every request (a request's own headers win). */
  headers?: Record<string, string>;
}

/**
 * A transport that calls `server.handle` directly: no sockets, no serialisation of the HTTP
 * framing. Bodies are still JSON, so what the client sees is exactly what a remote one sees.
 *
 * @example
 * const server = new APIServer();
 * const client = new Client({ transport: inProcessTransport(server) });
 */
export function inProcessTransport(server: InProcessServer, options: InProcessTransportOptions = {}): Transport {
  return {
    async request(req: TransportRequest): Promise<TransportResponse> {
      const headers = new Headers(options.headers);
      for (const [k, v] of Object.entries(req.headers ?? {})) headers.set(k, v);
      const query = req.query?.toString() ?? "";
      const request: InProcessRequest = { method: req.method, url: query ? `${req.path}?${query}` : req.path, headers };
      if (req.body) request.body = req.body;
      if (options.user) request.user = options.user;
      if (req.signal) request.signal = req.signal;
      req.signal?.throwIfAborted();
      const res = await server.handle(request);
      return inProcessResponse(res);
    },
  };
}

function inProcessResponse(res: InProcessResponse): TransportResponse {
  let consumed = false;
  const take = () => {
    if (consumed) throw new TypeError("the response body was already read");
    consumed = true;
  };
  const chunks = async function* (): AsyncGenerator<string, void, undefined> {
    if (res.stream) {
      yield* res.stream;
    } else if (res.body !== undefined) {
      yield typeof res.body === "string" ? res.body : fromUtf8(res.body);
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    async text() {
      take();
      let text = "";
      for await (const chunk of chunks()) text += chunk;
      return text;
    },
    lines() {
      take();
      return splitLines(chunks());
    },
  };
}
