/**
 * Decoding, in one place: the bytes of a request body read by their `Content-Type` (JSON,
 * YAML or protobuf), and a value decoded as an object of the served kind (a create or update
 * body, the result of a patch or an apply) or as the body kind of an action sub-resource (a
 * Binding, an Eviction, a TokenRequest). Envelope checks, `fieldValidation`, schema decoding,
 * the version's defaults and the conversion to the storage version all happen here.
 * @module
 */
import { badRequest, formatAPIVersion, type APIObject } from "@orch/meta";
import {
  actionKindOf,
  decodeActionBody,
  decodeObject,
  dropUnknownFields,
  duplicateFieldMessage,
  findDuplicateFields,
  findUnknownFields,
  strictDecodingError,
  unknownFieldMessage,
  type ActionSubresource,
} from "@orch/resources";
import { readObjectBody, readObjectBodyText } from "../negotiation.js";
import type { WriteOptions, WriteResult } from "../object-store.js";
import type { ResourceCall } from "./handler-context.js";
import { decodedStoredManagedFields } from "./stored-ownership.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The request body read as its `Content-Type` says (JSON when none; protobuf decoded into the
 * same JSON shape). With `optional`, a request without a body reads as `undefined`.
 * @throws StatusError 400 for an empty or malformed body, 415 for an unsupported media type.
 */
export function readRequestBody(call: ResourceCall, optional = false): unknown {
  const body = call.request.body;
  if (optional && !(body && body.length)) return undefined;
  return readObjectBody(call.request.headers.get("content-type"), body);
}

/**
 * Decodes `body` as an object of the served kind and version: checks its `apiVersion` and
 * `kind` (either may be left out), applies `opts.fieldValidation` to unknown (and, given the raw
 * JSON, duplicate) fields, decodes with the schema, runs the version's defaults and converts to
 * the storage version. The result is fresh and mutable; warnings go to `opts.warnings`.
 * `storedManagedFields` is the list of the stored object `body` was made from (a patch): when
 * `body` carries that very list, it is not run through the decoder if the decoder would only
 * copy it (the result is the same).
 * @throws StatusError 400 for a body that is not an object of this kind and version, or for
 *   unknown or duplicate fields under `Strict`; 422 for values outside an enum of the schema.
 */
export function decodeBody(call: ResourceCall, body: unknown, opts: WriteOptions, rawJSON?: string, storedManagedFields?: unknown): APIObject {
  const served = call.served;
  if (!isPlainObject(body)) throw badRequest(`the body of a ${served.type.kind} must be a JSON object`);
  const apiVersion = body.apiVersion;
  const kind = body.kind;
  if (apiVersion !== undefined && apiVersion !== "" && apiVersion !== served.apiVersion) {
    throw badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${served.apiVersion})`);
  }
  if (kind !== undefined && kind !== "" && kind !== served.type.kind) {
    throw badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${served.type.kind})`);
  }
  let value: unknown = { ...body, apiVersion: served.apiVersion, kind: served.type.kind };
  // The stored object's own managedFields, carried unchanged (a patch that does not name them):
  // decoded without the decoder when it would only copy them, an empty list holding their place.
  const meta = body.metadata;
  const ownership =
    storedManagedFields !== undefined && isPlainObject(meta) && meta.managedFields === storedManagedFields
      ? decodedStoredManagedFields(storedManagedFields)
      : undefined;
  if (ownership) (value as Record<string, unknown>).metadata = { ...(meta as Record<string, unknown>), managedFields: [] };
  // Unknown fields are found once; the common case (none) then skips the pruning copy.
  let unknownFound = true;
  if (opts.fieldValidation !== "Ignore") {
    const unknown = findUnknownFields(value, served.type, served.version);
    unknownFound = unknown.length > 0;
    const problems = [...(rawJSON === undefined ? [] : duplicateFields(rawJSON, body).map(duplicateFieldMessage)), ...unknown.map(unknownFieldMessage)];
    if (problems.length > 0) {
      if (opts.fieldValidation === "Strict") throw strictDecodingError(served.type, served.version.name, problems);
      opts.warnings.push(...problems);
    }
  }
  if (unknownFound) value = dropUnknownFields(value, served.type, served.version);
  let decoded = decodeObject(served.type, served.version, value, call.ctx.domain) as APIObject;
  if (!isPlainObject(decoded.metadata)) decoded.metadata = {};
  if (ownership) decoded.metadata.managedFields = ownership;
  // Everything past decoding works on the storage version.
  served.version.defaults?.(decoded, call.ctx.objects.strategyContext());
  if (served.version.toStorage) decoded = served.version.toStorage(decoded);
  return decoded;
}

