/**
 * `serve`: an orch server on a `node:http` or `node:https` listener, with graceful shutdown.
 * @module
 */
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
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
 * gets a 400 Status body like every other bad input, then the connection closes.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
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
        },
        listener,
      )
    : createHttpServer(listener);
  // Node's requestTimeout (300 s) and headersTimeout bound receiving a request only, so they
  // stay on: a watch response may stream far longer.
  // Every raw socket, so that close() can destroy even those still in a TLS handshake.
  const sockets = new Set<Socket>();
  http.on("connection", (socket: Socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });

  http.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket));

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
