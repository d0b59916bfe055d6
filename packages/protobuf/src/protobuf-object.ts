/**
 * Whole protobuf bodies: the envelope around the codec of the object's kind.
 * @module
 */
import { badRequest, depthExceeded, jsonTextDepth, maxJSONDepth, notAcceptable, unsupportedMediaType } from "@orch/meta";
import { decodeKind, encodeKind } from "./codecs.js";
import { decodeEnvelope, encodeEnvelope } from "./envelope.js";

/** The protobuf media types: the reference system's, and orch's own name for the same encoding. */
export const protobufMediaTypes = ["application/vnd.kubernetes.protobuf", "application/vnd.orch.protobuf"] as const;

/** Whether a media type's essence (`type/subtype`, lower case, no parameters) is a protobuf one. */
export function isProtobufMediaType(essence: string): boolean {
  return (protobufMediaTypes as readonly string[]).includes(essence);
}

/** An object read from a protobuf body. */
export interface DecodedProtobufObject {
  /** From the envelope's `typeMeta`. */
  apiVersion: string;
  /** From the envelope's `typeMeta`. */
  kind: string;
  /** The object in orch's JSON shape, `apiVersion` and `kind` included. */
  object: Record<string, unknown>;
}

const acceptedInstead = ["application/json", "application/yaml"];

/**
 * Decodes a protobuf request body (`k8s\0` envelope, then the codec its `typeMeta` names) into the
 * JSON-shaped object the rest of the pipeline reads. An envelope whose `contentType` is
 * `application/json` carries JSON in `raw`, and is read as such.
 * @throws StatusError 400 BadRequest for a wrong prefix or malformed bytes; 415 UnsupportedMediaType
 *   for a kind without a protobuf codec or a `contentEncoding`.
 */
export function decodeProtobufObject(bytes: Uint8Array): DecodedProtobufObject {
  const unknown = decodeEnvelope(bytes);
  const { apiVersion, kind } = unknown;
  if (unknown.contentEncoding !== "") throw unsupportedMediaType(`protobuf with contentEncoding ${unknown.contentEncoding}`, acceptedInstead);
  const contentType = unknown.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (contentType === "application/json") {
    let value: unknown;
    try {
      const text = new TextDecoder("utf-8", { fatal: true }).decode(unknown.raw);
      if (jsonTextDepth(text) > maxJSONDepth) throw depthExceeded("json");
      value = JSON.parse(text);
    } catch (error) {
      throw badRequest(`the JSON in the protobuf envelope is malformed: ${(error as Error).message}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw badRequest("the JSON in the protobuf envelope is not an object");
    return { apiVersion, kind, object: { apiVersion, kind, ...(value as Record<string, unknown>) } };
  }
  if (contentType !== "" && !isProtobufMediaType(contentType)) throw unsupportedMediaType(unknown.contentType, acceptedInstead);
  if (!kind) throw badRequest("the protobuf envelope names no kind (typeMeta.kind is empty)");
  const object = decodeKind(apiVersion, kind, unknown.raw, () =>
    unsupportedMediaType(`${protobufMediaTypes[0]} (no protobuf codec for ${apiVersion || "<no apiVersion>"} ${kind})`, acceptedInstead),
  );
  return { apiVersion, kind, object };
}

/**
 * Encodes an object (with `apiVersion` and `kind`) as a protobuf body: `k8s\0`, then an `Unknown`
 * whose `raw` is the object in the protobuf encoding of its kind.
 * @throws StatusError 406 NotAcceptable when the kind has no codec (check `hasProtobufCodec`
 *   first); 400 BadRequest when a field has the wrong JSON type.
 */
export function encodeProtobufObject(object: object): Uint8Array {
  const { apiVersion: v, kind: k } = object as { apiVersion?: unknown; kind?: unknown };
  const apiVersion = typeof v === "string" ? v : "";
  const kind = typeof k === "string" ? k : "";
  const raw = encodeKind(apiVersion, kind, object, () => notAcceptable(["application/json"]));
  return encodeEnvelope({ apiVersion, kind, raw });
}
