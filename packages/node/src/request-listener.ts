/**
 * The `node:http` request listener of orch: it turns an `IncomingMessage` into an `APIRequest`,
 * hands it to the server, and writes the `APIResponse` back, flushing streamed chunks as they
 * come.
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { requestEntityTooLarge, toStatusError } from "@orch/meta";
import type { APIRequest, APIResponse } from "@orch/server";
import { peerCertificateChain } from "./client-certificate.js";
import { discardRest, readBody } from "./internal/read-body.js";

/**
 * What the adapter needs of a server: `APIServer` has this shape, and so can a test's fake.
 */
export interface RequestHandler {
  /** Serves one request; should not reject (a rejection becomes a 500 Status). */
  handle(request: APIRequest): Promise<APIResponse>;
  /** Largest accepted request body in bytes; a larger one gets 413 without being buffered. */
  readonly maxRequestBodyBytes: number;
  /** Starts a graceful shutdown; resolves when the adapter should stop accepting connections. */
  shutdown(): Promise<void>;
}

/** A `node:http` / `node:https` request listener, as `http.createServer` takes it. */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** @internal State shared between the listener and `serve`'s graceful close. */
export interface ListenerState {
  /** Set once the server is draining: responses carry `Connection: close`. */
  closing: boolean;
  /** Ends each open stream cleanly. */
  readonly streams: Set<() => void>;
}

/** @internal */
export function newListenerState(): ListenerState {
  return { closing: false, streams: new Set() };
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header Node's parser accepted but the Headers class does not: not ours to serve.
    }
  }
  return headers;
}

function headerObject(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  headers.forEach((value, name) => {
    if (name !== "set-cookie") out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

/** Ends a stream nobody will read (an async generator's iterator is the generator itself). */
function release(stream: AsyncIterable<string>): void {
  try {
    stream[Symbol.asyncIterator]()
      .return?.()
      .catch(() => undefined);
  } catch {
    // A stream that cannot even be asked to stop is left to the aborted signal.
  }
}

function writeComplete(res: ServerResponse, response: APIResponse, state: ListenerState): void {
  const headers = headerObject(response.headers);
  const body = response.body;
  delete headers["transfer-encoding"];
  // A text body goes out as text: node then sends the head and the body in one write.
  headers["content-length"] = String(body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
  if (state.closing) headers["connection"] = "close";
  res.writeHead(response.status, headers);
  res.end(body);
}

async function writeStream(
  res: ServerResponse,
  response: APIResponse,
  stream: AsyncIterable<string>,
  abort: AbortController,
  state: ListenerState,
): Promise<void> {
  const headers = headerObject(response.headers);
  delete headers["content-length"];
  if (state.closing) headers["connection"] = "close";
  res.socket?.setNoDelay(true);
  res.writeHead(response.status, headers);
  res.flushHeaders();

  const iterator = stream[Symbol.asyncIterator]();
  let stop!: () => void;
  const stopped = new Promise<"stop">((resolve) => (stop = () => resolve("stop")));
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    state.streams.delete(endCleanly);
    stop();
    abort.abort();
    // Not awaited: an async generator suspended in an await only returns once that settles.
    iterator.return?.().catch(() => undefined);
  };
  const endCleanly = () => {
    end();
    if (!res.writableEnded) res.end();
  };
  state.streams.add(endCleanly);
  const onClose = () => end();
  res.once("close", onClose);
  // A stream that starts once the server drains (a watch re-opened on a kept-alive connection)
  // missed the ending of the open ones: end it now, or it holds the drain until its timeout.
  if (state.closing) endCleanly();

  try {
    while (!ended) {
      const pending = iterator.next();
      // If the stop wins the race, a later rejection of this next() has nobody to tell.
      pending.catch(() => undefined);
      const next = await Promise.race([pending, stopped]);
      if (next === "stop" || ended) break;
      if (next.done) {
        ended = true;
        break;
      }
      if (!res.write(next.value)) {
        const drained = await Promise.race([new Promise<"drain">((r) => res.once("drain", () => r("drain"))), stopped]);
        if (drained === "stop") break;
      }
    }
  } catch {
    // The stream failed mid-way: the status line is gone, so all we can do is end it.
  } finally {
    res.off("close", onClose);
    state.streams.delete(endCleanly);
    if (!ended) end();
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}

/** @internal The listener behind {@link createRequestListener} and `serve`. */
export function listenerWithState(server: RequestHandler, state: ListenerState): RequestListener {
  return (req, res) => {
    void serveOne(server, state, req, res);
  };
}

async function serveOne(server: RequestHandler, state: ListenerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The request's signal is made only when the server asks for it (watches, waits): most
  // requests never do, and an AbortController per request is not free.
  let abort: AbortController | undefined;
  let gone = false;
  const controller = (): AbortController => {
    abort ??= new AbortController();
    if (gone) abort.abort();
    return abort;
  };
  // A write to a socket that just broke must not take the process down; 'close' follows.
  res.on("error", () => undefined);
  res.once("close", () => {
    if (res.writableFinished) return;
    gone = true;
    abort?.abort();
  });
  try {
    const limit = server.maxRequestBodyBytes;
    const read = await readBody(req, limit);
    if (read.kind === "aborted") return;
    if (read.kind === "tooLarge") {
      const status = requestEntityTooLarge(`limit is ${limit}`).status;
      discardRest(req, Math.max(limit, 1 << 20), 10_000);
      writeComplete(res, { status: status.code, headers: new Headers({ "content-type": "application/json" }), body: JSON.stringify(status) }, state);
      return;
    }
    const request: APIRequest = {
      method: req.method ?? "GET",
      url: req.url ?? "/",
      headers: toHeaders(req),
      get signal() {
        return controller().signal;
      },
    };
    if (read.body) request.body = read.body;
    const chain = peerCertificateChain(req.socket);
    if (chain) request.peerCertificates = chain;

    let response: APIResponse;
    try {
      response = await server.handle(request);
    } catch (error) {
      const status = toStatusError(error).status;
      response = { status: status.code, headers: new Headers({ "content-type": "application/json" }), body: JSON.stringify(status) };
    }
    if (res.destroyed || gone) {
      // The client is gone: release a stream the server opened for it.
      if (response.stream) release(response.stream);
      return;
    }
    if (response.stream && req.method !== "HEAD") await writeStream(res, response, response.stream, controller(), state);
    else {
      if (response.stream) release(response.stream);
      writeComplete(res, response, state);
    }
  } catch {
    // Writing failed (the socket broke under us): nothing left to tell the client.
    if (!res.headersSent) res.destroy();
    else if (!res.writableEnded) res.end();
  }
}

/**
 * A request listener for a `node:http` or `node:https` server you own: it reads the body up to
 * `server.maxRequestBodyBytes` (413 past it, without buffering more), hands the server the TLS
 * client certificate chain as the client sent it (start the TLS server with `requestCert: true,
 * rejectUnauthorized: false`; the server's authenticators verify it), aborts the request's `signal` when the client
 * goes away, and flushes each chunk of a streamed response at once.
 *
 * Graceful shutdown of a server you own is yours; {@link serve} does it for you.
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { APIServer } from "@orch/server";
 * import { createRequestListener } from "@orch/node";
 *
 * const api = new APIServer();
 * createServer(createRequestListener(api)).listen(8080, "127.0.0.1");
 * ```
 */
export function createRequestListener(server: RequestHandler): RequestListener {
  return listenerWithState(server, newListenerState());
}
