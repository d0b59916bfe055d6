/**
 * Group, version, kind and resource identifiers, and their printed forms as the reference's
 * `k8s.io/apimachinery/pkg/runtime/schema` prints them. The core group is the empty string.
 * @module
 */
import { badRequest } from "./status-error.js";
import type { TypeMeta } from "./types.js";

/** An API group and version: `{ group: "apps", version: "v1" }`; core is `group: ""`. */
export interface GroupVersion {
  readonly group: string;
  readonly version: string;
}

/** A kind qualified by its group: `{ group: "apps", kind: "Deployment" }`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** A resource qualified by its group: `{ group: "apps", resource: "deployments" }`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind in one version of its group. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** A resource in one version of its group. */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/**
 * Parses an `apiVersion`: `apps/v1` is group `apps`, version `v1`; `v1` is the core group.
 * @throws StatusError 400 BadRequest for the empty string, more than one `/`, or an empty group
 *   or version around the `/` (`unexpected GroupVersion string: a/b/c`).
 */
export function parseAPIVersion(apiVersion: string): GroupVersion {
  if (apiVersion === "") throw badRequest("apiVersion must be non-empty");
  const slash = apiVersion.indexOf("/");
  if (slash === -1) return { group: "", version: apiVersion };
  const group = apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  if (group === "" || version === "" || version.includes("/")) {
    throw badRequest(`unexpected GroupVersion string: ${apiVersion}`);
  }
  return { group, version };
}

/** Prints a group and version as an `apiVersion`: `apps/v1`, or `v1` for the core group. */
export function formatAPIVersion(gv: GroupVersion): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}

/**
 * The group, version and kind an object declares in its `apiVersion` and `kind`.
 * @throws StatusError 400 BadRequest when either is missing or empty (`Object 'Kind' is
 *   missing`, `Object 'apiVersion' is missing`, as the reference's decoder words it), or when
 *   `apiVersion` is malformed (see {@link parseAPIVersion}).
 */
export function gvkOf(obj: TypeMeta): GroupVersionKind {
  if (typeof obj.kind !== "string" || obj.kind === "") throw badRequest("Object 'Kind' is missing");
  if (typeof obj.apiVersion !== "string" || obj.apiVersion === "") throw badRequest("Object 'apiVersion' is missing");
  const { group, version } = parseAPIVersion(obj.apiVersion);
  return { group, version, kind: obj.kind };
}

/** Prints a group resource as the reference does: `leases.coordination.orch.io`, or `pods`. */
export function formatGroupResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** Prints a group kind as the reference does: `Lease.coordination.orch.io`, or `Pod`. */
export function formatGroupKind(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** Parses `deployments.apps` into resource `deployments`, group `apps`; no dot is the core group. */
export function parseGroupResource(text: string): GroupResource {
  const dot = text.indexOf(".");
  return dot === -1 ? { group: "", resource: text } : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

/** Parses `Deployment.apps` into kind `Deployment`, group `apps`; no dot is the core group. */
export function parseGroupKind(text: string): GroupKind {
  const dot = text.indexOf(".");
  return dot === -1 ? { group: "", kind: text } : { group: text.slice(dot + 1), kind: text.slice(0, dot) };
}

/** Prints a group version kind as the reference does in messages: `apps/v1, Kind=Deployment`. */
export function formatGroupVersionKind(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** Prints a group version resource as the reference does in messages: `/v1, Resource=pods`. */
export function formatGroupVersionResource(gvr: GroupVersionResource): string {
  return `${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
}
