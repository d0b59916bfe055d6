/**
 * The `Transport` port: the one seam between {@link Client} and whatever carries its requests,
 * an in-process `APIServer` ({@link inProcessTransport}) or HTTP ({@link httpTransport}).
 * @module
 */

/** One request as the client hands it to a transport. */
export interface TransportRequest {
  /** `GET`, `POST`, `PUT`, `PATCH` or `DELETE`. */
  method: string;
  /** The absolute path without a query, already percent-encoded: `/api/v1/namespaces/a%20b/configmaps`. */
  path: string;
  /** Query parameters; absent or empty for none. */
  query?: URLSearchParams;
  /** Request headers (`Content-Type`, `Accept`, ...); names are case-insensitive. */
  headers?: Record<string, string>;
  /** The encoded body: the client serialises JSON itself before it calls the transport. */
  body?: Uint8Array;
  /** Aborting it cancels the request, and ends a watch stream. */
  signal?: AbortSignal;
}

/**
 * One response. Read it once, either whole with {@link TransportResponse.text} or line by line
 * with {@link TransportResponse.lines} (a watch stream).
 */
export interface TransportResponse {
  /** The HTTP status code. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** The whole body as text (the concatenated stream, for a streamed response). */
  text(): Promise<string>;
  /**
   * The body split into lines without their `\n`; empty lines are skipped. Ends when the
   * stream ends or the request's signal aborts.
   */
  lines(): AsyncIterable<string>;
}

/** Carries requests to an API server: implement it to put the client on another channel. */
export interface Transport {
  /**
   * Sends one request. Rejects only when no answer came (network failure, abort); an HTTP error
   * status is a normal response that the client turns into a `StatusError`.
   */
  request(request: TransportRequest): Promise<TransportResponse>;
}
