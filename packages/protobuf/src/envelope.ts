/**
 * The reference's protobuf envelope: four prefix bytes `k8s\0`, then one `runtime.Unknown`
 * message whose `raw` holds the serialized object and whose `typeMeta` names its kind.
 * @module
 */
import { badRequest } from "@orch/meta";
import protobuf from "protobufjs";
import { toStatusErrorOf } from "./internal/errors.js";

/** The four bytes that open every protobuf body: `k8s\0` (0x6b 0x38 0x73 0x00). */
export const protobufPrefix: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The decoded `runtime.Unknown` of an envelope. Absent strings are `""`, absent `raw` is empty. */
export interface UnknownMessage {
  /** `typeMeta.apiVersion` (field 1.1): `v1`, `coordination.k8s.io/v1`. */
  apiVersion: string;
  /** `typeMeta.kind` (field 1.2). */
  kind: string;
  /** The serialized object (field 2). */
  raw: Uint8Array;
  /** How `raw` is encoded (field 3); `""` means not at all. */
  contentEncoding: string;
  /** The media type of `raw` (field 4); `""` means protobuf. */
  contentType: string;
}

const typeMetaType = new protobuf.Type("TypeMeta").add(new protobuf.Field("apiVersion", 1, "string")).add(new protobuf.Field("kind", 2, "string"));
const unknownType = new protobuf.Type("Unknown")
  .add(new protobuf.Field("typeMeta", 1, "TypeMeta"))
  .add(new protobuf.Field("raw", 2, "bytes"))
  .add(new protobuf.Field("contentEncoding", 3, "string"))
  .add(new protobuf.Field("contentType", 4, "string"));
new protobuf.Root().add(typeMetaType).add(unknownType).resolveAll();

/** Whether `bytes` opens with {@link protobufPrefix}. */
export function hasProtobufPrefix(bytes: Uint8Array): boolean {
  return bytes.length >= protobufPrefix.length && protobufPrefix.every((b, i) => bytes[i] === b);
}

/**
 * Reads an envelope: checks the prefix and decodes the `Unknown` message after it.
 * @throws StatusError 400 BadRequest for a wrong or missing prefix or a malformed message.
 */
export function decodeEnvelope(bytes: Uint8Array): UnknownMessage {
  if (!hasProtobufPrefix(bytes)) {
    throw badRequest("the protobuf body does not start with the expected prefix (k8s\\0): it is not a protobuf object envelope");
  }
  try {
    const message = unknownType.decode(bytes.subarray(protobufPrefix.length)) as unknown as {
      typeMeta?: { apiVersion?: string; kind?: string };
      raw?: Uint8Array;
      contentEncoding?: string;
      contentType?: string;
    };
    return {
      apiVersion: message.typeMeta?.apiVersion ?? "",
      kind: message.typeMeta?.kind ?? "",
      raw: message.raw ?? new Uint8Array(0),
      contentEncoding: message.contentEncoding ?? "",
      contentType: message.contentType ?? "",
    };
  } catch (error) {
    throw toStatusErrorOf(error, "the protobuf envelope is malformed");
  }
}

/** Writes an envelope: the prefix, then an `Unknown` with `typeMeta` and `raw` (empty strings are left out). */
export function encodeEnvelope(message: Pick<UnknownMessage, "apiVersion" | "kind" | "raw"> & Partial<UnknownMessage>): Uint8Array {
  const typeMeta: Record<string, string> = {};
  if (message.apiVersion) typeMeta.apiVersion = message.apiVersion;
  if (message.kind) typeMeta.kind = message.kind;
  const plain: Record<string, unknown> = { typeMeta, raw: message.raw };
  if (message.contentEncoding) plain.contentEncoding = message.contentEncoding;
  if (message.contentType) plain.contentType = message.contentType;
  const body = unknownType.encode(plain).finish();
  const out = new Uint8Array(protobufPrefix.length + body.length);
  out.set(protobufPrefix, 0);
  out.set(body, protobufPrefix.length);
  return out;
}
