/**
 * Writing a complete response body. A small body (nearly every answer) goes out in one write. A
 * large one (a LIST of hundreds of objects) goes out in slices, one slice per turn of the event
 * loop for all large bodies together: writing, and over TLS encrypting, a body of hundreds of KiB
 * at once holds the loop for about a millisecond, and every request whose bytes arrive meanwhile
 * waits behind it. Between two slices the loop reads what arrived, so a GET is answered while a
 * LIST's body is still being written, and waits for at most one slice however many bodies are
 * being written. A body made of parts (a LIST's framing and its items' cached bytes) is never
 * joined whole: each slice is copied from the consecutive parts it covers into a slice buffer that
 * is used again once the socket has taken its bytes.
 * @module
 */
import type { ServerResponse } from "node:http";

/** A body as UTF-8 parts written one after the other, and its length in bytes. */
export interface BodyParts {
  readonly parts: readonly Uint8Array[];
  readonly byteLength: number;
}

/** What {@link endWithBody} writes. */
export type Body = string | Uint8Array | BodyParts;

/**
 * The most bytes of large bodies written in one turn of the event loop. A body up to this size
 * is written at once; a larger one in slices of about this size (a text slice holds this many
 * UTF-16 code units, so up to three times as many bytes).
 */
export const sliceBytes = 64 * 1024;

/**
 * A large body being written: the response, the body, and where its next slice begins (for
 * parts: in part `part`, at byte `start` of it).
 */
interface Slicing {
  readonly res: ServerResponse;
  readonly body: string | Uint8Array | readonly Uint8Array[];
  part: number;
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
export function endWithBody(res: ServerResponse, body: Body | undefined, bytes: number, failed: (res: ServerResponse) => void): void {
  if (body === undefined || res.req.method === "HEAD") res.end();
  else if (typeof body === "string" || body instanceof Uint8Array) {
    if (bytes <= sliceBytes) res.end(body);
    else enqueue({ res, body, part: 0, start: 0, failed }, false);
  } else if (bytes > sliceBytes) enqueue({ res, body: body.parts, part: 0, start: 0, failed }, false);
  else {
    // A small body of parts is one slice: a view of its one part, or its parts copied into a spare buffer.
    const { slice, buffer } = partsSlice({ res, body: body.parts, part: 0, start: 0, failed }, body.parts);
    if (buffer) res.end(slice, giveBack(buffer));
    else res.end(slice);
  }
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

/**
 * Slice buffers the socket has taken the bytes of, for the next slices. Copying every slice into
 * a buffer of its own (with an array of the pieces to copy) allocated a LIST's whole size again
 * outside the JavaScript heap, which V8 weighs when it decides to collect: under a flood of LISTs
 * the collections ran about twice as often, and a fresh server ran full ones every few hundred
 * milliseconds, whose pauses every other request waited behind. A buffer comes back here once its
 * write is done (the socket no longer reads it); at most {@link spareLimit} are kept.
 */
const spare: Buffer[] = [];

/** The most spare slice buffers kept (4 MiB at {@link sliceBytes} each). */
const spareLimit = 64;

/** A slice and, when it was copied into a buffer of {@link spare}, that buffer. */
interface Slice {
  readonly slice: string | Uint8Array;
  readonly buffer: Buffer | undefined;
  readonly last: boolean;
}

/**
 * The next slice of a body of parts: the rest of the current part and the parts after it, up to
 * {@link sliceBytes} (a part larger than that is cut); moves `slicing` past it. A slice within
 * one part is a view of it; one spanning parts is copied into a spare buffer.
 */
function partsSlice(slicing: Slicing, parts: readonly Uint8Array[]): Slice {
  const part = parts[slicing.part];
  if (part === undefined) return { slice: new Uint8Array(0), buffer: undefined, last: true };
  const rest = part.byteLength - slicing.start;
  if (rest >= sliceBytes || slicing.part === parts.length - 1) {
    const take = Math.min(rest, sliceBytes);
    const slice = slicing.start === 0 && take === part.byteLength ? part : part.subarray(slicing.start, slicing.start + take);
    slicing.start += take;
    if (slicing.start >= part.byteLength) {
      slicing.part++;
      slicing.start = 0;
    }
    return { slice, buffer: undefined, last: slicing.part >= parts.length };
  }
  const buffer = spare.pop() ?? Buffer.allocUnsafeSlow(sliceBytes);
  let size = 0;
  while (size < sliceBytes && slicing.part < parts.length) {
    const part = parts[slicing.part] as Uint8Array;
    const take = Math.min(part.byteLength - slicing.start, sliceBytes - size);
    buffer.set(slicing.start === 0 && take === part.byteLength ? part : part.subarray(slicing.start, slicing.start + take), size);
    size += take;
    slicing.start += take;
    if (slicing.start >= part.byteLength) {
      slicing.part++;
      slicing.start = 0;
    }
  }
  return { slice: size === sliceBytes ? buffer : buffer.subarray(0, size), buffer, last: slicing.part >= parts.length };
}

/** The next slice of `slicing`'s body, and whether it is the last. */
function nextSlice(slicing: Slicing): Slice {
  const { body, start } = slicing;
  if (typeof body !== "string" && !(body instanceof Uint8Array)) return partsSlice(slicing, body);
  const end = sliceEnd(body, start);
  slicing.start = end;
  return { slice: typeof body === "string" ? body.slice(start, end) : body.subarray(start, end), buffer: undefined, last: end >= body.length };
}

/** A callback that puts `buffer` back among the spare ones once its write is done without an error. */
function giveBack(buffer: Buffer): (error?: Error | null) => void {
  return (error) => {
    if (!error && spare.length < spareLimit) spare.push(buffer);
  };
}

function writeSlice(slicing: Slicing): void {
  const res = slicing.res;
  try {
    // The client went away: 'close' was emitted, nothing more to write.
    if (res.destroyed) return;
    const { slice, buffer, last } = nextSlice(slicing);
    // A copied slice's buffer is given back once the socket took its bytes ('finish' of the
    // response for the last one); a response whose client went away keeps it, for the collector.
    const written = buffer ? giveBack(buffer) : undefined;
    if (last) {
      if (written) res.end(slice, written);
      else res.end(slice);
    } else if (written ? res.write(slice, written) : res.write(slice)) enqueue(slicing, true);
    // Taken once the socket took the bytes: often in this very turn, the kernel taking them at
    // once; the next slice still waits for a turn of its own.
    else res.once("drain", () => enqueue(slicing, true));
  } catch {
    slicing.failed(res);
  }
}
