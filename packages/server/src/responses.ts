/**
 * Step 8 of the pipeline: encoding. Every response body is built here, so `pretty`, YAML
 * output, `Warning` headers and the Status of an error are the same on every path.
 * @module
 */
import { inStatusOrder, toStatusError, type Status, type StatusError } from "@orch/meta";
import { encodeProtobufObject, hasProtobufCodec } from "@orch/protobuf";
import { stringify as stringifyYAML } from "yaml";
import type { APIResponse } from "./api-request.js";
import type { Negotiated } from "./negotiation.js";

/** How a body is encoded. */
export interface EncodeOptions {
  /** JSON (default) or YAML. */
  negotiated?: Negotiated;
  /** Indent JSON (`?pretty=true`). */
  pretty?: boolean;
  /** Texts for `Warning: 299 - "<text>"` headers. */
  warnings?: readonly string[];
}

/** Adds one `Warning` header per text, quoted as RFC 7234 wants. */
export function addWarnings(headers: Headers, warnings: readonly string[] | undefined): void {
  for (const text of warnings ?? []) headers.append("Warning", `299 - ${JSON.stringify(text)}`);
}

/**
 * A body already serialised as compact JSON (from the per-entry cache), with the value it
 * stands for, for the representations that must re-encode (YAML, `pretty`).
 */
export class EncodedJSON {
  /** @param json the compact JSON text of `value`. */
  constructor(
    readonly json: string,
    readonly value: () => unknown,
  ) {}
}

/** A body as UTF-8 parts written one after the other (see {@link APIResponse.bodyParts}). */
export type BodyParts = NonNullable<APIResponse["bodyParts"]>;

/**
 * A compact JSON body already serialised as UTF-8 parts (a LIST's framing and its items' cached
 * bytes), with the value it stands for, for the representations that must re-encode. Plain JSON
 * answers write the parts as they are: no per-answer string of the whole body.
 */
export class EncodedJSONParts {
  /**
   * @param parts the bytes of the compact JSON text of `value`, in order.
   * @param text the same text as one string, for callers that read the body whole (in-process
   *   clients, audit at `RequestResponse`); without it, the parts are decoded.
   */
  constructor(
    readonly parts: BodyParts,
    readonly value: () => unknown,
    readonly text?: () => string,
  ) {}
}

/** Whether `body` is already serialised JSON (as one text or as parts). */
function isEncoded(body: unknown): body is EncodedJSON | EncodedJSONParts {
  return body instanceof EncodedJSON || body instanceof EncodedJSONParts;
}

const decoder = new TextDecoder();

/** The bytes of `parts`, copied into one array (for callers that want a parted body whole). */
export function concatenatedParts(parts: BodyParts): Uint8Array<ArrayBuffer> {
  const all = new Uint8Array(parts.byteLength);
  let offset = 0;
  for (const part of parts.parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return all;
}

/**
 * A response whose body is `parts`: adapters write `bodyParts`; `body` is their text, joined on
 * first read (audit at `RequestResponse`, in-process clients, tests). Assigning `body` replaces
 * the body and drops the parts. A class, not an object literal with accessors: V8 gives such a
 * literal a hidden class of its own per object, in the old generation, which keeps every LIST's
 * answer (and what it references) alive until a full collection.
 */
class PartsResponse implements APIResponse {
  status: number;
  headers: Headers;
  bodyParts?: BodyParts;
  readonly #encoded: EncodedJSONParts;
  #body: string | Uint8Array | undefined;

  constructor(status: number, headers: Headers, encoded: EncodedJSONParts) {
    this.status = status;
    this.headers = headers;
    this.bodyParts = encoded.parts;
    this.#encoded = encoded;
    this.#body = undefined;
  }

  /** The body as text, joined from the parts on first read; or what was assigned. */
  get body(): string | Uint8Array {
    if (this.#body === undefined) {
      const encoded = this.#encoded;
      this.#body = encoded.text ? encoded.text() : decoder.decode(concatenatedParts(encoded.parts));
    }
    return this.#body;
  }

  set body(value: string | Uint8Array) {
    delete this.bodyParts;
    this.#body = value;
  }
}

/** True for a Status (`kind: Status` of `v1`), which has an encoding of its own. */
function isStatus(body: unknown): body is Status {
  if (typeof body !== "object" || body === null || isEncoded(body)) return false;
  const { kind, apiVersion } = body as { kind?: unknown; apiVersion?: unknown };
  return kind === "Status" && apiVersion === "v1";
}

/** The object `body` stands for, when it is one of a kind with a protobuf codec. */
function protobufObject(body: unknown): { apiVersion: string; kind: string } | undefined {
  const value = isEncoded(body) ? body.value() : body;
  if (typeof value !== "object" || value === null) return undefined;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !hasProtobufCodec(apiVersion, kind)) return undefined;
  return value as { apiVersion: string; kind: string };
}

/**
 * Serialises `body` as the negotiated representation and wraps it in a response. Under the
 * `protobuf` representation a body that is not an object with a protobuf codec (a Status) is JSON.
 */
export function encodeResponse(status: number, body: unknown, options: EncodeOptions = {}): APIResponse {
  if (options.negotiated?.representation === "protobuf") {
    const object = protobufObject(body);
    if (object) {
      const headers = new Headers({ "Content-Type": options.negotiated.contentType });
      addWarnings(headers, options.warnings);
      return { status, headers, body: encodeProtobufObject(object) };
    }
    return encodeResponse(status, body, { ...options, negotiated: { representation: "json", contentType: "application/json" } });
  }
  const headers = new Headers();
  const yaml = options.negotiated?.representation === "yaml";
  headers.set("Content-Type", yaml ? "application/yaml" : (options.negotiated?.contentType ?? "application/json"));
  addWarnings(headers, options.warnings);
  if (body instanceof EncodedJSONParts && !yaml && !options.pretty) return new PartsResponse(status, headers, body);
  let text: string;
  if (body instanceof EncodedJSON && !yaml && !options.pretty) text = body.json;
  else if (isStatus(body) && !yaml) {
    // A Status is written as the reference writes it: its members in order, then a newline.
    const status = inStatusOrder(body);
    text = options.pretty ? `${JSON.stringify(status, null, 2)}\n` : `${JSON.stringify(status)}\n`;
  } else {
    const value = isEncoded(body) ? body.value() : body;
    text = yaml ? stringifyYAML(value) : options.pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value);
  }
  return { status, headers, body: text };
}

/** The response of an error: its Status, JSON-encoded (also when YAML was asked, as the reference does). */
export function errorResponse(error: unknown, options: Omit<EncodeOptions, "negotiated"> = {}): APIResponse {
  const statusError: StatusError = toStatusError(error);
  const response = encodeResponse(statusError.code, statusError.status, options);
  const retry = statusError.status.details?.retryAfterSeconds;
  if (retry !== undefined) response.headers.set("Retry-After", String(retry));
  return response;
}

/** A Success Status, as a delete of most kinds and a deletecollection answer. */
export function successStatus(details: Status["details"], code = 200): Status {
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code };
  if (details) status.details = details;
  return status;
}

/** A plain-text response (health checks). */
export function textResponse(status: number, text: string): APIResponse {
  const headers = new Headers({ "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
  return { status, headers, body: text };
}
