/**
 * The query parameters (and DeleteOptions bodies) of resource requests, parsed once for every
 * handler: `dryRun`, `fieldValidation`, `fieldManager`, the options of a write and of a delete,
 * the label and field selection of a collection, and the read parameters of get, list and watch.
 * Each bad value is the reference's 400 (or 422 for a bad field manager).
 * @module
 */
import { badRequest, invalid, parseFieldSelector, parseLabelSelector, type APIObject, type FieldSelector, type LabelSelector } from "@orch/meta";
import { defaultFieldManager, validateFieldManager } from "@orch/merge";
import type { Entry } from "@orch/store";
import { parseMediaType } from "../negotiation.js";
import type { DeleteOptions, FieldValidation, WriteOptions } from "../object-store.js";
import { wireObject, type ServedResource } from "../served-resource.js";
import type { ResourceCall } from "./handler-context.js";

/** A boolean query parameter: present and neither `false` nor `0`. */
export function isTrue(value: string | null): boolean {
  return value !== null && value !== "false" && value !== "0";
}

/**
 * A non-negative integer query parameter, `undefined` when absent or empty.
 * @throws StatusError 400 for anything else.
 */
export function parseNonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw badRequest(`invalid ${name} ${JSON.stringify(raw.slice(0, 64))}: must be a non-negative integer`);
  }
  return Number(raw);
}

/**
 * `dryRun`: true when given (only `All`, or empty, is allowed).
 * @throws StatusError 400 for another value.
 */
export function parseDryRun(query: URLSearchParams): boolean {
  // Most writes have no dryRun: asked without allocating the list of values.
  if (!query.has("dryRun")) return false;
  const values = query.getAll("dryRun");
  for (const v of values) if (v !== "All" && v !== "") throw badRequest(`Invalid dryRun value ${JSON.stringify(v)}: supported values: "All"`);
  return values.length > 0;
}

/**
 * `fieldValidation`: `Ignore`, `Warn` (the default) or `Strict`.
 * @throws StatusError 400 for another value.
 */
