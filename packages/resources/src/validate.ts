/**
 * Decoding and the generic checks of every object: JSON types against the kind's schema (400),
 * `metadata` rules on create and update (field errors for a 422), and the unknown and duplicate
 * fields that `fieldValidation` reports.
 * @module
 */
import {
  FieldPath,
  badRequest,
  forbiddenField,
  hasNullMember,
  invalid,
  invalidField,
  notSupportedField,
  requiredField,
  tooLongField,
  validateAnnotations,
  validateDNS1123Label,
  validateLabels,
  validateObjectName,
  validateQualifiedName,
  type APIObject,
  type FieldError,
  type StatusError,
} from "@orch/meta";
import type { z } from "zod";
import { scanDuplicateKeys } from "./internal/json-duplicates.js";
import { isFreeForm, itemsOf, jsonSchemaOf, mapValuesOf, propertiesOf, resolveNode, type JSONNode } from "./internal/json-schema.js";
import { jsonEqual, record, validateStandardFinalizerName } from "./internal/rules.js";
import type { ActionSubresource, ResourceType, ResourceVersion, StrategyContext } from "./resource-type.js";

/** The finalizer `orphan` (delete with `propagationPolicy: Orphan`). */
export const orphanFinalizer = "orphan";
/** The finalizer `foregroundDeletion` (delete with `propagationPolicy: Foreground`). */
export const foregroundDeletionFinalizer = "foregroundDeletion";

function versionOf(type: ResourceType, version: ResourceVersion | string): ResourceVersion {
  if (typeof version !== "string") return version;
  const found = type.versions.find((v) => v.name === version);
  if (!found) throw new TypeError(`${type.kind} has no version ${JSON.stringify(version)}`);
  return found;
}

