/**
 * Step 6 of the pipeline: which representation a response takes (`Accept`) and how a body is
 * read (`Content-Type`).
 * @module
 */
import { badRequest, depthExceeded, exceedsDepth, jsonTextDepth, maxJSONDepth, notAcceptable, unsupportedMediaType } from "@orch/meta";
import { decodeProtobufObject, isProtobufMediaType, protobufMediaTypes } from "@orch/protobuf";
import { parse as parseYAML } from "yaml";

/** A media type with its parameters, lower-cased. */
export interface MediaType {
  type: string;
  subtype: string;
  params: Record<string, string>;
}

/** Parses one media type (`application/json;as=Table;v=v1;g=meta.orch.io`). */
export function parseMediaType(text: string): MediaType | undefined {
  // Most media types have no parameters: the essence is then the whole text.
  const semi = text.indexOf(";");
  const essence = semi === -1 ? text : text.slice(0, semi);
  const [type, subtype] = essence.trim().toLowerCase().split("/");
  if (!type || !subtype) return undefined;
  const params: Record<string, string> = {};
  if (semi === -1) return { type, subtype, params };
  for (const p of text.slice(semi + 1).split(";")) {
    const eq = p.indexOf("=");
    if (eq === -1) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    const value = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    if (key !== "q") params[key] = value;
  }
  return { type, subtype, params };
}

/**
 * What a response can be rendered as. `protobuf` is chosen only where the caller allowed it (a
 * single object of a kind with a protobuf codec); a body that turns out not to be one (a Status)
 * is still written as JSON.
 */
export type Representation = "json" | "yaml" | "table" | "protobuf";

/** The chosen representation and the `Content-Type` to answer with. */
export interface Negotiated {
  representation: Representation;
  contentType: string;
  /**
   * For a Table: the domain of the `meta` group it is asked in. The server's own, or `k8s.io`:
   * the reference's clients (kubectl) ask for `meta.k8s.io` Tables whatever the server's domain,
   * and get them, so they print the server's columns.
   */
  metaDomain?: string;
}

/**
 * Picks the first acceptable representation of `accept` (in the client's order, as the
 * reference does for kubectl's `Table` then JSON lists).
 * @param allowTable whether this request can be answered with a Table (get, list, watch).
 * @param allowProtobuf whether this request can be answered in protobuf (a single object of a kind
 *   with a protobuf codec); protobuf is then chosen only when `accept` lists it before any JSON type.
 * @throws StatusError 406 when nothing in `accept` can be served.
 */
export function negotiate(accept: string | null, domain: string, allowTable: boolean, allowProtobuf = false): Negotiated {
  // What nearly every JSON client sends, answered without parsing.
  if (!accept || accept === "application/json" || accept === "*/*" || accept.trim() === "") return { representation: "json", contentType: "application/json" };
  for (const part of accept.split(",")) {
    const media = parseMediaType(part);
    if (!media) continue;
    const { type, subtype, params } = media;
    if (params.as !== undefined) {
      if (
        allowTable &&
        params.as === "Table" &&
        (params.g === `meta.${domain}` || params.g === "meta.k8s.io" || params.g === undefined) &&
        (params.v === "v1" || params.v === "v1beta1" || params.v === undefined) &&
        type === "application" &&
        subtype === "json"
      ) {
        const metaDomain = params.g === "meta.k8s.io" ? "k8s.io" : domain;
        return { representation: "table", contentType: `application/json;as=Table;v=${params.v ?? "v1"};g=meta.${metaDomain}`, metaDomain };
      }
      continue;
    }
    if ((type === "application" && (subtype === "json" || subtype === "*")) || (type === "*" && subtype === "*")) {
      return { representation: "json", contentType: "application/json" };
    }
    if (type === "application" && subtype === "yaml") return { representation: "yaml", contentType: "application/yaml" };
    if (allowProtobuf && params.stream === undefined && isProtobufMediaType(`${type}/${subtype}`)) {
      return { representation: "protobuf", contentType: protobufMediaTypes[0] };
    }
  }
  throw notAcceptable(["application/json", "application/yaml", `application/json;as=Table;v=v1;g=meta.${domain}`]);
}

/** The body media types a create or update accepts. */
export const writeMediaTypes = ["application/json", "application/yaml", ...protobufMediaTypes] as const;

/** The patch media types, in the order discovery and errors list them. */
export const patchMediaTypes = [
  "application/json-patch+json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
] as const;

// One decoder for every body: a whole-buffer decode keeps no state between calls.
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes UTF-8 bytes, rejecting invalid sequences with a 400. */
export function decodeUTF8(body: Uint8Array | undefined): string {
  if (!body || body.length === 0) return "";
  try {
    return utf8.decode(body);
  } catch {
    throw badRequest("the request body is not valid UTF-8");
  }
}

/** Parses a JSON body; malformed JSON is a 400 naming the problem. */
export function parseJSONBody(text: string): unknown {
  // Refused before parsing: every later step walks the value recursively.
  if (jsonTextDepth(text) > maxJSONDepth) throw depthExceeded("couldn't get version/kind; json parse error");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

/** Parses a YAML body (also JSON); aliases are bounded so a YAML bomb is a 400, not an outage. */
export function parseYAMLBody(text: string): unknown {
  let value: unknown;
  try {
    value = parseYAML(text, { maxAliasCount: 100, prettyErrors: false, uniqueKeys: false });
  } catch (error) {
    throw badRequest(`error converting YAML to JSON: ${(error as Error).message}`);
  }
  // Aliases can make a value deeper than its text: the decoded value is measured.
  if (exceedsDepth(value)) throw depthExceeded("error converting YAML to JSON: yaml");
  return value;
}

/**
 * Reads the object body of a create or update according to its `Content-Type`.
 * A protobuf body (`application/vnd.kubernetes.protobuf`) is decoded into the same JSON shape.
 * @throws StatusError 415 for a media type other than JSON, YAML or protobuf (or a kind without a
 *   protobuf codec), 400 for a malformed body.
 */
export function readObjectBody(contentType: string | null, body: Uint8Array | undefined): unknown {
  return readObjectBodyText(contentType, body).value;
}

/**
 * {@link readObjectBody}, with the text the value was parsed from when the body was JSON or YAML
 * (callers that also look at the text, for duplicate fields, need not decode the bytes again).
 * @throws StatusError as {@link readObjectBody}.
 */
export function readObjectBodyText(contentType: string | null, body: Uint8Array | undefined): { value: unknown; text?: string } {
  const media = contentType ? parseMediaType(contentType) : undefined;
  const essence = media ? `${media.type}/${media.subtype}` : "application/json";
  if (isProtobufMediaType(essence)) {
    if (!body || body.length === 0) throw badRequest("the request body is empty: an object is required");
    const { object } = decodeProtobufObject(body);
    // Each level of nesting takes at least two bytes: a short body cannot be too deep.
    if (body.length > 2 * maxJSONDepth && exceedsDepth(object)) throw depthExceeded("protobuf");
    return { value: object };
  }
  const text = decodeUTF8(body);
  if (text.trim() === "") throw badRequest("the request body is empty: an object is required");
  if (essence === "application/json" || essence === "*/*") return { value: parseJSONBody(text), text };
  if (essence === "application/yaml" || essence === "application/x-yaml" || essence === "text/yaml") return { value: parseYAMLBody(text), text };
  throw unsupportedMediaType(contentType ?? "", writeMediaTypes);
}
