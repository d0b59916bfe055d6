/**
 * {@link Client} and {@link ResourceClient}: the verbs of the API (get, list, watch, create,
 * update, patch, delete, deletecollection) for one kind, over any {@link Transport}.
 *
 * Namespaces are passed per call, in the options (`{ namespace: "default" }`); a write of an
 * object takes the namespace from `metadata.namespace` when the options do not name one. A
 * namespaced call that needs one namespace and finds none throws a `TypeError`; a list or watch
 * without a namespace spans every namespace.
 * @module
 */
import { internalError, isFailureStatus, StatusError, statusCodes, type APIList, type APIObject, type Status, type StatusReason, type WatchEvent } from "@orch/meta";
import { untilAborted, utf8 } from "./internal/lines.js";
import { apiVersionOf, resourcePath, type ResourceRef } from "./resource-ref.js";
import { configMapsRef, eventsRef, leasesRef, namespacesRef, secretsRef } from "./builtin-refs.js";
import type { configMapV1Schema, eventV1Schema, leaseV1Schema, namespaceV1Schema, secretV1Schema } from "@orch/resources";
import type { SchemaObject } from "./schema-object.js";
import type { Transport, TransportResponse } from "./transport.js";

/** Options of {@link Client}. */
export interface ClientOptions {
  /** What carries the requests: {@link inProcessTransport} or {@link httpTransport}. */
  transport: Transport;
  /** The product domain that `{domain}` in a group stands for; `orch.io` by default. */
  domain?: string;
  /**
   * Sent as `User-Agent` (`orch-client` by default). The server derives the default field
   * manager from it, up to its first `/`.
   */
  userAgent?: string;
  /** Called with the text of every `Warning` header the server sends (deprecations, dropped fields). */
  onWarning?: (warning: string) => void;
}

/** A namespace, for namespaced kinds. */
export interface NamespaceOptions {
  /** The namespace; ignored for cluster-scoped kinds. */
  namespace?: string;
}

