/**
 * HTTP CONNECT tunnels through an `http://` proxy: agents whose `createConnection` asks the
 * proxy for a tunnel to the target and then speaks TLS (or plain HTTP) through it.
 * @module
 */
import { Agent as HTTPAgent, request as httpRequest, type AgentOptions, type ClientRequestArgs } from "node:http";
import { Agent as HTTPSAgent, type AgentOptions as HTTPSAgentOptions } from "node:https";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";

type Created = (error: Error | null, socket: Duplex) => void;

/**
 * Opens a tunnel to `host:port` through `proxy` (an `http:` URL; its user and password, if any,
 * go as `Proxy-Authorization: Basic`) and hands the raw socket to `done`.
 */
export function openTunnel(proxy: URL, host: string, port: number, done: (error: Error | null, socket?: Socket) => void): void {
  const authority = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  const headers: Record<string, string> = { host: authority };
  if (proxy.username !== "" || proxy.password !== "") {
    headers["proxy-authorization"] = `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}`;
  }
  const req = httpRequest({
    host: proxy.hostname.replace(/^\[|\]$/g, ""),
    port: proxy.port === "" ? 80 : Number(proxy.port),
    method: "CONNECT",
    path: authority,
    headers,
    agent: false,
  });
  req.once("connect", (res, socket, head) => {
    if (res.statusCode !== 200) {
      socket.destroy();
      done(new Error(`proxy ${proxy.host} refused CONNECT ${authority}: ${res.statusCode} ${res.statusMessage ?? ""}`.trimEnd()));
      return;
    }
    if (head.length > 0) socket.unshift(head);
    done(null, socket);
  });
  req.once("error", (error) => done(new Error(`proxy ${proxy.host}: ${error.message}`, { cause: error })));
  req.end();
}

function targetOf(options: ClientRequestArgs, defaultPort: number): { host: string; port: number } {
  return { host: options.host ?? options.hostname ?? "localhost", port: Number(options.port ?? defaultPort) };
}

/** An `https.Agent` that reaches every target through a CONNECT tunnel of `proxy`, then TLS. */
export class TunnelingHTTPSAgent extends HTTPSAgent {
  readonly #proxy: URL;

  /** `options` are the agent's (keep-alive, and the TLS options every connection uses). */
  constructor(proxy: URL, options: HTTPSAgentOptions) {
    super(options);
    this.#proxy = proxy;
  }

  /** Called by the agent for a new connection; answers through `created` (asynchronously). */
  override createConnection(options: ClientRequestArgs, created?: Created): Duplex | null | undefined {
    const { host, port } = targetOf(options, 443);
    openTunnel(this.#proxy, host, port, (error, socket) => {
      if (error !== null || socket === undefined) return created?.(error ?? new Error("no tunnel"), undefined as unknown as Duplex);
      // The agent merged its TLS options (ca, cert, key, servername, rejectUnauthorized) into `options`.
      const tls = tlsConnect({ ...(options as ConnectionOptions), socket });
      created?.(null, tls);
    });
    return undefined;
  }
}

/** An `http.Agent` that reaches every target through a CONNECT tunnel of `proxy`. */
export class TunnelingHTTPAgent extends HTTPAgent {
  readonly #proxy: URL;

  /** `options` are the agent's (keep-alive). */
  constructor(proxy: URL, options: AgentOptions) {
    super(options);
    this.#proxy = proxy;
  }

  /** Called by the agent for a new connection; answers through `created` (asynchronously). */
  override createConnection(options: ClientRequestArgs, created?: Created): Duplex | null | undefined {
    const { host, port } = targetOf(options, 80);
    openTunnel(this.#proxy, host, port, (error, socket) => {
      if (error !== null || socket === undefined) return created?.(error ?? new Error("no tunnel"), undefined as unknown as Duplex);
      created?.(null, socket);
    });
    return undefined;
  }
}
