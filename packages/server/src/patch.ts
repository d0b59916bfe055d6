/**
 * JSON merge patch (RFC 7386), JSON patch (RFC 6902, with fast-json-patch) and strategic merge
 * patch (with `@orch/merge`, for kinds with a built-in schema) on a wire object.
 * @module
 */
import { strategicMergePatch, strategicMergePatchSupported, type PatchSchema } from "@orch/merge";
import { badRequest, statusError, unsupportedMediaType, type APIObject } from "@orch/meta";
import fastJSONPatch from "fast-json-patch";
import { decodeUTF8, parseJSONBody, parseMediaType, patchMediaTypes } from "./negotiation.js";
import { mutableCopy } from "./served-resource.js";

/** RFC 7386: objects merge key by key, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete base[key];
    else base[key] = mergePatch(base[key], value);
  }
  return base;
}

/**
 * A mutable copy of `current` (a stored object, frozen) for a merge patch, with its
 * `metadata.managedFields` shared rather than copied: that list is often as large as the rest of
 * the object, the merge copies whatever it changes, and decoding the result rebuilds the entries.
 */
function mergeTarget(current: APIObject): APIObject {
  const managedFields = current.metadata?.managedFields;
  if (managedFields === undefined) return mutableCopy(current);
  const { managedFields: _shared, ...metadata } = current.metadata;
  const copy = mutableCopy({ ...current, metadata } as APIObject);
  copy.metadata.managedFields = managedFields;
  return copy;
}

function applyJSONPatch(current: APIObject, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest("the JSON patch must be a list of operations");
  const error = fastJSONPatch.validate(operations as fastJSONPatch.Operation[], mutableCopy(current));
  if (error) {
    if (error.name === "TEST_OPERATION_FAILED") {
      throw statusError(
        "Invalid",
        `the server rejected our request due to an error in our request: testing value failed at ${String(error.operation?.path ?? "")}`,
      );
    }
    throw badRequest(`the JSON patch is invalid: ${error.message.split("\n")[0] ?? error.name}`);
  }
  try {
    return fastJSONPatch.applyPatch(mutableCopy(current), operations as fastJSONPatch.Operation[], false, false).newDocument;
  } catch (e) {
    const err = e as { name?: string; message?: string; operation?: { path?: string } };
    if (err.name === "TEST_OPERATION_FAILED") {
      throw statusError(
        "Invalid",
        `the server rejected our request due to an error in our request: testing value failed at ${String(err.operation?.path ?? "")}`,
      );
    }
    throw badRequest(`the JSON patch could not be applied: ${(err.message ?? "").split("\n")[0]}`);
  }
}

/**
 * Applies the PATCH body `body` of media type `contentType` to `current`, an object of the
 * served version whose schema is `schema` (its merge markers drive strategic merge patch;
 * `undefined` for kinds without one, such as custom resources).
 * @throws StatusError 415 for a patch type not supported here (strategic merge patch without a
 * schema), 400 for a malformed patch, 422 for a failed JSON patch `test`.
 */
export function applyPatch(contentType: string | null, body: Uint8Array | undefined, current: APIObject, schema: PatchSchema | undefined): unknown {
  const media = contentType ? parseMediaType(contentType) : undefined;
  const essence = media ? `${media.type}/${media.subtype}` : "";
  const text = decodeUTF8(body);
  switch (essence) {
    case "application/merge-patch+json": {
      const patch = parseJSONBody(text === "" ? "{}" : text);
      return mergePatch(mergeTarget(current), patch);
    }
    case "application/json-patch+json":
      return applyJSONPatch(current, parseJSONBody(text === "" ? "[]" : text));
    case "application/strategic-merge-patch+json":
      if (!strategicMergePatchSupported(schema)) break;
      return strategicMergePatch(current, parseJSONBody(text === "" ? "{}" : text), schema);
    default:
      break;
  }
  const offered = patchMediaTypes.filter((t) => t !== "application/strategic-merge-patch+json" || strategicMergePatchSupported(schema));
  throw unsupportedMediaType(contentType ?? "", offered);
}