/** Options of {@link ResourceClient.get}. */
export interface GetOptions extends NamespaceOptions {
  /** `"0"` allows any cached version; absent reads the latest. */
  resourceVersion?: string;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** Selectors of a list, watch or deletecollection. */
export interface SelectorOptions extends NamespaceOptions {
  /** `app=web,tier!=db`, `env in (a,b)`, ... */
  labelSelector?: string;
  /** `metadata.name=a`, `status.phase!=Active`, ... */
  fieldSelector?: string;
}

/** Options of {@link ResourceClient.list}. */
export interface ListOptions extends SelectorOptions {
  /** At most this many items per response; the rest is behind `metadata.continue`. */
  limit?: number;
  /** The `metadata.continue` of the previous page. */
  continue?: string;
  /** Read at (or not older than) this version: `"0"` for any cached version. */
  resourceVersion?: string;
  /** How {@link ListOptions.resourceVersion} is read. */
  resourceVersionMatch?: "Exact" | "NotOlderThan";
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** Options of {@link ResourceClient.watch}. */
export interface WatchOptions extends SelectorOptions {
  /** Changes after this version; absent starts with synthetic `ADDED` events for what exists. */
  resourceVersion?: string;
  /** Ask for `BOOKMARK` events, which carry only a newer resourceVersion. */
  allowWatchBookmarks?: boolean;
  /** The server ends the stream after this many seconds. */
  timeoutSeconds?: number;
  /** Send the current state as `ADDED` events first (with `resourceVersionMatch=NotOlderThan`). */
  sendInitialEvents?: boolean;
  /** Aborting it ends the iteration (cleanly, without an error). */
  signal?: AbortSignal;
}

/** `fieldValidation` of a write: what the server does with unknown or duplicate fields. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/** Options of create, update and patch. */
export interface WriteOptions extends NamespaceOptions {
  /** Run the whole pipeline and answer as usual, but persist nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** Who makes the change, for `managedFields`. */
  fieldManager?: string;
  /** What to do with unknown or duplicate fields (`Warn` on the server by default). */
  fieldValidation?: FieldValidation;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** Options of {@link ResourceClient.update}. */
export interface UpdateOptions extends WriteOptions {
  /** Write a sub-resource (`status`, `finalize`) instead of the object. */
  subresource?: string;
}

/** The patch formats: JSON merge patch, JSON patch, strategic merge patch, server-side apply. */
export type PatchType = "merge" | "json" | "strategic" | "apply";

/** Options of {@link ResourceClient.patch}. */
export interface PatchOptions extends WriteOptions {
  /** Apply only: take over fields other managers own instead of failing with a conflict. */
  force?: boolean;
  /** Patch a sub-resource (`status`) instead of the object. */
  subresource?: string;
}

/** Options of {@link ResourceClient.delete}, sent as a `DeleteOptions` body. */
export interface DeleteOptions extends NamespaceOptions {
  /** `Background` on the server by default. */
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  /** Seconds before the object is deleted; 0 is now. */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid and/or resourceVersion (else 409). */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Run the deletion without persisting it. */
  dryRun?: boolean;
  /** Cancels the request. */
  signal?: AbortSignal;
}

/** Options of {@link ResourceClient.deleteCollection}. */
export interface DeleteCollectionOptions extends DeleteOptions, SelectorOptions {}

/** The media type of each {@link PatchType}. */
export const patchContentTypes: Readonly<Record<PatchType, string>> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

const reasonByCode = new Map<number, StatusReason>(
  (Object.entries(statusCodes) as [StatusReason, number][]).filter(([r]) => r !== "AlreadyExists" && r !== "Expired").map(([r, c]) => [c, r]),
);

/**
 * The error of a non-2xx response: the server's own Status when the body is one, else a Status
 * made from the HTTP code (reason from the code, or `InternalError`), with the body as message.
 */
export function responseError(code: number, body: string): StatusError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (isFailureStatus(parsed)) return new StatusError(parsed);
  const reason = reasonByCode.get(code) ?? "InternalError";
  const text = body.trim();
  const message = text ? `the server responded with HTTP ${code}: ${text.slice(0, 1024)}` : `the server responded with HTTP ${code}`;
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
  return new StatusError(status);
}

function warningsOf(header: string | null): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const m of header.matchAll(/\d{3}\s+\S+\s+"((?:[^"\\]|\\.)*)"/g)) out.push((m[1] ?? "").replace(/\\(.)/g, "$1"));
  return out;
}

/** One raw request of {@link Client.send} and {@link Client.call}. */
export interface ClientRequest {
  /** `GET`, `POST`, `PUT`, `PATCH` or `DELETE`. */
  method: string;
  /** The absolute, percent-encoded path without a query. */
  path: string;
  /** Query parameters. */
  query?: URLSearchParams;
  /** JSON-encoded unless it is a `Uint8Array` or a string (sent as is). */
  body?: unknown;
  /** `Content-Type` of the body; `application/json` by default. */
  contentType?: string;
  /** `Accept`; `application/json` by default. */
  accept?: string;
  /** Cancels the request. */
  signal?: AbortSignal | undefined;
}

/**
 * An API client over one {@link Transport}. Get a {@link ResourceClient} for a kind with
 * {@link Client.resource} (or use a typed accessor such as {@link Client.configMaps}).
 * Namespaces go in each call's options (`{ namespace: "default" }`); writes of an object fall
 * back to its `metadata.namespace`.
 *
 * @example
 * const client = new Client({ transport: inProcessTransport(server) });
 * const cm = await client.resource(configMaps).get("settings", { namespace: "default" });
 */
export class Client {
  /** The product domain `{domain}` in groups stands for. */
  readonly domain: string;
  readonly #transport: Transport;
  readonly #userAgent: string;
  readonly #onWarning: ((warning: string) => void) | undefined;

  constructor(options: ClientOptions) {
    this.#transport = options.transport;
    this.domain = options.domain ?? "orch.io";
    this.#userAgent = options.userAgent ?? "orch-client";
    this.#onWarning = options.onWarning;
  }

  /** ConfigMaps (core `v1`, namespaced). */
  get configMaps(): ResourceClient<SchemaObject<typeof configMapV1Schema>> {
    return this.resource(configMapsRef);
  }

  /** Secrets (core `v1`, namespaced). */
  get secrets(): ResourceClient<SchemaObject<typeof secretV1Schema>> {
    return this.resource(secretsRef);
  }