function decodeError(kind: string, version: string, detail: string): StatusError {
  return badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${detail}`);
}

// Go's decoder treats null as "leave the zero value": drop null members of objects.
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  const obj = record(value);
  if (!obj) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== null) out[k] = dropNulls(v);
  return out;
}

function jsonTypeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

function goTypeName(node: JSONNode | undefined, root: JSONNode): string {
  if (!node) return "value";
  const n = resolveNode(node, root);
  switch (n["type"]) {
    case "string":
      return n["format"] === "byte" ? "[]uint8" : "string";
    case "boolean":
      return "bool";
    case "integer":
      return n["format"] === "int32" ? "int32" : "int64";
    case "number":
      return "float64";
    case "array":
      return `[]${goTypeName(itemsOf(n), root)}`;
    case "object": {
      const values = mapValuesOf(n);
      if (values && !propertiesOf(n)) return `map[string]${isFreeForm(values) ? "interface {}" : goTypeName(values, root)}`;
      return "struct";
    }
    default:
      return "interface {}";
  }
}

// The schema node at `path` of the value, and the Go-style field name (`ConfigMap.data`).
function locate(root: JSONNode, kind: string, path: readonly PropertyKey[]): { node: JSONNode | undefined; field: string } {
  let node: JSONNode | undefined = root;
  const names: string[] = [kind];
  for (const seg of path) {
    if (!node) break;
    const n = resolveNode(node, root);
    if (typeof seg === "number") {
      node = itemsOf(n);
      continue;
    }
    const key = String(seg);
    const prop = propertiesOf(n)?.[key];
    if (prop) {
      names.push(key);
      node = prop;
    } else node = mapValuesOf(n);
  }
  return { node, field: names.join(".") };
}

// The field path of a zod issue path, as validation prints it (`spec.items[0].color`,
// `spec.limits[cpu]`): a member of a map is a key, a property a child.
function fieldPathOf(root: JSONNode, path: readonly PropertyKey[]): FieldPath {
  let node: JSONNode | undefined = root;
  let out = FieldPath.root();
  for (const seg of path) {
    const n: JSONNode | undefined = node ? resolveNode(node, root) : undefined;
    if (typeof seg === "number") {
      out = out.index(seg);
      node = n ? itemsOf(n) : undefined;
      continue;
    }
    const key = String(seg);
    const prop = n ? propertiesOf(n)?.[key] : undefined;
    if (prop || !n || !mapValuesOf(n)) {
      out = out.child(key);
      node = prop;
    } else {
      out = out.key(key);
      node = mapValuesOf(n);
    }
  }
  return out;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const seg of path) {
    if (Array.isArray(current) && typeof seg === "number") current = current[seg];
    else current = record(current)?.[String(seg)];
  }
  return current;
}

/**
 * Decodes a request body (already parsed from JSON or YAML) as `type` at `version`: checks the
 * JSON type of every known field, drops `null` members (as the reference's decoder leaves zero
 * values), normalises times to the stored form, and strips unknown fields (find them first with
 * {@link findUnknownFields}). `apiVersion` and `kind` are not compared with the type's.
 *
 * A value outside a `z.enum([...])` (or `z.literal`) of the schema is not a decoding problem but
 * a validation one, as the reference's custom resources report it: when every problem of `value`
 * is of that sort, the answer is a 422 Invalid with one `FieldValueNotSupported` cause per field
 * (`spec.color: Unsupported value: "green": supported values: "red", "blue"`). `domain`
 * resolves `{domain}` in the group the message names (`Widget.example.orch.io "w" is invalid`).
 * @throws StatusError 400 BadRequest, message
 *   `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`
 *   (or the time/base64 problem), when `value` does not fit the schema.
 * @throws StatusError 422 Invalid when the only problems are values outside an enum.
 * @throws TypeError when `version` is not a version of `type` (a programming error).
 */
export function decodeObject(type: ResourceType, version: ResourceVersion | string, value: unknown, domain = "orch.io"): APIObject {
  return decodeWith(type.kind, versionOf(type, version), value, type.group.replaceAll("{domain}", domain));
}

/**
 * Decodes the body of an action sub-resource (`Eviction`, `TokenRequest`) as {@link decodeObject}
 * decodes an object: with the action's schema, in version `version`, and the same 400s.
 */
export function decodeActionBody(action: ActionSubresource, version: string, value: unknown): APIObject {
  return decodeWith(action.kind, { name: version, schema: action.schema }, value);
}

// A value outside the values an enum or literal allows: zod v4's `invalid_value` issue.
function isEnumIssue(issue: z.core.$ZodIssue): issue is z.core.$ZodIssueInvalidValue {
  return issue.code === "invalid_value" && Array.isArray(issue.values);
}

// The 422 of values outside their enums, one `FieldValueNotSupported` cause each.
function unsupportedValues(kind: string, group: string, root: JSONNode, input: unknown, issues: readonly z.core.$ZodIssueInvalidValue[]): StatusError {
  const errors = issues.map((issue) => {
    const supported = issue.values.map((v) => (typeof v === "string" ? v : String(v)));
    return notSupportedField(fieldPathOf(root, issue.path), valueAt(input, issue.path), supported);
  });
  const name = record(record(input)?.["metadata"])?.["name"];
  return invalid({ kind, group }, typeof name === "string" ? name : "", errors);
}

function decodeWith(kind: string, v: Pick<ResourceVersion, "name" | "schema">, value: unknown, group = ""): APIObject {
  const root = () => jsonSchemaOf(v.schema);
  if (record(value) === undefined) {
    throw decodeError(kind, v.name, `json: cannot unmarshal ${jsonTypeName(value)} into Go value of type ${kind}`);
  }
  const input = hasNullMember(value) ? dropNulls(value) : value;
  const result = v.schema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues as z.core.$ZodIssue[];
    // A problem of JSON types is the decoder's 400, as before any validation; values outside an
    // enum, alone, are the 422 of validation.
    const issue = issues.find((i) => !isEnumIssue(i));
    if (!issue) throw unsupportedValues(kind, group, root(), input, issues.filter(isEnumIssue));
    const path = issue.path;
    if (issue.code === "custom") throw decodeError(kind, v.name, issue.message);
    const { node, field } = locate(root(), kind, path);
    const got = valueAt(input, path);
    if (got === undefined) throw decodeError(kind, v.name, `missing required field ${JSON.stringify(field)}`);
    const shown = typeof got === "number" ? `number ${got}` : jsonTypeName(got);
    throw decodeError(kind, v.name, `json: cannot unmarshal ${shown} into Go struct field ${field} of type ${goTypeName(node, root())}`);
  }
  const decoded = result.data as APIObject;
  if (record(decoded.metadata) === undefined) decoded.metadata = {};
  return decoded;
}

/** How {@link validateObjectMeta} checks one kind's metadata. */
export interface ObjectMetaOptions {
  /** Objects of the kind live in a namespace (then `metadata.namespace` is required). */
  namespaced: boolean;
  /** Names are DNS labels (Namespace) rather than DNS subdomains. */
  nameIsLabel?: boolean;
  /** Names need only be path segments (RBAC kinds) rather than DNS subdomains. */
  nameIsPathSegment?: boolean;
  /**
   * Finalizer names without a `/` must be standard (`orch`/`kubernetes`, `orphan`,
   * `foregroundDeletion`), as for the reference's built-in kinds. Default true; false for custom
   * resources.
   */
  standardFinalizerNames?: boolean;
}

function metaPath(): FieldPath {
  return FieldPath.root("metadata");
}

function validateOwnerReferences(refs: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(refs)) return errors;
  let firstController = "";
  for (const item of refs) {
    const ref = record(item) ?? {};
    const apiVersion = typeof ref["apiVersion"] === "string" ? ref["apiVersion"] : "";
    const kind = typeof ref["kind"] === "string" ? ref["kind"] : "";
    const name = typeof ref["name"] === "string" ? ref["name"] : "";
    const uid = typeof ref["uid"] === "string" ? ref["uid"] : "";
    const slash = apiVersion.lastIndexOf("/");
    const group = slash < 0 ? "" : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (!version) errors.push(invalidField(path.child("apiVersion"), apiVersion, "version must not be empty"));
    if (!kind) errors.push(invalidField(path.child("kind"), kind, "must not be empty"));
    if (!name) errors.push(invalidField(path.child("name"), name, "must not be empty"));
    if (!uid) errors.push(invalidField(path.child("uid"), uid, "must not be empty"));
    if (group === "" && version === "v1" && kind === "Event") {
      errors.push(invalidField(path, ref, "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (ref["controller"] === true) {
      const current = `${kind}/${name}`;
      if (firstController) {
        errors.push(
          invalidField(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else firstController = current;
    }
  }
  return errors;
}

function validateFinalizers(finalizers: unknown, path: FieldPath, domain: string, standard: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(finalizers)) return errors;
  const names = finalizers.filter((f): f is string => typeof f === "string");
  for (const name of names) errors.push(...validateQualifiedName(name, path));
  if (names.includes(orphanFinalizer) && names.includes(foregroundDeletionFinalizer)) {
    errors.push(invalidField(path, names, `finalizer ${orphanFinalizer} and ${foregroundDeletionFinalizer} cannot be both set`));
  }
  if (standard) for (const name of names) errors.push(...validateStandardFinalizerName(name, path, domain));
  return errors;
}

/** A list holding one empty entry: the request to clear `managedFields`, which the write path resolves before validation sees it. */
function isManagedFieldsReset(entries: unknown[]): boolean {
  const only = entries.length === 1 ? record(entries[0]) : undefined;
  return only !== undefined && Object.values(only).every((v) => v === undefined);
}

function validateManagedFields(entries: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(entries) || isManagedFieldsReset(entries)) return errors;
  entries.forEach((item, i) => {
    const entry = record(item) ?? {};
    const at = path.index(i);
    const operation = entry["operation"] ?? "";
    if (operation !== "Apply" && operation !== "Update") {
      errors.push(invalidField(at.child("operation"), operation, "must be `Apply` or `Update`"));
    }
    const fieldsType = entry["fieldsType"];
    if (typeof fieldsType === "string" && fieldsType !== "" && fieldsType !== "FieldsV1") {
      errors.push(invalidField(at.child("fieldsType"), fieldsType, "must be `FieldsV1`"));
    }
    const manager = entry["manager"];
    if (typeof manager === "string" && manager.length > 128) errors.push(tooLongField(at.child("manager"), manager, 128));
    const subresource = entry["subresource"];
    if (typeof subresource === "string" && subresource.length > 256) errors.push(tooLongField(at.child("subresource"), subresource, 256));
  });
  return errors;
}

// The checks ValidateObjectMeta and ValidateObjectMetaUpdate share.
function validateCommon(object: APIObject, domain: string, standard: boolean): FieldError[] {
  const meta = object.metadata ?? {};
  const path = metaPath();
  return [
    ...validateLabels(meta.labels, path.child("labels")),
    ...validateAnnotations(meta.annotations, path.child("annotations")),
    ...validateOwnerReferences(meta.ownerReferences, path.child("ownerReferences")),
    ...validateFinalizers(meta.finalizers, path.child("finalizers"), domain, standard),
    ...validateManagedFields(meta.managedFields, path.child("managedFields")),
  ];
}

/**
 * The reference's `ValidateObjectMeta` for a create, after name generation: `generateName` as a
 * prefix, `name` required and a DNS subdomain (a DNS label with `nameIsLabel`), `namespace`
 * required and a DNS label on namespaced kinds and forbidden on cluster ones, `generation` not
 * negative, labels, annotations (256 KiB), owner references, finalizers and managed fields.
 * Returns the field errors (empty when valid); pass them to `invalid(...)` for the 422.
 *
 * @example
 * validateObjectMeta({ metadata: {} }, { namespaced: true })
 * // [{ field: "metadata.name", type: "FieldValueRequired", detail: "name or generateName is required" },
 * //  { field: "metadata.namespace", type: "FieldValueRequired", detail: "" }]
 */
export function validateObjectMeta(object: APIObject, options: ObjectMetaOptions, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const meta = object.metadata ?? {};
  const path = metaPath();
  const errors: FieldError[] = [];
  const label = options.nameIsLabel === true;
  const pathSegment = options.nameIsPathSegment === true;
  if (meta.generateName) {
    errors.push(...validateObjectName(meta.generateName, { label, pathSegment, prefix: true }, path.child("generateName")));
  }
  errors.push(...validateObjectName(meta.name ?? "", { label, pathSegment }, path.child("name")));
  const namespace = meta.namespace ?? "";
  if (options.namespaced) {
    if (!namespace) errors.push(requiredField(path.child("namespace")));
    else errors.push(...validateDNS1123Label(namespace, path.child("namespace")));
  } else if (namespace) {
    errors.push(forbiddenField(path.child("namespace"), "not allowed on this type"));
  }
  if (typeof meta.generation === "number" && meta.generation < 0) {
    errors.push(invalidField(path.child("generation"), meta.generation, "must be greater than or equal to 0"));
  }
  errors.push(...validateCommon(object, ctx?.domain ?? "orch.io", options.standardFinalizerNames !== false));
  return errors;
}

/** Options of {@link validateObjectMetaUpdate}. */
export interface ObjectMetaUpdateOptions {
  /** The product domain, for the standard finalizer names (default `orch.io`). */
  domain?: string;
  /** As {@link ObjectMetaOptions.standardFinalizerNames} (default true). */
  standardFinalizerNames?: boolean;
  /**
   * Reject an update whose `metadata.resourceVersion` is empty (`must be specified for an
   * update`), as the reference does after filling it in for unconditional updates. Default false.
   */
  requireResourceVersion?: boolean;
  /** Also check labels, annotations, owner references, finalizers and managed fields. Default false. */
  includeCommon?: boolean;
}

/**
 * The update half of the reference's `ValidateObjectMetaUpdate`: `name`, `namespace`, `uid`,
 * `creationTimestamp`, `deletionTimestamp` and `deletionGracePeriodSeconds` unchanged
 * (`metadata.name: Invalid value: "b": field is immutable`), `generation` not decremented, no
 * new finalizers once deletion started. The labels, annotations, owner references, finalizers
 * and managed fields of the new object are checked too only with `{ includeCommon: true }`: a
 * server that also runs {@link validateObjectMeta} on the new object (as orch's does) would
 * otherwise report them twice.
 */
export function validateObjectMetaUpdate(object: APIObject, old: APIObject, options: ObjectMetaUpdateOptions = {}): FieldError[] {
  const meta = object.metadata ?? {};
  const oldMeta = old.metadata ?? {};
  const path = metaPath();
  const errors: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    const oldSet = new Set(oldMeta.finalizers ?? []);
    const extra = [...new Set((meta.finalizers ?? []).filter((f) => !oldSet.has(f)))].sort();
    if (extra.length) {
      errors.push(
        forbiddenField(
          path.child("finalizers"),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map((f) => JSON.stringify(f)).join(", ")}}`,
        ),
      );
    }
  }
  if (options.requireResourceVersion && !meta.resourceVersion) {
    errors.push(invalidField(path.child("resourceVersion"), meta.resourceVersion ?? "", "must be specified for an update"));
  }
  if ((meta.generation ?? 0) < (oldMeta.generation ?? 0)) {
    errors.push(invalidField(path.child("generation"), meta.generation ?? 0, "must not be decremented"));
  }
  const immutable: [keyof typeof meta, unknown][] = [
    ["name", ""],
    ["namespace", ""],
    ["uid", ""],
    ["creationTimestamp", null],
    ["deletionTimestamp", null],
    ["deletionGracePeriodSeconds", null],
  ];
  for (const [field, zero] of immutable) {
    if (!jsonEqual(meta[field] ?? zero, oldMeta[field] ?? zero)) {
      errors.push(invalidField(path.child(field), meta[field] ?? zero, "field is immutable"));
    }
  }
  if (options.includeCommon) errors.push(...validateCommon(object, options.domain ?? "orch.io", options.standardFinalizerNames !== false));
  return errors;
}

