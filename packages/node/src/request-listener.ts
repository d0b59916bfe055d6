/**
 * The `node:http` request listener of orch: it turns an `IncomingMessage` into an `APIRequest`,
 * hands it to the server, and writes the `APIResponse` back, flushing streamed chunks as they
 * come. Behind a framework, it takes the body a parser left in `req.body` when the stream is
 * already consumed, and serves under a path prefix.
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { internalError, requestEntityTooLarge, statusError, toStatusError, type Status } from "@orch/meta";
import { normalizeBasePath, parseMediaType, stripBasePath, type APIRequest, type APIResponse } from "@orch/server";
import { peerCertificateChain } from "./client-certificate.js";
import { ListenerRequest } from "./internal/listener-request.js";
import { discardRest, readBody } from "./internal/read-body.js";
import { RequestHeaders } from "./internal/request-headers.js";
import { endWithBody } from "./internal/write-body.js";

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

/** Options of {@link createRequestListener}. */
export interface RequestListenerOptions {
  /**
   * The path prefix the API is mounted under, e.g. `"/k8s"`: `/k8s/api/v1/namespaces` is served
   * as `/api/v1/namespaces`, and a path outside the prefix is a 404 Status. It is matched against
   * `req.originalUrl` when a framework set one (Express does, and takes its mount path off
   * `req.url`: `app.use("/k8s", listener)` needs no `basePath`), else `req.url`. Clients put the
   * prefix in their server URL (`server: https://host:port/k8s` in a kubeconfig). None by default.
   * @throws TypeError from {@link createRequestListener} when it does not start with `/`, or
   *   holds `?`, `#` or `//`.
   */
  basePath?: string;
}

/**
 * What frameworks leave on a request: Express's `originalUrl`, the `body` a body parser made
 * (Express's `express.json()`, `express.text()`, `express.raw()`, and the like), and `rawBody`,
 * the bytes a parser's `verify` hook kept by a common convention.
 */
type FrameworkRequest = IncomingMessage & { originalUrl?: unknown; body?: unknown; rawBody?: unknown };

/** What the listener has for a body: bytes (or none), or a Status to answer with instead. */
type RequestBody = Awaited<ReturnType<typeof readBody>> | { kind: "parsed"; body: Uint8Array | undefined } | { kind: "failed"; status: Status };

const protobufMediaType = "application/vnd.kubernetes.protobuf";

