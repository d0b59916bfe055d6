/**
 * `serve`: an orch server on a `node:http` or `node:https` listener, with graceful shutdown.
 * @module
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { badRequest } from "@orch/meta";
import { listenerWithState, newListenerState, type RequestHandler } from "./request-listener.js";

/** TLS material of {@link serve}: PEM strings or buffers. */
export interface ServeTLSOptions {
  /** The serving private key. */
  key: string | Buffer;
  /** The serving certificate (chain). */
  cert: string | Buffer;
  /**
   * CA bundle named to clients in the TLS handshake as the issuers of acceptable client
   * certificates (clients such as kubectl send a certificate only when it chains to one of them).
   * The handshake does not refuse other certificates: the chain reaches `handle` as
   * `peerCertificates`, and the server's authenticators verify it against their own CAs.
   */
  ca?: string | Buffer;
  /**
   * Ask clients for a certificate (`true` by default when `ca` is set). A client without one, or
   * with one that does not verify, still connects; the server's authentication decides.
   */
  requestCert?: boolean;
}

/** Options of {@link serve}. */
export interface ServeOptions {
  /** Address to listen on; `127.0.0.1` by default. */
  host?: string;
  /** Port to listen on; `0` (the default) picks a free one. */
  port?: number;
  /** Serve HTTPS with this key and certificate; plain HTTP without it. */
  tls?: ServeTLSOptions;
  /**
   * How long {@link ServedServer.close} lets in-flight requests finish after it stops accepting,
   * in milliseconds (10 000 by default); what is left then is destroyed.
   */
  drainTimeoutMs?: number;
  /**
   * How long a client may take to send the headers of a request, in milliseconds (32 000 by
   * default, the header read timeout of the reference server), counted from when the request
   * starts (for the first request, from when the connection is accepted). A slower client is
   * disconnected without an answer, so connections that trickle their headers cannot pile up.
   * Over HTTPS it also bounds the TLS handshake. `0` turns it off; it is capped at
   * `requestTimeoutMs` when that is set.
   * @throws RangeError from {@link serve} when it is not a whole number of 0 or more.
   */
  headersTimeoutMs?: number;
  /**
   * How long a client may take to send a whole request, headers and body, in milliseconds
   * (60 000 by default, the request timeout of the reference server). A client still sending
   * then is disconnected without an answer. Only receiving counts: a response, such as a
   * watch, may stream far longer. `0` turns it off.
   * @throws RangeError from {@link serve} when it is not a whole number of 0 or more.
   */
  requestTimeoutMs?: number;
}

/** A listening server, as {@link serve} returns it. */
export interface ServedServer {
  /** Where clients reach it: `https://127.0.0.1:6443` (an unspecified bind address shows as loopback). */
  readonly url: string;
  /** The port it listens on (the picked one when asked for port 0). */
  readonly port: number;
  /** The underlying `node:http` or `node:https` server. */
  readonly server: HttpServer;
  /**
   * Shuts down gracefully: `server.shutdown()` first (readiness fails through the shutdown
   * delay while requests are still served), then stops accepting, ends idle keep-alive
   * connections and open streams (watches end cleanly), waits up to `drainTimeoutMs` for
   * in-flight requests, and destroys whatever is left. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}

/**
 * A request Node's HTTP parser refused (malformed request line or headers, headers too large)
 * gets a 400 Status body like every other bad input, then the connection closes. When the
 * parser fails on bytes that follow a request still being answered (a body sent without a
 * length after `Connection: close`, a malformed pipelined request), that answer goes out first
 * and the connection closes after it: a 400 written now would reach the client as the answer to
 * the request in flight.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, inFlight: ServerResponse | undefined): void {
  if (inFlight && error.code !== "ERR_HTTP_REQUEST_TIMEOUT") {
    if (inFlight.writableFinished) socket.destroy();
    else inFlight.once("close", () => socket.destroy());
    return;
  }
  if (error.code === "ECONNRESET" || error.code === "ERR_HTTP_REQUEST_TIMEOUT" || !socket.writable) {
    socket.destroy();
    return;
  }
  const message = error.code === "HPE_HEADER_OVERFLOW" ? "request header fields too large" : `malformed HTTP request (${error.code ?? "parse error"})`;
  const body = JSON.stringify(badRequest(message).status);
  socket.end(
    "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n" + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

const latestResponse = Symbol("orch.latestResponse");
type SocketWithResponse = Duplex & { [latestResponse]?: ServerResponse };

function timeoutOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number of milliseconds, 0 or more; got ${value}`);
  return value;
}

/**
 * Node's HTTP server options that bound how long a client may take to send a request. Node
 * looks for expired requests on an interval (30 s by default); a quarter of the shortest
 * timeout, at most a second, keeps a cut-off close to its time.
 */
function receiveTimeouts(options: ServeOptions): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const requestTimeout = timeoutOption("requestTimeoutMs", options.requestTimeoutMs, 60_000);
  let headersTimeout = timeoutOption("headersTimeoutMs", options.headersTimeoutMs, 32_000);
  if (requestTimeout > 0 && headersTimeout > requestTimeout) headersTimeout = requestTimeout;
  const shortest = Math.min(...[headersTimeout, requestTimeout].filter((ms) => ms > 0), 4_000);
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(10, Math.floor(shortest / 4)) };
}

