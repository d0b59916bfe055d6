/**
 * TokenRequest (`authentication.{domain}/v1`): the body and the answer of the ServiceAccount
 * `token` sub-resource, which issues a signed JWT for the account (the reference's
 * `serviceaccounts/token` REST). This module holds the schema, the reference's validation, the
 * binding to a Pod, Secret or Node, and the claims of the token. Signing is a port
 * ({@link ServiceAccountTokenIssuer}) the server supplies through the strategy context, so no key
 * material and no cryptography enter the catalog.
 * @module
 */
import {
  FieldPath,
  extensionPrefix,
  formatGroupVersionKind,
  formatTime,
  badRequest,
  conflict,
  internalError,
  invalid,
  invalidField,
  isNotFound,
  type APIObject,
  type FieldError,
  type GroupVersionKind,
  type QualifiedKind,
} from "@orch/meta";
import { z } from "zod";
import { record, str } from "./internal/rules.js";
import type { ActionSubresource, StrategyContext } from "./resource-type.js";
import { atomicStrings, int64, named, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** The shortest validity a TokenRequest may ask for: 10 minutes, in seconds. */
export const minTokenExpirationSeconds = 10 * 60;
/** The longest validity a TokenRequest may ask for: 2^32 seconds. */
export const maxTokenExpirationSeconds = 2 ** 32;
/** The validity of a TokenRequest that names none: one hour, in seconds. */
export const defaultTokenExpirationSeconds = 60 * 60;
/**
 * The validity (1 h 7 s) the kubelet asks for projected tokens; a pod-bound request for exactly
 * this and only the server's own audiences gets a token valid for
 * {@link expirationExtensionSeconds} with a `warnafter` claim, as the reference's
 * `--service-account-extend-token-expiration` (on by default) does.
 */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
/** The validity of an extended token (see {@link warnOnlyBoundTokenExpirationSeconds}): one year, in seconds. */
export const expirationExtensionSeconds = 365 * 24 * 60 * 60;

/** `BoundObjectReference`: the object a token is bound to (a Pod, Secret or Node). */
export const boundObjectReferenceSchema = named(
  z
    .object({
      apiVersion: z.string().optional().describe("API version of the referent."),
      kind: z.string().optional().describe("Kind of the referent. Valid kinds are 'Pod', 'Secret' and 'Node'."),
      name: z.string().optional().describe("Name of the referent."),
      uid: z.string().optional().describe("UID of the referent."),
    })
    .meta({ description: "BoundObjectReference is a reference to an object that a token is bound to." }),
  "api.authentication.v1.BoundObjectReference",
);

/** `TokenRequestSpec`: the audiences, the validity and the bound object of the requested token. */
export const tokenRequestSpecSchema = named(
  z
    .object({
      audiences: atomicStrings()
        .optional()
        .describe(
          "Audiences are the intendend audiences of the token. A recipient of a token must identify themself with an identifier in the list of audiences of the token, and otherwise should reject the token. A token issued for multiple audiences may be used to authenticate against any of the audiences listed but implies a high degree of trust between the target audiences.",
        ),
      boundObjectRef: boundObjectReferenceSchema
        .optional()
        .describe(
          "BoundObjectRef is a reference to an object that the token will be bound to. The token will only be valid for as long as the bound object exists. NOTE: The API server's TokenReview endpoint will validate the BoundObjectRef, but other audiences may not. Keep ExpirationSeconds small if you want prompt revocation.",
        ),
      expirationSeconds: int64()
        .optional()
        .describe(
          "ExpirationSeconds is the requested duration of validity of the request. The token issuer may return a token with a different validity duration so a client needs to check the 'expiration' field in a response.",
        ),
    })
    .meta({ description: "TokenRequestSpec contains client provided parameters of a token request.", required: ["audiences"] }),
  "api.authentication.v1.TokenRequestSpec",
);

/** `TokenRequestStatus`: the token and when it expires. */
export const tokenRequestStatusSchema = named(
  z
    .object({
      expirationTimestamp: time().optional().describe("ExpirationTimestamp is the time of expiration of the returned token."),
      token: z.string().optional().describe("Token is the opaque bearer token."),
    })
    .meta({ description: "TokenRequestStatus is the result of a token request.", required: ["token", "expirationTimestamp"] }),
  "api.authentication.v1.TokenRequestStatus",
);

/** The zod schema of a TokenRequest in `authentication.{domain}/v1`. */
export const tokenRequestV1Schema = kindSchema(
  {
    spec: tokenRequestSpecSchema.optional().describe("Spec holds information about the request being evaluated"),
    status: tokenRequestStatusSchema.optional().describe("Status is filled in by the server and indicates whether the token can be authenticated."),
  },
  "TokenRequest requests a token for a given service account.",
).meta({ required: ["spec"] });

/** The kind of TokenRequest errors: `TokenRequest.authentication.<domain>`. */
function tokenRequestKind(domain: string): QualifiedKind {
  return { group: `authentication.${domain}`, kind: "TokenRequest" };
}

/** Fills what the reference's `SetDefaults_TokenRequestSpec` fills: `spec.expirationSeconds` 3600. */
export function defaultTokenRequest(object: APIObject): void {
  const spec = record(object["spec"]) ?? {};
  if (spec["expirationSeconds"] === undefined) spec["expirationSeconds"] = defaultTokenExpirationSeconds;
  object["spec"] = spec;
}

/**
 * The reference's `ValidateTokenRequest`: `spec.expirationSeconds` from 10 minutes
 * (`may not specify a duration less than 10 minutes`) to 2^32 seconds
 * (`may not specify a duration larger than 2^32 seconds`), after {@link defaultTokenRequest}.
 */
export function validateTokenRequest(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const seconds = record(object["spec"])?.["expirationSeconds"];
  const path = FieldPath.root("spec").child("expirationSeconds");
  if (typeof seconds !== "number") return errors;
  if (seconds < minTokenExpirationSeconds) errors.push(invalidField(path, seconds, "may not specify a duration less than 10 minutes"));
  if (seconds > maxTokenExpirationSeconds) errors.push(invalidField(path, seconds, "may not specify a duration larger than 2^32 seconds"));
  return errors;
}

/** The user name of a service account: `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * The key of the private claim of a service-account token: `kubernetes.io` for domain `k8s.io`
 * (where the reference's clients look for it), the domain itself otherwise (`orch.io`).
 */
export function serviceAccountClaimKey(domain: string): string {
  return domain === "k8s.io" ? "kubernetes.io" : domain;
}

/**
 * The default issuer (`iss`) of service-account tokens, which is also the default audience: the
 * in-cluster name of the API server as kubeadm configures it,
 * `https://kubernetes.default.svc.cluster.local` for domain `k8s.io`,
 * `https://orch.default.svc.cluster.local` otherwise.
 */
export function defaultServiceAccountIssuer(domain: string): string {
  return `https://${extensionPrefix(domain)}.default.svc.cluster.local`;
}

/** A name and uid in the private claim (each left out when empty, as the reference's `omitempty`). */
export interface ServiceAccountTokenRef {
  name?: string;
  uid?: string;
}

/** The private claim of a service-account token, under {@link serviceAccountClaimKey}. */
export interface ServiceAccountPrivateClaim {
  namespace?: string;
  /** The pod's node (a pod-bound token), or the node the token is bound to. */
  node?: ServiceAccountTokenRef;
  pod?: ServiceAccountTokenRef;
  secret?: ServiceAccountTokenRef;
  serviceaccount: ServiceAccountTokenRef;
  /** Seconds since the epoch after which a use of an extended token is reported as stale. */
  warnafter?: number;
}

/**
 * The claims of a service-account token but `iss`, which the issuer adds: `aud`, `exp`, `iat`,
 * `jti`, `nbf`, `sub` and the private claim under the domain's key. Times are seconds since
 * the epoch.
 */
export interface ServiceAccountTokenClaims {
  aud: string[];
  exp: number;
  iat: number;
  jti: string;
  nbf: number;
  sub: string;
  /** The private claim, under {@link serviceAccountClaimKey}. */
  [privateClaimKey: string]: unknown;
}

/** What {@link serviceAccountTokenClaims} builds the claims from. */
export interface ServiceAccountTokenClaimsInput {
  /** The product domain: it names the private claim. */
  domain: string;
  serviceAccount: APIObject;
  /** The pod a pod-bound token is bound to. */
  pod?: APIObject;
  /** The secret a secret-bound token is bound to. */
  secret?: APIObject;
  /** The node a node-bound token is bound to, or the node of the bound pod. */
  node?: APIObject;
  audiences: readonly string[];
  /** Validity from `now`, in seconds. */
  expirationSeconds: number;
  /** For an extended token: seconds from `now` until `warnafter`. */
  warnAfterSeconds?: number;
  /** Now, in milliseconds since the epoch. */
  now: number;
  /** The token id; a random UUID by default. */
  jti?: string;
}

function refOf(object: APIObject): ServiceAccountTokenRef {
  const ref: ServiceAccountTokenRef = {};
  const name = object.metadata?.name ?? "";
  const uid = object.metadata?.uid ?? "";
  if (name) ref.name = name;
  if (uid) ref.uid = uid;
  return ref;
}

/**
 * The claims the reference's `serviceaccount.Claims` makes, keys sorted as its JSON encoder
 * prints them: `sub` the account's user name, `aud`, `iat` = `nbf` = now, `exp` = now plus
 * `expirationSeconds`, `jti` a UUID, and the private claim with the namespace, the account's name
 * and uid, the bound pod (with its node), secret or node, and `warnafter`.
 * @throws TypeError when a secret is given with a pod or a node (a token binds to one object).
 */
export function serviceAccountTokenClaims(input: ServiceAccountTokenClaimsInput): ServiceAccountTokenClaims {
  if (input.secret && (input.pod || input.node)) throw new TypeError("internal error, token can only be bound to one object type");
  const now = Math.floor(input.now / 1000);
  const namespace = input.serviceAccount.metadata?.namespace ?? "";
  // Keys in the order the reference's encoder prints them (sorted).
  const claim: Partial<ServiceAccountPrivateClaim> = {};
  if (namespace) claim.namespace = namespace;
  if (input.node) claim.node = refOf(input.node);
  if (input.pod) claim.pod = refOf(input.pod);
  if (input.secret) claim.secret = refOf(input.secret);
  claim.serviceaccount = refOf(input.serviceAccount);
  if (input.warnAfterSeconds) claim.warnafter = now + input.warnAfterSeconds;
  return {
    aud: [...input.audiences],
    exp: now + input.expirationSeconds,
    iat: now,
    jti: input.jti ?? crypto.randomUUID(),
    [serviceAccountClaimKey(input.domain)]: claim,
    nbf: now,
    sub: serviceAccountUsername(namespace, input.serviceAccount.metadata?.name ?? ""),
  };
}

/**
 * The port through which the `token` sub-resource has tokens signed; the server supplies it in
 * {@link StrategyContext.serviceAccountTokens}. Implementations hold the key and add `iss`.
 */
export interface ServiceAccountTokenIssuer {
  /** The audiences of a request that names none: the API server's own. */
  readonly audiences: readonly string[];
  /**
   * Whether pod-bound requests for {@link warnOnlyBoundTokenExpirationSeconds} with only the
   * server's audiences get an extended token (the reference's default, true).
   */
  readonly extendExpiration: boolean;
  /**
   * Signs `claims` (adding `iss`) and resolves with the compact JWS.
   * @throws when the key cannot sign; the request is then a 500.
   */
  issue(claims: ServiceAccountTokenClaims): Promise<string>;
}

/** The group, version and kind of an `apiVersion` and `kind`, as the reference's `FromAPIVersionAndKind`. */
function groupVersionKind(apiVersion: string, kind: string): GroupVersionKind {
  if (apiVersion === "" || apiVersion === "/") return { group: "", version: "", kind };
  const parts = apiVersion.split("/");
  if (parts.length === 1) return { group: "", version: apiVersion, kind };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string, kind };
  return { group: "", version: "", kind };
}