/** The problems `fieldValidation` reports, as the reference words them. */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/** `duplicate field "metadata.name"`. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`;
}

// The unknown fields of `value` (paths into `out`), without copying anything.
function findUnknown(value: unknown, node: JSONNode, root: JSONNode, path: string, out: string[]): void {
  if (typeof value !== "object" || value === null) return;
  const n = resolveNode(node, root);
  if (Array.isArray(value)) {
    const items = itemsOf(n);
    if (!items) return;
    for (let i = 0; i < value.length; i++) findUnknown(value[i], items, root, `${path}[${i}]`, out);
    return;
  }
  const props = propertiesOf(n);
  const values = mapValuesOf(n);
  if (!props && !values) return;
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    if (!Object.hasOwn(obj, key)) continue;
    const child = obj[key];
    const below = props?.[key] || values;
    if (below) {
      // Only containers can hold unknown fields: the path of a scalar is never built.
      if (typeof child === "object" && child !== null) findUnknown(child, below, root, path === "" ? key : `${path}.${key}`, out);
    } else out.push(path === "" ? key : `${path}.${key}`);
  }
}

function walkUnknown(value: unknown, node: JSONNode, root: JSONNode, path: string, out: string[], prune: boolean): unknown {
  const n = resolveNode(node, root);
  if (Array.isArray(value)) {
    const items = itemsOf(n);
    if (!items) return value;
    return value.map((item, i) => walkUnknown(item, items, root, `${path}[${i}]`, out, prune));
  }
  const obj = record(value);
  if (!obj) return value;
  const props = propertiesOf(n);
  const values = mapValuesOf(n);
  if (!props && !values) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(obj)) {
    const childPath = path === "" ? key : `${path}.${key}`;
    const prop = props?.[key];
    if (prop) result[key] = walkUnknown(child, prop, root, childPath, out, prune);
    else if (values) result[key] = walkUnknown(child, values, root, childPath, out, prune);
    else {
      out.push(childPath);
      if (!prune) result[key] = child;
    }
  }
  return prune ? result : value;
}

/**
 * The paths of the fields of `value` that the schema of `type` at `version` does not know
 * (`spec.foo`, `metadata.bogus`, `items[0].x`), in document order. Keys of maps are never
 * unknown; values of the wrong JSON type are not reported here (decoding rejects them).
 * @throws TypeError when `version` is not a version of `type`.
 */