/**
 * Cuts off a connection whose TLS handshake is not done `ms` after it was accepted, as the
 * reference server bounds the handshake by its header timeout. Node's own `handshakeTimeout`
 * restarts with every byte received, so a client trickling its handshake would never meet it.
 * The TLS socket of a finished handshake is matched to its TCP socket by the peer's address and
 * port, which identify one open connection.
 */
function boundHandshakes(server: HttpServer, ms: number): void {
  const pending = new Map<string, { socket: Socket; timer: NodeJS.Timeout }>();
  const peer = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;
  const settle = (id: string, socket?: Socket) => {
    const entry = pending.get(id);
    if (!entry || (socket && entry.socket !== socket)) return;
    clearTimeout(entry.timer);
    pending.delete(id);
  };
  server.on("connection", (socket: Socket) => {
    const id = peer(socket);
    const timer = setTimeout(() => {
      pending.delete(id);
      socket.destroy();
    }, ms);
    timer.unref();
    pending.set(id, { socket, timer });
    socket.once("close", () => settle(id, socket));
  });
  server.on("secureConnection", (socket: Socket) => settle(peer(socket)));
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Listens on `host:port` and serves `server` over HTTP, or HTTPS when `tls` is given.
 * Rejects when the address cannot be bound.
 * @example
 * ```ts
 * const api = new APIServer();
 * await api.ready();
 * const served = await serve(api, { port: 0 });
 * console.log(served.url); // http://127.0.0.1:41234
 * await served.close();
 * ```
 */
export async function serve(server: RequestHandler, options: ServeOptions = {}): Promise<ServedServer> {
  const host = options.host ?? "127.0.0.1";
  const drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
  const timeouts = receiveTimeouts(options);
  const state = newListenerState();
  const listener = listenerWithState(server, state);
  const tls = options.tls;
  const http: HttpServer = tls
    ? createHttpsServer(
        {
          key: tls.key,
          cert: tls.cert,
          ...(tls.ca === undefined ? {} : { ca: tls.ca }),
          requestCert: tls.requestCert ?? tls.ca !== undefined,
          rejectUnauthorized: false,
          ...timeouts,
        },
        listener,
      )
    : createHttpServer(timeouts, listener);
  // requestTimeout and headersTimeout bound receiving a request only: a watch response may
  // stream far longer.
  // Every raw socket, so that close() can destroy even those still in a TLS handshake.
  const sockets = new Set<Socket>();
  http.on("connection", (socket: Socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  // The latest response of each connection, for answerClientError: in flight until it closes
  // (a closed ServerResponse is `destroyed`). Kept on the socket, so that a request costs no
  // listener and no map entry of its own.
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    (req.socket as SocketWithResponse)[latestResponse] = res;
  });
  http.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const latest = (socket as SocketWithResponse)[latestResponse];
    answerClientError(error, socket, latest && !latest.destroyed ? latest : undefined);
  });
  if (tls && timeouts.headersTimeout > 0) boundHandshakes(http, timeouts.headersTimeout);

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    http.once("error", onError);
    http.listen(options.port ?? 0, host, () => {
      http.off("error", onError);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const url = `${tls ? "https" : "http"}://${urlHost(host)}:${port}`;

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    try {
      await server.shutdown();
    } catch {
      // A failed shutdown hook must not keep the listener open.
    }
    state.closing = true;
    const closed = new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeIdleConnections();
    for (const end of [...state.streams]) end();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainTimeoutMs)));
    // Connections that finish a response while draining close themselves (Connection: close);
    // idle ones that were mid-handshake or between requests are swept as we wait.
    const sweep = setInterval(() => http.closeIdleConnections(), 50);
    await Promise.race([closed, timeout]);
    clearTimeout(timer);
    clearInterval(sweep);
    http.closeAllConnections();
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  return {
    url,
    port,
    server: http,
    close: () => (closing ??= close()),
  };
}
