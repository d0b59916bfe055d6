/**
 * Writing a complete response body. A small body (nearly every answer) goes out in one write. A
 * large one (a LIST of hundreds of objects) goes out in slices, one slice per turn of the event
 * loop for all large bodies together: writing, and over TLS encrypting, a body of hundreds of KiB
 * at once holds the loop for about a millisecond, and every request whose bytes arrive meanwhile
 * waits behind it. Between two slices the loop reads what arrived, so a GET is answered while a
 * LIST's body is still being written, and waits for at most one slice however many bodies are
 * being written.
 * @module
 */
import type { ServerResponse } from "node:http";

/**
 * The most bytes of large bodies written in one turn of the event loop. A body up to this size
 * is written at once; a larger one in slices of about this size (a text slice holds this many
 * UTF-16 code units, so up to three times as many bytes).
 */
export const sliceBytes = 64 * 1024;

/** A large body being written: the response, the body, and where its next slice begins. */
interface Slicing {
  readonly res: ServerResponse;
  readonly body: string | Uint8Array;
  start: number;
  readonly failed: (res: ServerResponse) => void;
}

/**
 * The bodies waiting for their next slice. The first one is written to the end before the next
 * starts (fewer bodies held in memory, and each LIST done sooner), except while it waits for its
 * client to take what was written: then the others go on.
 */
const waiting: Slicing[] = [];
let scheduled = false;

/**
 * Ends `res` with `body`, whose byte length `bytes` the head already announced: at once when it
 * is small, absent, or the request is a HEAD (Node sends no body then); else in slices on later
 * turns of the event loop. When the client goes away, the remaining slices are dropped; `failed`
 * is called if a write throws.
 */
export function endWithBody(res: ServerResponse, body: string | Uint8Array | undefined, bytes: number, failed: (res: ServerResponse) => void): void {
  if (body === undefined || bytes <= sliceBytes || res.req.method === "HEAD") res.end(body);
  else enqueue({ res, body, start: 0, failed }, false);
}

/** Queues `slicing` (first when it is already under way) and asks for a turn if none is. */
function enqueue(slicing: Slicing, first: boolean): void {
  if (first) waiting.unshift(slicing);
  else waiting.push(slicing);
  if (!scheduled) {
    scheduled = true;
    setImmediate(writeNextSlice);
  }
}

/** Where the slice of `body` that begins at `start` ends. */
function sliceEnd(body: string | Uint8Array, start: number): number {
  const end = start + sliceBytes;
  if (end >= body.length || typeof body !== "string") return Math.min(end, body.length);
  // A surrogate pair split in two would be encoded as two replacement characters.
  const last = body.charCodeAt(end - 1);
  return last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

/** One turn's slice, of the first body waiting; then the next turn is asked for, if needed. */
function writeNextSlice(): void {
  scheduled = false;
  const slicing = waiting.shift();
  if (slicing) writeSlice(slicing);
  if (waiting.length > 0 && !scheduled) {
    scheduled = true;
    setImmediate(writeNextSlice);
  }
}

function writeSlice(slicing: Slicing): void {
  const { res, body, start } = slicing;
  try {
    // The client went away: 'close' was emitted, nothing more to write.
    if (res.destroyed) return;
    const end = sliceEnd(body, start);
    const slice = typeof body === "string" ? body.slice(start, end) : body.subarray(start, end);
    slicing.start = end;
    if (end >= body.length) res.end(slice);
    else if (res.write(slice)) enqueue(slicing, true);
    // Taken once the socket took the bytes: often in this very turn, the kernel taking them at
    // once; the next slice still waits for a turn of its own.
    else res.once("drain", () => enqueue(slicing, true));
  } catch {
    slicing.failed(res);
  }
}
