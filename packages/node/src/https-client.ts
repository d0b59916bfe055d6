/**
 * An `HTTPClient` (the port `@orch/authn` calls remote services through) over `node:https`,
 * with the TLS material a webhook or an OIDC issuer needs: a private CA, a client certificate,
 * a server name to verify against.
 * @module
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest, type RequestOptions } from "node:https";
import type { HTTPClient } from "@orch/authn";

/** TLS options of {@link httpsClient}: PEM strings. */
export interface HTTPSClientOptions {
  /** CA bundle that verifies the server (default: Node's root CAs). */
  ca?: string;
  /** Client certificate (chain) presented to the server. */
  cert?: string;
  /** Key of the client certificate. */
  key?: string;
  /** The name the server's certificate must carry, when it is not the URL's host. */
  servername?: string;
  /** Skip verification of the server's certificate (tests and throwaway setups only). */
  insecureSkipTLSVerify?: boolean;
  /** Gives up on a request after this many milliseconds (default 30 000). */
  timeoutMs?: number;
  /** The largest response body read, in bytes (default 10 MiB); more is an error. */
  maxResponseBytes?: number;
}

/**
 * An `HTTPClient` over `node:https` (and `node:http` for `http:` URLs, for tests behind a
 * trusted proxy). Rejects on a connection or TLS failure, a timeout, an abort, or a body over
 * the size limit; resolves with any status otherwise.
 */
export function httpsClient(options: HTTPSClientOptions = {}): HTTPClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBytes = options.maxResponseBytes ?? 10 * 1024 * 1024;
  return (url, request) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const tls: RequestOptions = {};
      if (options.ca !== undefined) tls.ca = options.ca;
      if (options.cert !== undefined) tls.cert = options.cert;
      if (options.key !== undefined) tls.key = options.key;
      if (options.servername !== undefined) tls.servername = options.servername;
      if (options.insecureSkipTLSVerify) tls.rejectUnauthorized = false;
      const body = request.body === undefined ? undefined : typeof request.body === "string" ? Buffer.from(request.body) : Buffer.from(request.body);
      const headers: Record<string, string> = { ...request.headers };
      if (body) headers["content-length"] = String(body.length);
      const send = target.protocol === "http:" ? httpRequest : httpsRequest;
      const req = send(target, { ...(target.protocol === "https:" ? tls : {}), method: request.method, headers, timeout: timeoutMs, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy(new Error(`response from ${target.origin} is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === "string") responseHeaders.set(name, value);
            else if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v);
          }
          resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: new Uint8Array(Buffer.concat(chunks)) });
        });
        res.on("error", reject);
      });
      req.on("timeout", () => req.destroy(new Error(`no answer from ${target.origin} within ${timeoutMs} ms`)));
      req.on("error", reject);
      const signal = request.signal;
      if (signal) {
        if (signal.aborted) req.destroy(new Error("aborted"));
        else signal.addEventListener("abort", () => req.destroy(new Error("aborted")), { once: true });
      }
      req.end(body);
    });
}
