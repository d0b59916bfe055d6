/**
 * The fetch adapter of `APIServer`: a web-standard `Request` in, a `Response` out, for
 * fetch-style frameworks (Hono, ...) and runtimes that serve `fetch` handlers.
 * @module
 */
import { badRequest, internalError, requestEntityTooLarge } from "@orch/meta";
import type { APIRequest, APIResponse } from "./api-request.js";
import { normalizeBasePath, outsideBasePath, stripBasePath } from "./base-path.js";
import { concatenatedParts, errorResponse } from "./responses.js";

/** Options of `APIServer.fetch`. */
export interface FetchOptions {
  /**
   * The path prefix the API is mounted under, e.g. `"/k8s"`: `/k8s/api/v1/namespaces` is served
   * as `/api/v1/namespaces`, and a path outside the prefix (`/other`, `/k8sx/api`) is a 404
   * Status. Clients put the prefix in their server URL (`server: https://host:port/k8s` in a
   * kubeconfig). None by default.
   * @throws TypeError (a rejection) when it does not start with `/`, or holds `?`, `#` or `//`.
   */
  basePath?: string;
}

/** What the adapter needs of a server: `APIServer` has this shape. */
export interface FetchTarget {
  /** Serves one request. */
  handle(request: APIRequest): Promise<APIResponse>;
  /** Largest accepted request body in bytes; a larger one gets 413 without being buffered. */
  readonly maxRequestBodyBytes: number;
}

/** The 500 of a `Request` whose body something else read first: a server set-up mistake, not bad input. */
function consumedBody(): Error {
  return internalError(
    "the request body was consumed by an earlier middleware before orch could read it; " +
      "mount orch before middleware that reads bodies, or hand it an unread Request (in Hono: cloneRawRequest(c.req))",
  );
}

/** Reads the body of `request` up to `limit` bytes: `"tooLarge"` as soon as it is known to exceed it. */
async function readRequestBody(request: Request, limit: number): Promise<Uint8Array | undefined | "tooLarge"> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) return "tooLarge";
  if (request.bodyUsed) throw consumedBody();
  const stream = request.body;
  if (!stream) return undefined;
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        reader.cancel().catch(() => undefined);
        return "tooLarge";
      }
      chunks.push(value);
    }
  } catch (error) {
    throw badRequest(`the request body could not be read: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    reader.releaseLock();
  }
  if (total === 0) return undefined;
  if (chunks.length === 1) return chunks[0];
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

function toResponse(res: APIResponse, head: boolean): Response {
  if (head) return new Response(null, { status: res.status, headers: res.headers });
  // A body of parts (a LIST) is copied once into one array of bytes, never joined as text.
  if (res.bodyParts) return new Response(concatenatedParts(res.bodyParts), { status: res.status, headers: res.headers });
  const body = res.body === undefined ? null : typeof res.body === "string" ? res.body : new Uint8Array(res.body);
  return new Response(body, { status: res.status, headers: res.headers });
}

/**
 * A watch stream as a `ReadableStream`: one chunk per event, pulled as the client reads.
 * Cancelling it (the client went away) aborts the request's signal and ends the iterator.
 */
function toStream(stream: AsyncIterable<string>, abort: () => void): ReadableStream<Uint8Array> {
  const iterator = stream[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch {
        // The stream failed mid-way: the status line is gone, so all we can do is end it.
        controller.close();
      }
    },
    cancel() {
      abort();
      // Not awaited: an async generator suspended in an await only returns once that settles.
      Promise.resolve(iterator.return?.()).catch(() => undefined);
    },
  });
}

/**
 * The `APIRequest` of one fetch request. Its `signal` (following the `Request`'s own) is made on
 * first read, as most requests never ask for one, through a getter on the class: an object
 * literal with a getter closure per request gets a hidden class of its own, which keeps the
 * request alive past the young generation's collections.
 */
class FetchAPIRequest implements APIRequest {
  method: string;
  url: string;
  headers: Headers;
  declare body?: Uint8Array;
  readonly #outer: AbortSignal;
  #abort: AbortController | undefined = undefined;

  constructor(method: string, url: string, headers: Headers, outer: AbortSignal) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.#outer = outer;
  }

  get signal(): AbortSignal {
    if (!this.#abort) {
      const own = new AbortController();
      this.#abort = own;
      const outer = this.#outer;
      if (outer.aborted) own.abort(outer.reason);
      else outer.addEventListener("abort", () => own.abort(outer.reason), { once: true });
    }
    return this.#abort.signal;
  }

  /** Aborts the signal, if one was made (the response's stream was cancelled). */
  abort(): void {
    this.#abort?.abort();
  }
}

/**
 * Serves one web-standard `Request` with `server`: reads the body up to
 * `server.maxRequestBodyBytes` (413 past it, without buffering more), takes `options.basePath`
 * off the path, and streams a watch as a `ReadableStream` flushed event by event. The request's
 * `signal` ends a watch when it aborts, as does cancelling the response body. A `Request` whose
 * body was already read is a 500 Status saying so. Never rejects for a request; only for a bad
 * `basePath`.
 */
export async function serveFetch(server: FetchTarget, request: Request, options: FetchOptions = {}): Promise<Response> {
  const basePath = normalizeBasePath(options.basePath);
  const head = request.method === "HEAD";
  const url = new URL(request.url);
  const path = stripBasePath(url.pathname + url.search, basePath);
  if (path === undefined) return toResponse(outsideBasePath(), head);

  let res: APIResponse;
  let apiRequest: FetchAPIRequest | undefined;
  try {
    const read = await readRequestBody(request, server.maxRequestBodyBytes);
    if (read === "tooLarge") return toResponse(errorResponse(requestEntityTooLarge(`limit is ${server.maxRequestBodyBytes}`)), head);
    // A copy of the headers: the pipeline removes credentials from them, and a `Request`'s own
    // headers may be immutable.
    apiRequest = new FetchAPIRequest(request.method, path, new Headers(request.headers), request.signal);
    if (read) apiRequest.body = read;
    res = await server.handle(apiRequest);
  } catch (error) {
    res = errorResponse(error);
  }
  if (!res.stream) return toResponse(res, head);
  if (head) {
    Promise.resolve(res.stream[Symbol.asyncIterator]().return?.()).catch(() => undefined);
    return toResponse(res, head);
  }
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(
    toStream(res.stream, () => apiRequest?.abort()),
    { status: res.status, headers },
  );
}
