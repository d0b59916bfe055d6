/**
 * The AdmissionReview exchanged with a webhook (`admission.<domain>`, `v1` or `v1beta1`): the
 * request built from the admission attributes and the matched version, and the checks of the
 * answer (the reference's `CreateAdmissionObjects` and `VerifyAdmissionResponse`).
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from "../attributes.js";
import { record, stringMap, strings } from "../internal/json.js";

/** The AdmissionReview versions this server speaks, in the order it prefers them when a webhook lists both. */
export type ReviewVersion = "v1" | "v1beta1";

/** The first of `versions` this server speaks (`v1` or `v1beta1`); `undefined` when none. */
export function reviewVersionOf(versions: readonly string[]): ReviewVersion | undefined {
  return versions.find((v): v is ReviewVersion => v === "v1" || v === "v1beta1");
}

/** The `apiVersion` of an AdmissionReview of `version` under `domain` (`admission.orch.io/v1`). */
export function reviewAPIVersion(domain: string, version: ReviewVersion): string {
  return `admission.${domain}/${version}`;
}

/** What a webhook is called about: the resource and kind it matched in, and the objects in that version. */
export interface ReviewSubject {
  /** The resource the webhook matched (the request's, or an equivalent version's). */
  resource: GroupVersionResource;
  /** The kind of `object` in that version. */
  kind: GroupVersionKind;
  /** The sub-resource written. */
  subresource: string;
  /** The object in that version; `undefined` for DELETE. */
  object: APIObject | undefined;
  /** The stored object in that version; `undefined` for CREATE and CONNECT. */
  oldObject: APIObject | undefined;
}

function userInfo(attrs: AdmissionAttributes): Record<string, unknown> {
  const user: Record<string, unknown> = { username: attrs.user.name };
  if (attrs.user.uid) user["uid"] = attrs.user.uid;
  if (attrs.user.groups.length) user["groups"] = attrs.user.groups;
  if (attrs.user.extra && Object.keys(attrs.user.extra).length) user["extra"] = attrs.user.extra;
  return user;
}

/**
 * The AdmissionReview sent to a webhook: `request` with `uid`, the matched `kind`, `resource`
 * and `subResource`, the request's own `requestKind`, `requestResource` and
 * `requestSubResource`, `name`, `namespace`, `operation`, `userInfo`, `object` and `oldObject`
 * (`null` when absent), `options` (`null` when absent) and `dryRun`.
 */
export function admissionReviewRequest(
  domain: string,
  version: ReviewVersion,
  uid: string,
  attrs: AdmissionAttributes,
  subject: ReviewSubject,
): Record<string, unknown> {
  const request: Record<string, unknown> = {
    uid,
    kind: subject.kind,
    resource: subject.resource,
  };
  if (subject.subresource) request["subResource"] = subject.subresource;
  request["requestKind"] = attrs.requestKind;
  request["requestResource"] = attrs.requestResource;
  if (attrs.subresource) request["requestSubResource"] = attrs.subresource;
  if (attrs.name) request["name"] = attrs.name;
  if (attrs.namespace) request["namespace"] = attrs.namespace;
  request["operation"] = attrs.operation;
  request["userInfo"] = userInfo(attrs);
  request["object"] = subject.object ?? null;
  request["oldObject"] = subject.oldObject ?? null;
  request["dryRun"] = attrs.dryRun;
  request["options"] = attrs.options ?? null;
  return { kind: "AdmissionReview", apiVersion: reviewAPIVersion(domain, version), request };
}

/** The parts of a webhook's answer the plugins act on. */
export interface AdmissionReviewAnswer {
  /** Whether the webhook admits the request. */
  allowed: boolean;
  /** The Status of a denial, as the webhook sent it. */
  status: unknown;
  /** The decoded patch text (a JSON patch), `undefined` when none. */
  patch: string | undefined;
  /** The patch type (`JSONPatch`), `undefined` when none. */
  patchType: string | undefined;
  /** Warnings for the client. */
  warnings: string[];
  /** Audit annotations, keyed as the webhook sent them. */
  auditAnnotations: Record<string, string>;
}