export function parseFieldValidation(query: URLSearchParams): FieldValidation {
  const v = query.get("fieldValidation");
  if (v === null || v === "") return "Warn";
  if (v === "Ignore" || v === "Warn" || v === "Strict") return v;
  throw badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(v)}: supported values: "Ignore", "Warn", "Strict"`);
}

/** The options kind a write's query parameters belong to, for the 422 of a bad `fieldManager`. */
const optionsKind: Partial<Record<string, string>> = { create: "CreateOptions", update: "UpdateOptions", patch: "PatchOptions" };

/**
 * The field manager of a write: `fieldManager`, else the User-Agent up to its first `/`. A name
 * over 128 bytes or with control characters, or none on an apply, is a 422 on the write's
 * options kind.
 */
export function fieldManagerOf(call: ResourceCall, isApply: boolean): string {
  const given = call.query.get("fieldManager") ?? "";
  // No name on a write other than apply has nothing to validate (the common case).
  const errors = given === "" && !isApply ? undefined : validateFieldManager(given, { apply: isApply });
  if (errors?.length) throw invalid({ group: `meta.${call.ctx.domain}`, kind: optionsKind[call.info.verb] ?? "PatchOptions" }, "", errors);
  return given || defaultFieldManager(call.request.headers.get("user-agent") ?? "");
}

/** True for a PATCH of `application/apply-patch+yaml` (server-side apply). */
export function isApplyPatch(contentType: string | null): boolean {
  const media = contentType ? parseMediaType(contentType) : undefined;
  return media !== undefined && media.type === "application" && media.subtype === "apply-patch+yaml";
}

/**
 * The options of a create, update or patch from the query: `dryRun`, `fieldValidation` and the
 * field manager, with an empty list for the write's warnings.
 * @throws StatusError 400 or 422 for a bad parameter.
 */
export function writeOptions(call: ResourceCall): WriteOptions {
  const options: WriteOptions = {
    dryRun: parseDryRun(call.query),
    fieldValidation: parseFieldValidation(call.query),
    warnings: [],
    fieldManager: fieldManagerOf(call, call.info.verb === "patch" && isApplyPatch(call.request.headers.get("content-type"))),
  };
  if (call.request.user) options.user = call.request.user;
  if (call.request.auditAnnotations) options.auditAnnotations = call.request.auditAnnotations;
  if (call.info.verb === "patch") options.patch = true;
  return options;
}

/**
 * The options of a DELETE request: {@link deleteOptions} of its body and query, with its caller
 * and a list for admission's warnings.
 * @throws StatusError 400 for a body of another kind or a bad value.
 */
export function requestDeleteOptions(call: ResourceCall, body: unknown): DeleteOptions {
  const options = deleteOptions(body, call.query);
  options.warnings = [];
  if (call.request.user) options.user = call.request.user;
  if (call.request.auditAnnotations) options.auditAnnotations = call.request.auditAnnotations;
  return options;
}

/**
 * The options of a delete: the DeleteOptions `body` (already read; `undefined` for none) over
 * the query's `dryRun`, `propagationPolicy` and `gracePeriodSeconds`.
 * @throws StatusError 400 for a body of another kind or a bad value.
 */
export function deleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const options: DeleteOptions = { dryRun: parseDryRun(query) };
  const source = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (source.kind !== undefined && source.kind !== "DeleteOptions") throw badRequest(`the body of a delete must be DeleteOptions, not ${String(source.kind)}`);
  const policy = source.propagationPolicy ?? query.get("propagationPolicy") ?? undefined;
  if (policy !== undefined && policy !== null) {
    if (policy !== "Orphan" && policy !== "Background" && policy !== "Foreground") {
      throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
    }
    options.propagationPolicy = policy;
  }
  if (source.orphanDependents === true && options.propagationPolicy === undefined) options.propagationPolicy = "Orphan";
  const grace = source.gracePeriodSeconds ?? parseNonNegativeInt(query, "gracePeriodSeconds");
  if (grace !== undefined) {
    if (typeof grace !== "number" || !Number.isInteger(grace)) throw badRequest("gracePeriodSeconds must be an integer");
    options.gracePeriodSeconds = grace;
  }
  if (Array.isArray(source.dryRun) && source.dryRun.length > 0) {
    for (const v of source.dryRun) if (v !== "All") throw badRequest(`Invalid dryRun value ${JSON.stringify(v)}: supported values: "All"`);
    options.dryRun = true;
  }
  const pre = source.preconditions;
  if (pre !== undefined && pre !== null) {
    if (typeof pre !== "object" || Array.isArray(pre)) throw badRequest("preconditions must be an object");
    const p = pre as Record<string, unknown>;
    options.preconditions = {};
    if (typeof p.uid === "string") options.preconditions.uid = p.uid;
    if (typeof p.resourceVersion === "string") options.preconditions.resourceVersion = p.resourceVersion;
  }
  return options;
}

/** The field-selector fields of an object: name, namespace and the kind's own. */
export function fieldsOf(served: ServedResource, object: APIObject): Record<string, string> {
  const fields: Record<string, string> = { "metadata.name": object.metadata.name ?? "" };
  if (served.namespaced) fields["metadata.namespace"] = object.metadata.namespace ?? "";
  const extra = served.type.strategy?.selectableFields?.(object);
  return extra ? { ...fields, ...extra } : fields;
}

/** The selectors of a collection request, and the entry predicate they make (none when both are empty). */
export interface Selection {
  labels: LabelSelector;
  fields: FieldSelector;
  predicate: ((entry: Entry) => boolean) | undefined;
}

/**
 * `labelSelector` and `fieldSelector` of a collection of `served`: fields beyond name and
 * namespace are the kind's `selectableFieldNames`.
 * @throws StatusError 400 for a malformed selector or an unsupported field.
 */
export function selection(served: ServedResource, query: URLSearchParams): Selection {
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(query.get("fieldSelector") ?? "");
  const supported = new Set(["metadata.name", ...(served.namespaced ? ["metadata.namespace"] : []), ...(served.type.strategy?.selectableFieldNames ?? [])]);
  fields.checkSupported(supported);
  const predicate =
    labels.isEmpty() && fields.isEmpty()
      ? undefined
      : (entry: Entry) => {
          const object = wireObject(entry);
          return labels.matches(object.metadata.labels) && (fields.isEmpty() || fields.matches(fieldsOf(served, object)));
        };
  return { labels, fields, predicate };
}

/** The read parameters of a get, list or watch, as `@orch/list`'s `planRead` takes them. */
export interface ReadParams {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
}

/**
 * `resourceVersion`, `resourceVersionMatch`, `limit` and `continue` from the query (the
 * combinations are checked by `planRead`).
 * @throws StatusError 400 for a `limit` that is not a non-negative integer.
 */
export function readParams(query: URLSearchParams): ReadParams {
  const params: ReadParams = {};
  const rv = query.get("resourceVersion");
  if (rv !== null) params.resourceVersion = rv;
  const match = query.get("resourceVersionMatch");
  if (match !== null && match !== "") params.resourceVersionMatch = match;
  const limit = parseNonNegativeInt(query, "limit");
  if (limit !== undefined) params.limit = limit;
  const token = query.get("continue");
  if (token !== null && token !== "") params.continue = token;
  return params;
}