  /** Namespaces (core `v1`, cluster-scoped). */
  get namespaces(): ResourceClient<SchemaObject<typeof namespaceV1Schema>> {
    return this.resource(namespacesRef);
  }

  /** Events (core `v1`, namespaced). */
  get events(): ResourceClient<SchemaObject<typeof eventV1Schema>> {
    return this.resource(eventsRef);
  }

  /** Leases (`coordination.<domain>/v1`, namespaced). */
  get leases(): ResourceClient<SchemaObject<typeof leaseV1Schema>> {
    return this.resource(leasesRef);
  }

  /** A client for the kind at `ref`; `T` is the object type the caller expects. */
  resource<T extends APIObject = APIObject>(ref: ResourceRef): ResourceClient<T> {
    return new ResourceClient<T>(this, ref);
  }

  /**
   * Sends one request and returns the raw response, with warnings reported. The escape hatch for
   * paths no {@link ResourceClient} covers (`/version`, discovery). The body is JSON-encoded
   * unless it is a `Uint8Array` or a string.
   */
  async send(call: ClientRequest): Promise<TransportResponse> {
    const headers: Record<string, string> = { Accept: call.accept ?? "application/json", "User-Agent": this.#userAgent };
    let body: Uint8Array | undefined;
    if (call.body !== undefined) {
      body = call.body instanceof Uint8Array ? call.body : utf8(typeof call.body === "string" ? call.body : JSON.stringify(call.body));
      headers["Content-Type"] = call.contentType ?? "application/json";
    }
    const req: Parameters<Transport["request"]>[0] = { method: call.method, path: call.path, headers };
    if (call.query && call.query.toString() !== "") req.query = call.query;
    if (body) req.body = body;
    if (call.signal) req.signal = call.signal;
    const res = await this.#transport.request(req);
    if (this.#onWarning) for (const w of warningsOf(res.headers.get("warning"))) this.#onWarning(w);
    return res;
  }

  /** Sends a request and decodes the JSON answer; a non-2xx answer throws its `StatusError`. */
  async call<R>(call: ClientRequest): Promise<R> {
    const res = await this.send(call);
    const text = await res.text();
    if (res.status < 200 || res.status > 299) throw responseError(res.status, text);
    try {
      return JSON.parse(text) as R;
    } catch (cause) {
      throw internalError(`the server sent a body that is not JSON (HTTP ${res.status})`, cause);
    }
  }
}

/** Sets `key` unless `value` is absent or the empty string (which the server reads as absent). */
function setIf(query: URLSearchParams, key: string, value: string | number | boolean | undefined): void {
  if (value !== undefined && value !== "") query.set(key, String(value));
}

function writeQuery(opts: WriteOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (opts.dryRun) query.set("dryRun", "All");
  setIf(query, "fieldManager", opts.fieldManager);
  setIf(query, "fieldValidation", opts.fieldValidation);
  return query;
}

function selectorQuery(opts: SelectorOptions): URLSearchParams {
  const query = new URLSearchParams();
  setIf(query, "labelSelector", opts.labelSelector);
  setIf(query, "fieldSelector", opts.fieldSelector);
  return query;
}

function deleteBody(opts: DeleteOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: "DeleteOptions", apiVersion: "v1" };
  if (opts.propagationPolicy !== undefined) body["propagationPolicy"] = opts.propagationPolicy;
  if (opts.gracePeriodSeconds !== undefined) body["gracePeriodSeconds"] = opts.gracePeriodSeconds;
  if (opts.preconditions !== undefined) body["preconditions"] = opts.preconditions;
  if (opts.dryRun) body["dryRun"] = ["All"];
  return body;
}

/**
 * The verbs for one kind. Every method throws the server's `StatusError` on a non-2xx answer
 * (`isNotFound(e)`, `isConflict(e)`, ... from `@orch/meta` read it).
 */
export class ResourceClient<T extends APIObject = APIObject> {
  /** The client requests go through. */
  readonly client: Client;
  /** Where the kind is served. */
  readonly ref: ResourceRef;