function bytesOf(value: Uint8Array): Uint8Array {
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

/**
 * The body of a request whose stream an earlier middleware read: what the parser left in
 * `rawBody` (bytes) or `body` (bytes or a string as they are; a parsed value re-encoded as JSON,
 * which JSON and YAML requests accept), or a 500 Status when nothing was left or it cannot be
 * turned back into the request's media type.
 */
function parsedBody(req: FrameworkRequest, limit: number): RequestBody {
  const { rawBody, body } = req;
  let bytes: Uint8Array;
  if (rawBody instanceof Uint8Array) bytes = bytesOf(rawBody);
  else if (body === undefined) {
    return {
      kind: "failed",
      status: internalError(
        "the request body was consumed by an earlier middleware and none was left in req.body; " + "mount orch before middleware that reads bodies",
      ).status,
    };
  } else if (body instanceof Uint8Array) bytes = bytesOf(body);
  else if (typeof body === "string") bytes = new TextEncoder().encode(body);
  else {
    const parsed = parseMediaType(req.headers["content-type"] ?? "");
    const mediaType = parsed ? `${parsed.type}/${parsed.subtype}` : undefined;
    const text = mediaType === protobufMediaType ? undefined : safeJSON(body);
    if (text === undefined) {
      return {
        kind: "failed",
        status: internalError(
          `the request body was parsed by an earlier middleware into a value orch cannot encode back as ${mediaType ?? "JSON"}; ` +
            "mount orch before that middleware, or limit the middleware to other routes",
        ).status,
      };
    }
    bytes = new TextEncoder().encode(text);
  }
  if (bytes.byteLength > limit) return { kind: "tooLarge" };
  return { kind: "parsed", body: bytes.byteLength === 0 ? undefined : bytes };
}

function safeJSON(value: unknown): string | undefined {
  try {
    return JSON.stringify(value) as string | undefined;
  } catch {
    return undefined; // a BigInt or a cycle
  }
}

/** The JSON response of a Status. */
function statusResponse(status: Status): APIResponse {
  return { status: status.code, headers: new Headers({ "content-type": "application/json" }), body: JSON.stringify(status) };
}

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

/**
 * The headers of `res.writeHead` from a response's `Headers`: every header but the framing ones
 * (`Content-Length` is set from the body, `Transfer-Encoding` is Node's), `Set-Cookie` as a list.
 */
function headerObject(headers: Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  let cookies = false;
  headers.forEach((value, name) => {
    if (name === "set-cookie") cookies = true;
    else if (name !== "content-length" && name !== "transfer-encoding") out[name] = value;
  });
  if (cookies) out["set-cookie"] = headers.getSetCookie();
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
  // A body of parts (a LIST) is written as its parts, never read whole through `body`.
  const body = response.bodyParts ?? response.body;
  // A text body goes out as text: node then sends the head and the body in one write.
  const bytes = body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  headers["content-length"] = String(bytes);
  if (state.closing) headers["connection"] = "close";
  res.writeHead(response.status, headers);
  endWithBody(res, body, bytes, failed);
}

async function writeStream(
  res: ServerResponse,
  response: APIResponse,
  stream: AsyncIterable<string>,
  abort: AbortController,
  state: ListenerState,
): Promise<void> {
  const headers = headerObject(response.headers);
  const encoding = response.headers.get("transfer-encoding");
  if (encoding !== null) headers["transfer-encoding"] = encoding;
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
export function listenerWithState(server: RequestHandler, state: ListenerState, options: RequestListenerOptions = {}): RequestListener {
  const basePath = normalizeBasePath(options.basePath);
  return (req, res) => serveOne(server, state, basePath, req, res);
}

/** A write to a socket that just broke must not take the process down; 'close' follows. */
function ignoreError(): void {}

/**
 * Whether `req` has no body to read: no `Content-Length` (or 0) and no `Transfer-Encoding`, as
 * Node's parser decides (a GET, a DELETE without options). Such a request is served at once,
 * without waiting for the stream's end; Node drains what is left when the response finishes.
 */
function bodyless(req: IncomingMessage): boolean {
  if (req.readableEnded) return true;
  const headers = req.headers;
  if (headers["transfer-encoding"] !== undefined) return false;
  const length = headers["content-length"];
  return length === undefined || length === "0";
}

/**
 * One request: the body read (or known absent), the server's answer written. Most requests take
 * the synchronous path to `server.handle`: no promise, listener or closure that a GET does not
 * need (its CPU time per request is most of what separates it from a bare `node:http` answer).
 */
function serveOne(server: RequestHandler, state: ListenerState, basePath: string, req: FrameworkRequest, res: ServerResponse): void {
  res.on("error", ignoreError);
  try {
    const url = stripBasePath(basePath !== "" && typeof req.originalUrl === "string" ? req.originalUrl : (req.url ?? "/"), basePath);
    if (url === undefined) {
      writeComplete(res, statusResponse(statusError("NotFound", "the server could not find the requested resource", { details: {} }).status), state);
      return;
    }
    const limit = server.maxRequestBodyBytes;
    // A stream some middleware already read from holds nothing more: the body is what it left.
    if (req.readableDidRead) answer(server, state, req, res, url, limit, parsedBody(req, limit));
    else if (bodyless(req)) answer(server, state, req, res, url, limit, { kind: "ok", body: undefined });
    else
      readBody(req, limit).then(
        (read) => answer(server, state, req, res, url, limit, read),
        () => failed(res),
      );
  } catch {
    failed(res);
  }
}

/** Writing failed (the socket broke under us): nothing left to tell the client. */
function failed(res: ServerResponse): void {
  if (!res.headersSent) res.destroy();
  else if (!res.writableEnded) res.end();
}

function answer(server: RequestHandler, state: ListenerState, req: FrameworkRequest, res: ServerResponse, url: string, limit: number, read: RequestBody): void {
  try {
    if (read.kind === "aborted") return;
    if (read.kind === "failed") {
      writeComplete(res, statusResponse(read.status), state);
      return;
    }
    if (read.kind === "tooLarge") {
      discardRest(req, Math.max(limit, 1 << 20), 10_000);
      writeComplete(res, statusResponse(requestEntityTooLarge(`limit is ${limit}`).status), state);
      return;
    }
    const headers = new RequestHeaders(req.rawHeaders);
    if (read.kind === "parsed") {
      // The parser decoded any Content-Encoding, and a re-encoded body has a length of its own.
      headers.delete("content-encoding");
      headers.delete("transfer-encoding");
      headers.set("content-length", String(read.body?.byteLength ?? 0));
    }
    // The request's signal is made only when the server asks for it (watches, waits): most
    // requests never do, and an AbortController (with a 'close' listener) per request is not free.
    const request = new ListenerRequest(req.method ?? "GET", url, headers, res);
    if (read.body) request.body = read.body;
    const chain = peerCertificateChain(req.socket);
    if (chain) request.peerCertificates = chain;
    const remote = req.socket.remoteAddress;
    // An IPv4 peer of a dual-stack socket shows as `::ffff:a.b.c.d`: record it as the IPv4 it is.
    if (remote) request.remoteAddress = remote.startsWith("::ffff:") && remote.includes(".") ? remote.slice(7) : remote;

    let handled: Promise<APIResponse>;
    try {
      handled = server.handle(request);
    } catch (error) {
      handled = Promise.reject(error as Error);
    }
    // One reaction to the answer (not a `then` that turns a rejection into a Status and another
    // that writes it): a promise and a turn of the microtask queue fewer per request.
    handled
      .then(
        (response) => respond(req, res, response, request, state),
        (error: unknown) => respond(req, res, statusResponse(toStatusError(error).status), request, state),
      )
      .catch(() => failed(res));
  } catch {
    failed(res);
  }
}

function respond(req: IncomingMessage, res: ServerResponse, response: APIResponse, request: ListenerRequest, state: ListenerState): Promise<void> | undefined {
  if (res.destroyed) {
    // The client is gone: release a stream the server opened for it.
    if (response.stream) release(response.stream);
    return undefined;
  }
  if (response.stream && req.method !== "HEAD") return writeStream(res, response, response.stream, ListenerRequest.controller(request), state);
  if (response.stream) release(response.stream);
  writeComplete(res, response, state);
  return undefined;
}

/**
 * A request listener for a `node:http` or `node:https` server you own, or an Express (or
 * Connect) app: it reads the body up to `server.maxRequestBodyBytes` (413 past it, without
 * buffering more), hands the server the TLS client certificate chain as the client sent it
 * (start the TLS server with `requestCert: true, rejectUnauthorized: false`; the server's
 * authenticators verify it), aborts the request's `signal` when the client goes away, and flushes
 * each chunk of a streamed response at once. A body over 64 KiB is written in slices on successive
 * turns of the event loop, so other requests are answered while it goes out.
 *
 * Behind a body parser (`express.json()`, ...) that already read the stream, the body is what
 * the parser left: `req.rawBody` or `req.body` bytes or string as they are, a parsed value
 * re-encoded as JSON (which JSON and YAML requests accept; exact bytes are lost, so duplicate
 * fields go unnoticed). A consumed stream with nothing left is a 500 Status saying so. A parser
 * that skipped the request (`express.json()` skips `application/merge-patch+json`) left the
 * stream, which is read as usual. With `options.basePath` the API is served under a prefix.
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
export function createRequestListener(server: RequestHandler, options: RequestListenerOptions = {}): RequestListener {
  return listenerWithState(server, newListenerState(), options);
}