interface BoundObjects {
  pod?: APIObject;
  secret?: APIObject;
  node?: APIObject;
}

/** Reads the bound object of `ref` (and a bound pod's node), with the reference's errors. */
async function boundObjects(ref: Record<string, unknown>, serviceAccount: string, namespace: string, ctx: StrategyContext): Promise<BoundObjects> {
  const gvk = groupVersionKind(str(ref["apiVersion"]), str(ref["kind"]));
  const name = str(ref["name"]);
  const get = ctx.get;
  if (!get) throw internalError("the server reads no other objects for this action");
  const out: BoundObjects = {};
  let object: APIObject;
  if (gvk.group === "" && gvk.kind === "Pod") {
    object = await get("", "pods", namespace, name);
    out.pod = object;
    const spec = record(object["spec"]) ?? {};
    if (str(spec["serviceAccountName"]) !== serviceAccount) {
      throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(serviceAccount)} to pod running with different serviceaccount name.`);
    }
    const nodeName = str(spec["nodeName"]);
    if (nodeName !== "") {
      // A missing node still names itself in the claims, as in the reference.
      out.node = await get("", "nodes", "", nodeName).catch((error: unknown) => {
        if (isNotFound(error)) return { metadata: { name: nodeName } } as APIObject;
        throw error;
      });
    }
  } else if (gvk.group === "" && gvk.kind === "Node") {
    object = await get("", "nodes", "", name);
    out.node = object;
  } else if (gvk.group === "" && gvk.kind === "Secret") {
    object = await get("", "secrets", namespace, name);
    out.secret = object;
  } else {
    throw badRequest(`cannot bind token to object of type ${formatGroupVersionKind(gvk)}`);
  }
  const uid = str(ref["uid"]);
  if (uid !== "" && uid !== object.metadata?.uid) {
    throw conflict(
      { group: gvk.group, resource: gvk.kind },
      name,
      `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return out;
}

/**
 * `POST serviceaccounts/{name}/token` (the reference's `TokenREST.Create`): answers 201 with the
 * TokenRequest, its `status.token` a JWT for the service account signed by the server's
 * {@link ServiceAccountTokenIssuer}, and `status.expirationTimestamp` now plus
 * `spec.expirationSeconds`. In order:
 *
 * - a body `metadata.name` or `metadata.namespace` other than the account's is a 422 on it
 *   (`must match the service account name if specified`);
 * - empty `spec.audiences` become the server's audiences; `spec.expirationSeconds` defaults to
 *   3600 and must lie in [600, 2^32] (a 422 on `TokenRequest.authentication.<domain> ""`);
 * - `spec.boundObjectRef` binds the token to a Pod (which must run as this account; its node goes
 *   into the claims too), a Secret or a Node of the core group: a missing object is its 404, a
 *   different `uid` a 409, another kind a 400 (`cannot bind token to object of type apps/v1, Kind=Deployment`).
 *
 * Nothing is stored, and the service account is left as it is.
 */
export const serviceAccountTokenAction: ActionSubresource = {
  kind: "TokenRequest",
  apiVersion: "authentication.{domain}/v1",
  schema: tokenRequestV1Schema,
  async act(parent, body, ctx) {
    const name = parent.metadata?.name ?? "";
    const namespace = parent.metadata?.namespace ?? "";
    const kind = tokenRequestKind(ctx.domain);
    const meta = { ...(body.metadata ?? {}) };
    if (meta.name && meta.name !== name) {
      throw invalid(kind, name, [invalidField(FieldPath.root("metadata").child("name"), meta.name, "must match the service account name if specified")]);
    }
    if (meta.namespace && meta.namespace !== namespace) {
      throw invalid(kind, name, [
        invalidField(FieldPath.root("metadata").child("namespace"), meta.namespace, "must match the service account namespace if specified"),
      ]);
    }
    const issuer = ctx.serviceAccountTokens;
    if (!issuer) throw internalError("service account token issuance is not configured");
    const request: APIObject = { ...body, metadata: { ...meta, name, namespace, creationTimestamp: formatTime(ctx.now) } };
    delete request["status"];
    defaultTokenRequest(request);
    const given = record(request["spec"]) as Record<string, unknown>;
    const audiences = Array.isArray(given["audiences"]) && given["audiences"].length ? (given["audiences"] as string[]) : [...issuer.audiences];
    const seconds = given["expirationSeconds"] as number;
    const ref = record(given["boundObjectRef"]);
    request["spec"] = { audiences, expirationSeconds: seconds, ...(ref ? { boundObjectRef: ref } : {}) };
    const errors = validateTokenRequest(request);
    if (errors.length) throw invalid(kind, "", errors);
    const bound = ref ? await boundObjects(ref, name, namespace, ctx) : {};
    const extend =
      issuer.extendExpiration &&
      bound.pod !== undefined &&
      seconds === warnOnlyBoundTokenExpirationSeconds &&
      audiences.every((a) => issuer.audiences.includes(a));
    const claims = serviceAccountTokenClaims({
      domain: ctx.domain,
      serviceAccount: parent,
      ...bound,
      audiences,
      expirationSeconds: extend ? expirationExtensionSeconds : seconds,
      ...(extend ? { warnAfterSeconds: seconds } : {}),
      now: ctx.now,
    });
    let token: string;
    try {
      token = await issuer.issue(claims);
    } catch (error) {
      throw internalError(`failed to generate token: ${error instanceof Error ? error.message : String(error)}`, error);
    }
    request["status"] = { token, expirationTimestamp: formatTime(ctx.now + seconds * 1000) };
    return { code: 201, body: request, parent: "none" };
  },
};