export function findUnknownFields(value: unknown, type: ResourceType, version: ResourceVersion | string): string[] {
  const root = jsonSchemaOf(versionOf(type, version).schema);
  const out: string[] = [];
  findUnknown(value, root, root, "", out);
  return out;
}

/**
 * A copy of `value` without the fields {@link findUnknownFields} reports (what `Ignore` and
 * `Warn` do with them). `value` is not changed.
 * @throws TypeError when `version` is not a version of `type`.
 */
export function dropUnknownFields<T>(value: T, type: ResourceType, version: ResourceVersion | string): T {
  const root = jsonSchemaOf(versionOf(type, version).schema);
  return walkUnknown(value, root, root, "", [], true) as T;
}

// Every string literal of a JSON text (in valid JSON, quotes appear nowhere else).
const stringLiteral = /"(?:[^"\\]|\\.)*"/g;

// How many object members a JSON text has: the colons outside its strings.
function memberCount(jsonText: string): number {
  const bare = jsonText.replace(stringLiteral, "");
  let n = 0;
  for (let i = bare.indexOf(":"); i >= 0; i = bare.indexOf(":", i + 1)) n++;
  return n;
}

// How many object members a parsed value has (a duplicate key leaves one).
function parsedMemberCount(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += parsedMemberCount(item);
    return n;
  }
  for (const key in value) n += 1 + parsedMemberCount((value as Record<string, unknown>)[key]);
  return n;
}

/**
 * The paths of the keys given twice in the same object of a JSON text (`metadata.name`), in
 * document order; malformed JSON ends the scan quietly. With `parsed` (the text's
 * `JSON.parse`), a text with as many members as the value has none given twice, and is
 * answered without the path-building scan.
 */
export function findDuplicateFields(jsonText: string, parsed?: unknown): string[] {
  if (parsed !== undefined && memberCount(jsonText) === parsedMemberCount(parsed)) return [];
  return scanDuplicateKeys(jsonText);
}

/**
 * The 400 of `fieldValidation=Strict`: `<Kind> in version "<v>" cannot be handled as a <Kind>:
 * strict decoding error: unknown field "spec.foo", duplicate field "metadata.name"`.
 * `problems` are messages from {@link unknownFieldMessage} and {@link duplicateFieldMessage}.
 */
export function strictDecodingError(type: ResourceType, version: string, problems: readonly string[]): StatusError {
  return decodeError(type.kind, version, `strict decoding error: ${problems.join(", ")}`);
}
