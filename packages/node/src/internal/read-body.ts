/**
 * Reads a request body up to a limit and never buffers past it.
 * @module
 */
import type { IncomingMessage } from "node:http";

/** What reading a body came to. */
export type BodyResult = { kind: "ok"; body: Uint8Array | undefined } | { kind: "tooLarge" } | { kind: "aborted" };

/**
 * Reads the whole body of `req`, or stops as soon as it is known to exceed `limit` bytes: at
 * once when `Content-Length` says so, else when the running total passes it. After `tooLarge`
 * the caller owns the rest of the body (see {@link discardRest}).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve({ kind: "tooLarge" });
  if (req.readableEnded) return Promise.resolve({ kind: "ok", body: undefined });
  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onAbort);
      req.off("close", onAbort);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        chunks = [];
        cleanup();
        req.pause();
        resolve({ kind: "tooLarge" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      if (total === 0) return resolve({ kind: "ok", body: undefined });
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      resolve({ kind: "ok", body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength) });
    };
    const onAbort = () => {
      cleanup();
      resolve({ kind: "aborted" });
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onAbort);
    req.on("close", onAbort);
  });
}

/**
 * Reads and drops the rest of a body that was too large, so the client can read the 413 before
 * the connection goes (closing a socket with unread input makes the kernel send a reset, which
 * can destroy the response in flight). Past `cap` more bytes, or `timeoutMs`, the socket is
 * destroyed instead.
 */
export function discardRest(req: IncomingMessage, cap: number, timeoutMs: number): void {
  if (req.readableEnded) return;
  let discarded = 0;
  const timer = setTimeout(() => req.socket.destroy(), timeoutMs);
  timer.unref();
  const done = () => clearTimeout(timer);
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > cap) {
      done();
      req.socket.destroy();
    }
  });
  req.once("end", done);
  req.once("close", done);
  req.resume();
}
