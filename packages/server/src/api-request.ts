/**
 * The framework-neutral request and response of `APIServer.handle`: an adapter (`@orch/node`,
 * the fetch handler, a test) turns its own request into an {@link APIRequest} and writes the
 * {@link APIResponse} back.
 * @module
 */

import type { UserInfo } from "@orch/authn";

export type { UserInfo };

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
  /**
   * The TLS client certificate chain as the client sent it (DER, leaf first), unverified: the
   * server's authenticators verify it. Set by the HTTP adapter.
   */
  peerCertificates?: readonly Uint8Array[];
  /**
   * Who makes the request, set only by a trusted in-process caller (the in-process client's
   * `user`): the authentication stage keeps it and authenticates nothing. HTTP adapters never
   * set it; the authentication stage sets it for every other request.
   */
  user?: UserInfo;
  /** Aborted when the client goes away; ends watches. */
  signal?: AbortSignal;
  /**
   * The address of the peer the request came from (`127.0.0.1`, `::1`), as the HTTP adapter
   * saw the connection; the last of the audit event's `sourceIPs`.
   */
  remoteAddress?: string;
  /**
   * The annotations of the request's audit event, when it is audited: the audit stage sets an
   * empty map, and the authorization stage, admission and the REST handlers add to it. Adapters
   * leave it unset.
   */
  auditAnnotations?: Record<string, string>;
  /**
   * The name a create gives its object in the body, set by the create handler once it has
   * decoded the body (as the reference's handler fills the audit event's `objectRef.name`), so
   * that the audit stage need not parse the body itself. Adapters leave it unset.
   */
  auditObjectName?: string;
  /**
   * Set by an adapter that writes a response's body after `handle` resolves (the Node adapter
   * writes a large body in slices, over several turns of its event loop): calls `callback` once
   * the response to this request is written, or once the client went away. Flow control then
   * holds the seats of a request whose answer is large until its body is out, as the
   * reference's does (its handler returns once the body is written), which bounds how many
   * large bodies are being written at once. Without it, seats are given back when `handle`
   * resolves.
   */
  whenWritten?(callback: () => void): void;
}

/** One HTTP response: a complete body, or a stream of chunks to flush one by one (watch). */
export interface APIResponse {
  status: number;
  headers: Headers;
  /** The complete body. */
  body?: Uint8Array | string;
  /**
   * The complete body as UTF-8 parts to write one after the other, never joined into one string
   * (a JSON LIST: its framing and each item's cached bytes). When set, an adapter writes these
   * and `byteLength` is the body's length; `body` is then the same bytes as text, joined only
   * when something reads it. Setting `body` drops the parts.
   */
  bodyParts?: { readonly parts: readonly Uint8Array[]; readonly byteLength: number };
  /** A watch stream: each chunk is one `\n`-terminated JSON document, flushed as it comes. */
  stream?: AsyncIterable<string>;
}
