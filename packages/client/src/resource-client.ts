/**
 * {@link ResourceClient}: the verbs of the API (get, list, watch, create, update, patch, delete,
 * deletecollection) for one kind, its `status`, and calls to any other sub-resource
 * ({@link ResourceClient.subresource}).
 *
 * Namespaces are passed per call, in the options (`{ namespace: "default" }`); a write of an
 * object takes the namespace from `metadata.namespace` when the options do not name one. A
 * namespaced call that needs one namespace and finds none throws a `TypeError`; a list or watch
 * without a namespace spans every namespace.
 * @module
 */
import { internalError, type APIList, type APIObject, type Status, type WatchEvent } from "@orch/meta";
import type { scaleV1Schema } from "@orch/resources";
import type { Client } from "./client.js";
import { untilAborted } from "./internal/lines.js";
import { apiVersionOf, resolveGroup, resourcePath, type ResourceRef } from "./resource-ref.js";
import { responseError } from "./response-error.js";
import type { SchemaObject, SchemaOutput } from "./schema-object.js";
import type { TransportResponse } from "./transport.js";

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

/**
 * A schema answers can be checked against: a zod schema of `@orch/resources` (or of the
 * embedder), or anything with the same `safeParse`.
 */
export interface ObjectSchema {
  /** Checks `data`; `success` false (with the reason in `error`) when it does not match. */
  safeParse(data: unknown): { success: boolean; error?: unknown };
}

/** Options of a {@link ResourceClient} beyond its kind. */
export interface ResourceClientOptions {
  /**
   * Check every object the server answers (get, list items, watch events, writes) against this
   * schema; one that does not match throws a 500 `InternalError` StatusError naming the object.
   * Unset, answers are trusted as typed.
   */
  validate?: ObjectSchema;
}

/**
 * The calls to one sub-resource of one object, from {@link ResourceClient.subresource}. The
 * answer's type `R` is the caller's to name; nothing is filled into the bodies sent.
 */
export interface SubresourceClient {
  /** `GET <object>/<sub>`. */
  get<R = unknown>(opts?: GetOptions): Promise<R>;
  /** `POST <object>/<sub>` (the actions: `pods/binding`, `serviceaccounts/token`, ...). */
  create<R = unknown>(body: unknown, opts?: WriteOptions): Promise<R>;
  /** `PUT <object>/<sub>`. */
  update<R = unknown>(body: unknown, opts?: WriteOptions): Promise<R>;
  /** `PATCH <object>/<sub>` in the format `type` (apply's `fieldManager` defaults to `orch-client`). */
  patch<R = unknown>(patch: unknown, type: PatchType, opts?: Omit<PatchOptions, "subresource">): Promise<R>;
}

/** The `apiVersion` (with `{domain}` standing for the domain) and `kind` of an action's body. */
export interface ActionBodyType {
  /** `v1`, `policy/v1`, `authentication.{domain}/v1`. */
  apiVersion: string;
  /** `Binding`, `Eviction`, `TokenRequest`. */
  kind: string;
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

function metadataOf(body: unknown): { name?: unknown; namespace?: unknown } | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const metadata = (body as { metadata?: unknown }).metadata;
  return typeof metadata === "object" && metadata !== null ? metadata : undefined;
}

/**
 * The verbs for one kind. Every method throws the server's `StatusError` on a non-2xx answer
 * (`isNotFound(e)`, `isConflict(e)`, ... from `@orch/meta` read it). Kinds with sub-resources of
 * their own have a subclass with a method per sub-resource (`client.pods.bind`,
 * `client.serviceAccounts.createToken`); {@link ResourceClient.subresource} reaches any other.
 */
export class ResourceClient<T extends APIObject = APIObject> {
  /** The client requests go through. */
  readonly client: Client;
  /** Where the kind is served. */
  readonly ref: ResourceRef;
  readonly #schema: ObjectSchema | undefined;

  /** Use {@link Client.resource}, {@link Client.forType} or a typed accessor such as `client.pods`. */
  constructor(client: Client, ref: ResourceRef, options: ResourceClientOptions = {}) {
    this.client = client;
    this.ref = ref;
    this.#schema = options.validate;
  }

  /** The `apiVersion` of this kind, with the domain resolved. */
  get apiVersion(): string {
    return apiVersionOf(this.ref, this.client.domain);
  }

  #namespace(opts: NamespaceOptions, object?: unknown): string | undefined {
    if (!this.ref.namespaced) return undefined;
    const fromObject = metadataOf(object)?.namespace;
    const ns = opts.namespace ?? (typeof fromObject === "string" ? fromObject : undefined);
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

