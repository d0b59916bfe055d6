/**
 * What an admission plugin is told about a write: the reference's `admission.Attributes`
 * (operation, kind, resource, sub-resource, name, namespace, object, old object, options,
 * dry-run, user), plus the resource type it concerns and the places a plugin leaves warnings
 * and audit annotations.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { RequestUser, ResourceType } from "@orch/resources";

/** The operation of a write, as admission names it. */
export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** The operations a rule or plugin may name. */
export const operations: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

/** A kind in one group and version (`group` is `""` for core). */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A resource in one group and version (`group` is `""` for core). */
export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/**
 * The reinvocation state of one write (the reference's `ReinvocationContext`): the mutating
 * webhook plugin asks for a second pass when a later plugin changed the object after an
 * `IfNeeded` webhook saw it, and keeps what it needs between the passes in `data`.
 */
export interface Reinvocation {
  /** True during the second pass of the mutating plugins. */
  isReinvoke: boolean;
  /** Set by a plugin that wants the mutating plugins run once more. */
  shouldReinvoke: boolean;
  /** Per-plugin state kept across the passes, keyed by plugin name. */
  readonly data: Map<string, unknown>;
}

/**
 * One write as the admission plugins see it. `object` is the object being written, in the
 * storage version of its kind (a sub-resource action's own kind for `pods/binding`,
 * `pods/eviction`, `serviceaccounts/token`); mutating plugins change it in place or replace
 * it. `oldObject` is the stored object (frozen); absent for CREATE and CONNECT.
 */
export interface AdmissionAttributes {
  /** CREATE, UPDATE, DELETE or CONNECT. */
  operation: Operation;
  /** The kind of `object` (its version is the storage version of the resource). */
  kind: GroupVersionKind;
  /** The resource written (in the storage version). */
  resource: GroupVersionResource;
  /** The sub-resource written (`status`, `binding`, ...), `""` for the main resource. */
  subresource: string;
  /** The kind as the client addressed it (the version of its request). */
  requestKind: GroupVersionKind;
  /** The resource as the client addressed it (the version of its request). */
  requestResource: GroupVersionResource;
  /** The object's name (may be `""` on a CREATE that asks for `generateName`). */
  name: string;
  /** The namespace of a namespaced resource, `""` otherwise. */
  namespace: string;
  /** The resource type written: its scope, versions and their conversions. */
  type: ResourceType;
  /** The object being written; absent for DELETE and CONNECT. */
  object: APIObject | undefined;
  /** The stored object; absent for CREATE and CONNECT. */
  readonly oldObject: APIObject | undefined;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions, as the wire shows them. */
  options: Record<string, unknown> | undefined;
  /** True when nothing will be stored (`dryRun=All`). */
  dryRun: boolean;
  /** The caller (after impersonation). */
  user: RequestUser;
  /** Warnings for the response's `Warning` headers; plugins append. */
  warnings: string[];
  /** Annotations for the request's audit event (`pod-security.<domain>/audit-violations`, ...). */
  auditAnnotations: Record<string, string>;
  /** The reinvocation state of this write. */
  reinvocation: Reinvocation;
}

/** True when `attrs` writes the main resource (no sub-resource) of `group`/`resource`. */
export function isResource(attrs: AdmissionAttributes, group: string, resource: string, subresource = ""): boolean {
  return attrs.resource.group === group && attrs.resource.resource === resource && attrs.subresource === subresource;
}
