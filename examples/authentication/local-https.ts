/**
 * A tiny HTTPS server on 127.0.0.1 for the examples that need a remote party: the OIDC issuer
 * and the token webhook. Each handler answers JSON.
 * @module
 */
import { createServer, type ServerOptions } from "node:https";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** A running {@link listenHTTPS} server. */
export interface LocalHTTPS {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `answer(path, body)` (status and JSON, or `undefined` for 404) on a free port. */
export async function listenHTTPS(
  tls: ServerOptions,
  answer: (path: string, body: string) => Promise<[number, unknown] | undefined> | [number, unknown] | undefined,
): Promise<LocalHTTPS> {
  const server = createServer(tls, (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      // A handler that throws is answered with a 500, never left unanswered.
      Promise.resolve(answer(req.url ?? "/", Buffer.concat(chunks).toString()))
        .then((answered) => {
          const [status, json] = answered ?? [404, {}];
          res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
        })
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