  /** `object` once checked against the schema of {@link ResourceClientOptions.validate}, if any. */
  #checked<O>(object: O): O {
    if (!this.#schema) return object;
    const result = this.#schema.safeParse(object);
    if (result.success) return object;
    const name = metadataOf(object)?.name;
    const detail = result.error instanceof Error ? `: ${result.error.message.slice(0, 1024)}` : "";
    throw internalError(
      `the server answered a ${this.ref.kind}${typeof name === "string" ? ` "${name}"` : ""} that does not match the client's schema${detail}`,
      result.error,
    );
  }

  #checkedItems(list: APIList<T>): APIList<T> {
    for (const item of list.items) this.#checked(item);
    return list;
  }

  /** `answer` once its object is checked; not `async`, so a missing namespace or name still throws at the call. */
  #checkedLater<O>(answer: Promise<O>, check: (answer: O) => O = (o) => this.#checked(o)): Promise<O> {
    return this.#schema ? answer.then(check) : answer;
  }

  #object(request: Parameters<Client["call"]>[0]): Promise<T> {
    return this.#checkedLater(this.client.call<T>(request));
  }

  #get<R>(name: string, subresource: string | undefined, opts: GetOptions): Promise<R> {
    const query = new URLSearchParams();
    setIf(query, "resourceVersion", opts.resourceVersion);
    return this.client.call<R>({ method: "GET", path: this.#path(this.#namespace(opts), name, subresource), query, signal: opts.signal });
  }

  #patch<R>(name: string, subresource: string | undefined, patch: unknown, type: PatchType, opts: Omit<PatchOptions, "subresource">): Promise<R> {
    const query = writeQuery(opts);
    if (type === "apply") {
      if (!query.has("fieldManager")) query.set("fieldManager", "orch-client");
      if (opts.force) query.set("force", "true");
    }
    const path = this.#path(this.#namespace(opts), name, subresource);
    return this.client.call<R>({ method: "PATCH", path, query, body: patch, contentType: patchContentTypes[type], signal: opts.signal });
  }

  #write<R>(method: "POST" | "PUT", name: string, subresource: string, body: unknown, opts: WriteOptions): Promise<R> {
    const path = this.#path(this.#namespace(opts, body), name, subresource);
    return this.client.call<R>({ method, path, query: writeQuery(opts), body, signal: opts.signal });
  }

  /** One object by name. */
  get(name: string, opts: GetOptions = {}): Promise<T> {
    return this.#checkedLater(this.#get<T>(name, undefined, opts));
  }

  /** The object `name` as its `status` sub-resource serves it (the whole object, read through `/status`). */
  getStatus(name: string, opts: GetOptions = {}): Promise<T> {
    return this.#checkedLater(this.#get<T>(name, "status", opts));
  }

  /** One page of the collection (every namespace when no namespace is given). */
  list(opts: ListOptions = {}): Promise<APIList<T>> {
    const query = selectorQuery(opts);
    setIf(query, "limit", opts.limit);
    setIf(query, "continue", opts.continue);
    setIf(query, "resourceVersion", opts.resourceVersion);
    setIf(query, "resourceVersionMatch", opts.resourceVersionMatch);
    const ns = this.ref.namespaced ? opts.namespace : undefined;
    const list = this.client.call<APIList<T>>({ method: "GET", path: this.#path(ns), query, signal: opts.signal });
    return this.#checkedLater(list, (l) => this.#checkedItems(l));
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
        if (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED") this.#checked(event.object);
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
    return this.#object({ method: "POST", path: this.#path(ns), query: writeQuery(opts), body: this.#typed(object), signal: opts.signal });
  }

  /**
   * Replaces `object` (PUT). With `metadata.resourceVersion` it is a compare-and-swap (409
   * `Conflict` when the object changed since); without, an unconditional update.
   */
  update(object: T, opts: UpdateOptions = {}): Promise<T> {
    const ns = this.#namespace(opts, object);
    const path = this.#path(ns, this.#nameOf(object), opts.subresource);
    return this.#object({ method: "PUT", path, query: writeQuery(opts), body: this.#typed(object), signal: opts.signal });
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
    let body = patch;
    if (type === "apply" && typeof patch === "object" && patch !== null && !Array.isArray(patch)) {
      const p = patch as Record<string, unknown>;
      body = { ...p, apiVersion: p["apiVersion"] ?? this.apiVersion, kind: p["kind"] ?? this.ref.kind };
    }
    return this.#checkedLater(this.#patch<T>(name, opts.subresource, body, type, opts));
  }

  /** Patches the status of the object `name` through the `status` sub-resource, as {@link ResourceClient.patch}. */
  patchStatus(name: string, patch: unknown, type: PatchType, opts: Omit<PatchOptions, "subresource"> = {}): Promise<T> {
    return this.patch(name, patch, type, { ...opts, subresource: "status" });
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
    const answer = this.client.call<T | Status>({ method: "DELETE", path: this.#path(ns, name), query, body: deleteBody(opts), signal: opts.signal });
    return this.#checkedLater(answer, (a) => (a.kind === "Status" ? a : this.#checked(a)));
  }

  /** Deletes every object the selectors match (in one namespace, or every one). */
  deleteCollection(opts: DeleteCollectionOptions = {}): Promise<APIList<T> | Status> {
    const ns = this.ref.namespaced ? opts.namespace : undefined;
    const query = selectorQuery(opts);
    if (opts.dryRun) query.set("dryRun", "All");
    const answer = this.client.call<APIList<T> | Status>({ method: "DELETE", path: this.#path(ns), query, body: deleteBody(opts), signal: opts.signal });
    return this.#checkedLater(answer, (a) => ("items" in a ? this.#checkedItems(a) : a));
  }

  /**
   * The calls to the sub-resource `sub` of the object `name`, for sub-resources this client has
   * no method for (`scale` of an embedder's kind, for instance). The namespace goes in each
   * call's options, as for the object itself.
   *
   * @example
   * const scale = await client.resource(widgetsRef).subresource("w", "scale").get<Scale>({ namespace: "default" });
   */
  subresource(name: string, sub: string): SubresourceClient {
    return {
      get: <R>(opts: GetOptions = {}) => this.#get<R>(name, sub, opts),
      create: <R>(body: unknown, opts: WriteOptions = {}) => this.#write<R>("POST", name, sub, body, opts),
      update: <R>(body: unknown, opts: WriteOptions = {}) => this.#write<R>("PUT", name, sub, body, opts),
      patch: <R>(patch: unknown, type: PatchType, opts: Omit<PatchOptions, "subresource"> = {}) => this.#patch<R>(name, sub, patch, type, opts),
    };
  }

  /**
   * POSTs `body` to the action sub-resource `sub` of the object `name` (Pod `binding`,
   * ServiceAccount `token`), filling in the body's `apiVersion` and `kind` from `type` when
   * missing. For the generated methods of the kinds' own clients.
   */
  protected act<R>(name: string, sub: string, type: ActionBodyType, body: object, opts: WriteOptions): Promise<R> {
    const given = body as { apiVersion?: unknown; kind?: unknown };
    const typed = { ...body, apiVersion: given.apiVersion ?? resolveGroup(type.apiVersion, this.client.domain), kind: given.kind ?? type.kind };
    return this.#write<R>("POST", name, sub, typed, opts);
  }
}

/** The `autoscaling/v1` Scale of a kind that serves `scale`. */
export type Scale = SchemaObject<typeof scaleV1Schema>;

/**
 * The client of a kind that serves the `scale` sub-resource (Deployments, ReplicaSets,
 * StatefulSets): its `autoscaling/v1` Scale, whose `spec.replicas` is all a replace or patch
 * changes, with `status.replicas` and `status.selector` read from the object.
 */
export class ScalableResourceClient<T extends APIObject = APIObject> extends ResourceClient<T> {
  /** Reads the Scale of `name`: `GET <resource>/{name}/scale`. */
  getScale(name: string, opts: GetOptions = {}): Promise<Scale> {
    return this.subresource(name, "scale").get<Scale>(opts);
  }

  /**
   * Replaces the Scale of `name` (`PUT <resource>/{name}/scale`): only `spec.replicas` changes; a
   * `metadata.resourceVersion` in `scale` is a precondition (409 when stale). Answers the new Scale.
   */
  updateScale(name: string, scale: SchemaOutput<typeof scaleV1Schema>, opts: WriteOptions = {}): Promise<Scale> {
    return this.subresource(name, "scale").update<Scale>({ apiVersion: "autoscaling/v1", kind: "Scale", ...scale }, opts);
  }

  /** Patches the Scale of `name` (`{ spec: { replicas: 3 } }` as a merge patch, say): only `spec.replicas` changes. */
  patchScale(name: string, patch: unknown, type: PatchType, opts: Omit<PatchOptions, "subresource"> = {}): Promise<Scale> {
    return this.subresource(name, "scale").patch<Scale>(patch, type, opts);
  }
}