/** What the answer must agree with: the version sent, the request's uid, and the kind of webhook. */
export interface ExpectedAnswer {
  /** The product domain of the review's group. */
  domain: string;
  /** The version sent. */
  version: ReviewVersion;
  /** The request's uid. */
  uid: string;
  /** True for a mutating webhook (which may answer with a patch). */
  mutating: boolean;
}

function decodeBase64(value: string): string {
  const binary = atob(value);
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

function checkPatchFields(response: Record<string, unknown>, expected: ExpectedAnswer): { patch: string | undefined; patchType: string | undefined } {
  const rawPatch = typeof response["patch"] === "string" && response["patch"] !== "" ? response["patch"] : undefined;
  const rawType = response["patchType"];
  if (expected.version === "v1beta1") {
    // v1beta1 answers were never checked for their patch type: a patch is a JSON patch, and a
    // validating webhook's patch is ignored.
    if (!expected.mutating || rawPatch === undefined) return { patch: undefined, patchType: undefined };
    return { patch: decodePatch(rawPatch), patchType: "JSONPatch" };
  }
  const hasType = rawType !== undefined && rawType !== null;
  if (!expected.mutating) {
    if (rawPatch !== undefined) throw new Error("validating webhook may not return response.patch");
    if (hasType) throw new Error("validating webhook may not return response.patchType");
    return { patch: undefined, patchType: undefined };
  }
  if (rawPatch !== undefined && !hasType) throw new Error("webhook returned response.patch but not response.patchType");
  if (rawPatch === undefined && hasType) throw new Error("webhook returned response.patchType but not response.patch");
  if (!hasType) return { patch: undefined, patchType: undefined };
  if (typeof rawType !== "string" || rawType === "") throw new Error(`webhook returned invalid response.patchType of ${JSON.stringify(rawType)}`);
  return { patch: decodePatch(rawPatch as string), patchType: rawType };
}

/** A patch that is not base64 of UTF-8 text: the reference's "undecodable patch". */
export class UndecodablePatchError extends Error {
  override readonly name = "UndecodablePatchError";
}

function decodePatch(value: string): string {
  try {
    return decodeBase64(value);
  } catch (error) {
    throw new UndecodablePatchError(`response.patch is not base64: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Checks a webhook's answer (`body`, parsed JSON) against what was sent: an AdmissionReview of
 * the same `apiVersion`, with a `response` whose `uid` is the request's (`v1`; `v1beta1` answers
 * were never held to it), and patch fields only from a mutating webhook (`v1`: `patch` and
 * `patchType` together).
 * @throws Error with the reference's wording (`expected response.uid="..." , got "..."`).
 * @throws UndecodablePatchError when `patch` is not base64.
 */
export function verifyAdmissionReview(body: unknown, expected: ExpectedAnswer): AdmissionReviewAnswer {
  const review = record(body);
  const want = `${reviewAPIVersion(expected.domain, expected.version)}, Kind=AdmissionReview`;
  if (!review) throw new Error(`expected webhook response of ${want}, got a JSON ${Array.isArray(body) ? "array" : typeof body}`);
  const got = `${String(review["apiVersion"] ?? "")}, Kind=${String(review["kind"] ?? "")}`;
  if (got !== want) throw new Error(`expected webhook response of ${want}, got ${got}`);
  const response = record(review["response"]);
  if (!response) throw new Error("webhook response was absent");
  if (expected.version === "v1" && response["uid"] !== expected.uid) {
    throw new Error(`expected response.uid=${JSON.stringify(expected.uid)}, got ${JSON.stringify(response["uid"] ?? "")}`);
  }
  const { patch, patchType } = checkPatchFields(response, expected);
  return {
    allowed: response["allowed"] === true,
    status: response["status"],
    patch,
    patchType,
    warnings: strings(response["warnings"]),
    auditAnnotations: stringMap(response["auditAnnotations"]),
  };
}