/**
 * Reads the request body and decodes it as an object of the served kind (create, update, and
 * the create of a virtual kind); JSON bodies are also checked for duplicate fields.
 * @throws StatusError as {@link readRequestBody} and {@link decodeBody}.
 */
export function decodeRequestObject(call: ResourceCall, opts: WriteOptions): APIObject {
  const { headers, body } = call.request;
  const contentType = headers.get("content-type");
  const { value, text } = readObjectBodyText(contentType, body);
  const json = !contentType || contentType.toLowerCase().startsWith("application/json");
  return decodeBody(call, value, opts, json ? text : undefined);
}

/**
 * The keys given twice in one object of `jsonText` (see `findDuplicateFields`), answered at the
 * cost of one pass over the text when there are none: a text with as many members (`:` outside
 * strings) as its parsed value has keys repeats none.
 */
function duplicateFields(jsonText: string, parsed: unknown): string[] {
  return textMemberCount(jsonText) === valueMemberCount(parsed) ? [] : findDuplicateFields(jsonText);
}

/** How many object members a JSON text has: the colons outside its strings. */
function textMemberCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) n++;
    else if (c === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    }
  }
  return n;
}

/** How many object members a parsed value has (a key given twice in the text is one here). */
function valueMemberCount(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += valueMemberCount(item);
    return n;
  }
  for (const key in value) n += 1 + valueMemberCount((value as Record<string, unknown>)[key]);
  return n;
}

/** The decoded body of an action sub-resource, and the `apiVersion` its answer is given in. */
export interface ActionRequest {
  /** The body as an object of the action's kind, decoded with its schema. */
  object: APIObject;
  /** The action kind's `apiVersion` in the group the client sent (see {@link decodeActionRequest}). */
  answerIn: string;
  /** The action kind's `apiVersion` in the server's own group. */
  apiVersion: string;
}

/**
 * Decodes `body` (already read) as the body kind of `action`. The reference's clients
 * (`kubectl create token`) send it in the reference's group on any server: it is taken, and
 * answered in that group, as the client decodes only that.
 * @throws StatusError 400 for a body that is not an object of the action's kind, or that the
 *   schema refuses.
 */
export function decodeActionRequest(call: ResourceCall, action: ActionSubresource, body: unknown): ActionRequest {
  if (!isPlainObject(body)) throw badRequest(`the body of a ${action.kind} must be a JSON object`);
  const gvk = actionKindOf(action, call.ctx.domain);
  const apiVersion = formatAPIVersion(gvk);
  const reference = formatAPIVersion(actionKindOf(action, "k8s.io"));
  if (body.kind !== undefined && body.kind !== action.kind) {
    throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${action.kind})`);
  }
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion && body.apiVersion !== reference) {
    throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
  }
  const object = decodeActionBody(action, gvk.version, { ...body, apiVersion, kind: action.kind });
  return { object, answerIn: body.apiVersion === reference ? reference : apiVersion, apiVersion };
}

/** The answer of an action in the `apiVersion` the client sent its body in (an answer of the action's kind only). */
export function answerInClientVersion(result: WriteResult, action: ActionSubresource, request: ActionRequest): WriteResult {
  const body: unknown = result.body;
  if (request.answerIn === request.apiVersion || !isPlainObject(body) || body["kind"] !== action.kind) return result;
  return { code: result.code, body: { ...body, apiVersion: request.answerIn } as APIObject };
}