  /** Use {@link Client.resource}. */
  constructor(client: Client, ref: ResourceRef) {
    this.client = client;
    this.ref = ref;
  }

  /** The `apiVersion` of this kind, with the domain resolved. */
  get apiVersion(): string {
    return apiVersionOf(this.ref, this.client.domain);
  }

  #namespace(opts: NamespaceOptions, object?: APIObject): string | undefined {
    if (!this.ref.namespaced) return undefined;
    const ns = opts.namespace ?? object?.metadata.namespace;
    if (ns === undefined || ns === "") throw new TypeError(`${this.ref.resource} is namespaced: pass a namespace`);
    return ns;
  }

  #nameOf(object: APIObject): string {
    const name = object.metadata.name;
    if (!name) throw new TypeError(`the ${this.ref.kind} has no metadata.name`);
    return name;
  }

  #path(namespace: string | undefined, name?: string, subresource?: string): string {
    return resourcePath(this.ref, this.client.domain, { namespace, name, subresource });
  }

  #typed(object: T): T {
    if (object.apiVersion !== undefined && object.kind !== undefined) return object;
    return { ...object, apiVersion: object.apiVersion ?? this.apiVersion, kind: object.kind ?? this.ref.kind };
  }

  /** One object by name. */
  get(name: string, opts: GetOptions = {}): Promise<T> {
    const query = new URLSearchParams();
    setIf(query, "resourceVersion", opts.resourceVersion);
    return this.client.call<T>({ method: "GET", path: this.#path(this.#namespace(opts), name), query, signal: opts.signal });
  }

  /** One page of the collection (every namespace when no namespace is given). */
  list(opts: ListOptions = {}): Promise<APIList<T>> {
    const query = selectorQuery(opts);
    setIf(query, "limit", opts.limit);
    setIf(query, "continue", opts.continue);
    setIf(query, "resourceVersion", opts.resourceVersion);
    setIf(query, "resourceVersionMatch", opts.resourceVersionMatch);
    const ns = this.ref.namespaced ? opts.namespace : undefined;
    return this.client.call<APIList<T>>({ method: "GET", path: this.#path(ns), query, signal: opts.signal });
  }

  /**
   * The whole collection, following `metadata.continue` page by page (`limit` is the page size).
   * The answer carries the items of every page and the resourceVersion of the first.
   */
  async listAll(opts: Omit<ListOptions, "continue"> = {}): Promise<APIList<T>> {
    const first = await this.list(opts);
    const items = [...first.items];
    let token = first.metadata.continue;
    while (token) {
      // Later pages are read at the first page's version, carried in the token.
      const { resourceVersion: _rv, resourceVersionMatch: _m, ...rest } = opts;
      const page = await this.list({ ...rest, continue: token });
      items.push(...page.items);
      token = page.metadata.continue;
    }
    const metadata = { ...first.metadata };
    delete metadata.continue;
    delete metadata.remainingItemCount;
    return { ...first, metadata, items };
  }

  /**
   * Watches the collection (or one object, with `fieldSelector: "metadata.name=<n>"`). The
   * request is sent when iteration starts; a non-2xx answer throws its `StatusError` from the
   * first `next()`. An `ERROR` event (such as 410 `Expired`) is yielded as it came. The iteration
   * ends when the server ends the stream or `signal` aborts; leaving a `for await` early closes
   * the stream.
   */
  watch(opts: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    return this.#watch(opts);
  }

  async *#watch(opts: WatchOptions): AsyncGenerator<WatchEvent<T>, void, undefined> {
    const outer = opts.signal;
    if (outer?.aborted) return;
    const controller = new AbortController();
    const onAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener("abort", onAbort, { once: true });
    try {
      const query = selectorQuery(opts);
      query.set("watch", "true");
      setIf(query, "resourceVersion", opts.resourceVersion);
      if (opts.allowWatchBookmarks) query.set("allowWatchBookmarks", "true");
      setIf(query, "timeoutSeconds", opts.timeoutSeconds);
      if (opts.sendInitialEvents !== undefined) {
        query.set("sendInitialEvents", String(opts.sendInitialEvents));
        if (opts.sendInitialEvents) query.set("resourceVersionMatch", "NotOlderThan");
      }
      const ns = this.ref.namespaced ? opts.namespace : undefined;
      let res: TransportResponse;
      try {
        res = await this.client.send({ method: "GET", path: this.#path(ns), query, signal: controller.signal });
      } catch (error) {
        if (controller.signal.aborted) return;
        throw error;
      }
      if (res.status < 200 || res.status > 299) throw responseError(res.status, await res.text());
      for await (const line of untilAborted(res.lines(), controller.signal)) {
        let event: WatchEvent<T>;
        try {
          event = JSON.parse(line) as WatchEvent<T>;
        } catch (cause) {
          throw internalError(`the watch stream carried a line that is not JSON`, cause);
        }
        yield event;
      }
    } finally {
      outer?.removeEventListener("abort", onAbort);
      controller.abort();
    }
  }

  /**
   * Creates `object` (`apiVersion` and `kind` are filled in when missing). The namespace is
   * `opts.namespace`, else `object.metadata.namespace`.
   */
  create(object: T, opts: WriteOptions = {}): Promise<T> {
    const ns = this.#namespace(opts, object);
    return this.client.call<T>({ method: "POST", path: this.#path(ns), query: writeQuery(opts), body: this.#typed(object), signal: opts.signal });
  }

  /**
   * Replaces `object` (PUT). With `metadata.resourceVersion` it is a compare-and-swap (409
   * `Conflict` when the object changed since); without, an unconditional update.
   */
  update(object: T, opts: UpdateOptions = {}): Promise<T> {
    const ns = this.#namespace(opts, object);
    const path = this.#path(ns, this.#nameOf(object), opts.subresource);
    return this.client.call<T>({ method: "PUT", path, query: writeQuery(opts), body: this.#typed(object), signal: opts.signal });
  }

  /** Replaces the status of `object` through the `status` sub-resource. */
  updateStatus(object: T, opts: WriteOptions = {}): Promise<T> {
    return this.update(object, { ...opts, subresource: "status" });
  }

  /**
   * Patches the object `name`. `patch` is a partial object for `merge` and `strategic`, an array
   * of operations for `json`, and the fields the manager owns for `apply` (`apiVersion` and
   * `kind` are filled in when missing; `fieldManager` defaults to `orch-client` for apply, which
   * the server requires).
   */
  patch(name: string, patch: unknown, type: PatchType, opts: PatchOptions = {}): Promise<T> {
    const ns = this.#namespace(opts);
    const query = writeQuery(opts);
    let body = patch;
    if (type === "apply") {
      if (!query.has("fieldManager")) query.set("fieldManager", "orch-client");
      if (opts.force) query.set("force", "true");
      if (typeof patch === "object" && patch !== null && !Array.isArray(patch)) {
        const p = patch as Record<string, unknown>;
        body = { ...p, apiVersion: p["apiVersion"] ?? this.apiVersion, kind: p["kind"] ?? this.ref.kind };
      }
    }
    const path = this.#path(ns, name, opts.subresource);
    return this.client.call<T>({ method: "PATCH", path, query, body, contentType: patchContentTypes[type], signal: opts.signal });
  }

  /**
   * Deletes the object `name`. Answers as the server did: the object (still there with a
   * `deletionTimestamp` while finalizers hold it, or as deleted for some kinds), or a Success
   * Status.
   */
  delete(name: string, opts: DeleteOptions = {}): Promise<T | Status> {
    const ns = this.#namespace(opts);
    const query = new URLSearchParams();
    if (opts.dryRun) query.set("dryRun", "All");
    return this.client.call<T | Status>({ method: "DELETE", path: this.#path(ns, name), query, body: deleteBody(opts), signal: opts.signal });
  }

  /** Deletes every object the selectors match (in one namespace, or every one). */
  deleteCollection(opts: DeleteCollectionOptions = {}): Promise<APIList<T> | Status> {
    const ns = this.ref.namespaced ? opts.namespace : undefined;
    const query = selectorQuery(opts);
    if (opts.dryRun) query.set("dryRun", "All");
    return this.client.call<APIList<T> | Status>({ method: "DELETE", path: this.#path(ns), query, body: deleteBody(opts), signal: opts.signal });
  }
}
