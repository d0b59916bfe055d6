/**
 * What the server lends admission plugins: reads and writes of other objects (a LimitRange, a
 * quota, a PriorityClass, the namespace), the authorization chain, watch-kept views of a
 * collection, the time and a log. The server supplies one per server; unit tests supply fakes.
 * `group` arguments are resolved groups (`""` for core, `scheduling.orch.io`).
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AccessAttributes, AccessDecision } from "@orch/resources";
import type { AdmissionObservation } from "./chain.js";

/**
 * A collection kept current by a watch (the reference's informer lister): `items()` is the
 * newest known state, never a request to the store. `generation` grows on every change, so a
 * plugin can recompile what it derives from the items only when they changed.
 */
export interface LiveList {
  /** The objects of the collection (frozen), as last seen. */
  items(): readonly APIObject[];
  /** A number that grows whenever `items()` changes. */
  generation(): number;
  /** Resolves once the first list is in. */
  ready(): Promise<void>;
}

/** The server's services for admission plugins. */
export interface AdmissionServices {
  /** The product domain (`orch.io`). */
  domain: string;
  /** Now, in milliseconds since the epoch, from the server's Clock. */
  now(): number;
  /**
   * Reads one object in its stored form; `undefined` when missing. `namespace` is ignored for
   * cluster-scoped resources.
   */
  get(group: string, resource: string, namespace: string, name: string): Promise<APIObject | undefined>;
  /**
   * Lists the objects of a resource in `namespace` (`""`: every namespace, or a cluster-scoped
   * resource), in their stored form, with the revision they were read at.
   */
  list(group: string, resource: string, namespace: string): Promise<{ items: APIObject[]; resourceVersion: string }>;
  /**
   * Creates an object as the server itself (NamespaceAutoProvision); admission runs on it.
   * @throws StatusError 409 when it exists.
   */
  create(group: string, resource: string, namespace: string, object: APIObject): Promise<APIObject>;
  /**
   * Replaces `object` (or its `subresource`, such as `status`) when its `resourceVersion` is
   * still the stored one: the compare-and-swap ResourceQuota counts with. The write is
   * admission's own: it is not admitted again.
   * @throws StatusError 409 Conflict when the object changed meanwhile.
   */
  update(group: string, resource: string, namespace: string, object: APIObject, subresource?: string): Promise<APIObject>;
  /** Asks the server's authorization chain (OwnerReferencesPermissionEnforcement, NodeRestriction). */
  authorize(attributes: AccessAttributes): Promise<AccessDecision>;
  /**
   * The resource serving `kind` in `group` (resolved) and its scope, from the server's registry
   * (custom resources included); `undefined` for a kind the server does not serve. A RESTMapper
   * for plugins that meet kinds in references (OwnerReferencesPermissionEnforcement).
   */
  resourceForKind?(group: string, kind: string): { resource: string; namespaced: boolean } | undefined;
  /** A watch-kept view of a collection (webhook configurations), created once and shared. */
  watchList(group: string, resource: string): LiveList;
  /** Writes one line to the server's log. */
  log(message: string): void;
  /** Receives the duration of each admission webhook call (the server's admission metrics); optional. */
  observeWebhook?(observation: AdmissionObservation): void;
}
