/**
 * Test-only: a tiny HTTP CONNECT proxy on 127.0.0.1 that tunnels to any target and records
 * what it was asked for.
 * @module
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

/** A running {@link startConnectProxy}. */
export interface ConnectProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The `host:port` of every CONNECT, in order. */
  readonly connects: string[];
  /** The `Proxy-Authorization` header of every CONNECT (undefined when absent). */
  readonly authorizations: (string | undefined)[];
  /** Stops listening and cuts every tunnel. */
  close(): Promise<void>;
}

/** Starts a CONNECT proxy on a free loopback port. */
export async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    res.writeHead(405);
    res.end("CONNECT only");
  });
  server.on("connect", (req, client: Socket, head: Buffer) => {
    connects.push(req.url ?? "");
    authorizations.push(req.headers["proxy-authorization"]);
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? "");
    if (!match) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const upstream = connect(Number(match[2]), match[1]!, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    authorizations,
    close: () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
