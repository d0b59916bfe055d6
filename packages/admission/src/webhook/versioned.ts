/**
 * The object a webhook sees and patches, in the version it matched: converted from the storage
 * version the attributes carry (`fromStorage`), and, after a patch, checked against that
 * version's schema and converted back (`toStorage`). Objects of another kind than the resource
 * (a sub-resource action's Binding, Eviction, TokenRequest) are passed as they are.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { ResourceVersion, ServedVersion } from "@orch/resources";
import fastJSONPatch from "fast-json-patch";
import type { AdmissionAttributes } from "../attributes.js";

/**
 * The version `version` of the resource written, when `attrs`' objects are of the resource's
 * kind; `undefined` for a sub-resource action's objects, which are never converted.
 */
export function resourceVersionOf(attrs: AdmissionAttributes, version: string): ResourceVersion | undefined {
  if (attrs.kind.kind !== attrs.type.kind) return undefined;
  return attrs.type.versions.find((v) => v.name === version);
}

/**
 * `object` (storage version) in `version` (a copy either way); `served` is how the server serves
 * that version (its `apiVersion`, domain resolved, and the domain).
 */
export function toVersion(object: APIObject | undefined, version: ResourceVersion | undefined, served?: ServedVersion): APIObject | undefined {
  if (object === undefined) return undefined;
  const copy = structuredClone(object);
  return version && !version.storage && version.fromStorage ? version.fromStorage(copy, served) : copy;
}

/** `object` (in `version`) back in the storage version. */
export function fromVersion(object: APIObject, version: ResourceVersion | undefined): APIObject {
  return version && !version.storage && version.toStorage ? version.toStorage(object) : object;
}

/**
 * The operations of a JSON patch given as text.
 * @throws Error when `text` is not JSON or not a list.
 */
export function parseJSONPatch(text: string): unknown[] {
  let operations: unknown;
  try {
    operations = JSON.parse(text);
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error), { cause: error });
  }
  if (!Array.isArray(operations)) throw new Error("the patch is not a list of JSON patch operations");
  return operations;
}

/**
 * Applies the JSON patch `operations` to a copy of `object`.
 * @throws Error when an operation is malformed or does not apply (a failed `test` included).
 */
export function applyJSONPatch(object: APIObject, operations: readonly unknown[]): APIObject {
  const copy = structuredClone(object);
  const ops = operations as fastJSONPatch.Operation[];
  const invalid = fastJSONPatch.validate(ops, copy);
  if (invalid) throw new Error(`the patch could not be applied: ${firstLine(invalid.message)}`, { cause: invalid });
  let patched: unknown;
  try {
    patched = fastJSONPatch.applyPatch(copy, ops, false, true).newDocument;
  } catch (error) {
    throw new Error(`the patch could not be applied: ${firstLine(error instanceof Error ? error.message : String(error))}`, { cause: error });
  }
  if (typeof patched !== "object" || patched === null || Array.isArray(patched))
    throw new Error("the patch replaced the object with something else than an object");
  return patched as APIObject;
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}

/**
 * Why the patched object `after` cannot replace `before`: it left its kind's schema in
 * `version`, or changed what identifies it (`apiVersion`, `kind`, `metadata.name`,
 * `metadata.namespace`); `undefined` when it can.
 */
export function patchedObjectProblem(before: APIObject, after: APIObject, version: ResourceVersion | undefined): string | undefined {
  for (const field of ["apiVersion", "kind"] as const) {
    if (after[field] !== before[field])
      return `the patch changed ${field} from ${JSON.stringify(before[field] ?? "")} to ${JSON.stringify(after[field] ?? "")}`;
  }
  const meta = typeof after.metadata === "object" && after.metadata !== null && !Array.isArray(after.metadata) ? after.metadata : undefined;
  if (!meta) return "the patch removed metadata";
  for (const field of ["name", "namespace"] as const) {
    if ((meta[field] ?? "") !== (before.metadata[field] ?? "")) {
      return `the patch changed metadata.${field} from ${JSON.stringify(before.metadata[field] ?? "")} to ${JSON.stringify(meta[field] ?? "")}`;
    }
  }
  if (!version) return undefined;
  const parsed = version.schema.safeParse(after);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const path = issue?.path.map(String).join(".") ?? "";
  return `the patched object is not a valid ${after.kind ?? "object"} ${version.name}: ${path ? `${path}: ` : ""}${issue?.message ?? "invalid"}`;
}
