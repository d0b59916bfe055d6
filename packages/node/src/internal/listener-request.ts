/**
 * The `APIRequest` the request listener hands the server. Its `signal` is made on first read,
 * as most requests never ask for one, and read through a getter on the class rather than one
 * written into each request's object literal: V8 gives an object literal whose getter is a new
 * closure each time a hidden class of its own, allocated in the old generation, and that class
 * holds the closure and so the request and response it closes over. Every request's objects then
 * outlived the young generation's collections and were only freed by full ones, which cost a
 * served GET about a third of its CPU time.
 * @module
 */
import type { ServerResponse } from "node:http";
import type { APIRequest } from "@orch/server";

/** One request as the listener passes it to `server.handle`. */
export class ListenerRequest implements APIRequest {
  /** The request method. */
  method: string;
  /** The path with its query, the base path taken off. */
  url: string;
  /** The request headers. */
  headers: Headers;
  /** The whole body, when there is one. */
  declare body?: Uint8Array;
  /** The TLS client certificate chain, when the client sent one. */
  declare peerCertificates?: readonly Uint8Array[];
  /** The peer's address. */
  declare remoteAddress?: string;
  readonly #res: ServerResponse;
  #abort: AbortController | undefined;

  /** A request answered on `res`: its signal aborts when `res` closes before it finished. */
  constructor(method: string, url: string, headers: Headers, res: ServerResponse) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.#res = res;
    this.#abort = undefined;
  }

  /** Calls `callback` once the response is written, or once the client went away (its `close`). */
  whenWritten(callback: () => void): void {
    const res = this.#res;
    if (res.destroyed) callback();
    else res.once("close", callback);
  }

  /** Aborted when the client goes away before the response finished. */
  get signal(): AbortSignal {
    return ListenerRequest.controller(this).signal;
  }

  /**
   * The controller of `request`'s signal, made (with one `close` listener on the response) the
   * first time it is asked for; the listener aborts it when it ends a stream.
   */
  static controller(request: ListenerRequest): AbortController {
    if (request.#abort) return request.#abort;
    const made = new AbortController();
    request.#abort = made;
    const res = request.#res;
    // A response closed before it finished: the client went away.
    if (res.destroyed && !res.writableFinished) made.abort();
    else
      res.once("close", () => {
        if (!res.writableFinished) made.abort();
      });
    return made;
  }
}
