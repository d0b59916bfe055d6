/**
 * The framework-neutral request and response of `APIServer.handle`: an adapter (`@orch/node`,
 * the fetch handler, a test) turns its own request into an {@link APIRequest} and writes the
 * {@link APIResponse} back.
 * @module
 */

/** Who made the request, as authentication found. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** One HTTP request, already read. */
export interface APIRequest {
  /** `GET`, `POST`, `PUT`, `PATCH`, `DELETE`, `HEAD`, `OPTIONS`. */
  method: string;
  /** The path with its query: `/api/v1/namespaces/default/configmaps?limit=10`. */
  url: string;
  /** Request headers (web-standard `Headers`: case-insensitive). */
  headers: Headers;
  /** The whole body; the adapter enforces the size limit before reading past it. */
  body?: Uint8Array;
  /** The authenticated user, when the adapter authenticated the request (client certificate). */
  user?: UserInfo;
  /** Aborted when the client goes away; ends watches. */
  signal?: AbortSignal;
}

/** One HTTP response: a complete body, or a stream of chunks to flush one by one (watch). */
export interface APIResponse {
  status: number;
  headers: Headers;
  /** The complete body. */
  body?: Uint8Array | string;
  /** A watch stream: each chunk is one `\n`-terminated JSON document, flushed as it comes. */
  stream?: AsyncIterable<string>;
}
