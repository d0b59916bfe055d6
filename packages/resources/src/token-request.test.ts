import { notFound, StatusError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { StrategyContext } from "./resource-type.js";
import { serviceAccountType } from "./service-account.js";
import {
  defaultServiceAccountIssuer,
  serviceAccountClaimKey,
  serviceAccountTokenAction,
  serviceAccountTokenClaims,
  validateTokenRequest,
  type ServiceAccountTokenClaims,
  type ServiceAccountTokenIssuer,
} from "./token-request.js";

const now = Date.UTC(2026, 10, 21, 12, 0, 0);
const iat = now / 1000;
const audience = "https://orch.default.svc.cluster.local";

const sa: APIObject = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder", namespace: "ci", uid: "sa-uid" } };
const stored: Record<string, APIObject> = {
  "pods/ci/runner": { metadata: { name: "runner", namespace: "ci", uid: "pod-uid" }, spec: { serviceAccountName: "builder", nodeName: "n1" } },
  "pods/ci/unscheduled": { metadata: { name: "unscheduled", namespace: "ci", uid: "pod2-uid" }, spec: { serviceAccountName: "builder" } },
  "pods/ci/orphaned": { metadata: { name: "orphaned", namespace: "ci", uid: "pod3-uid" }, spec: { serviceAccountName: "builder", nodeName: "gone" } },
  "pods/ci/other": { metadata: { name: "other", namespace: "ci", uid: "pod4-uid" }, spec: { serviceAccountName: "deployer" } },
  "secrets/ci/creds": { metadata: { name: "creds", namespace: "ci", uid: "secret-uid" } },
  "nodes//n1": { metadata: { name: "n1", uid: "node-uid" } },
};

/** Signs nothing: the "token" is the claims as JSON, so the tests can read them back. */
function fakeIssuer(overrides: Partial<ServiceAccountTokenIssuer> = {}): ServiceAccountTokenIssuer {
  return { audiences: [audience], extendExpiration: true, issue: async (claims) => JSON.stringify(claims), ...overrides };
}

function context(overrides: Partial<StrategyContext> = {}): StrategyContext {
  return {
    domain: "orch.io",
    now,
    get: async (group, resource, namespace, name) => {
      const found = stored[`${resource}/${namespace}/${name}`];
      if (!found) throw notFound({ group, resource }, name);
      return structuredClone(found);
    },
    serviceAccountTokens: fakeIssuer(),
    ...overrides,
  };
}

const request = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): APIObject => ({
  apiVersion: "authentication.orch.io/v1",
  kind: "TokenRequest",
  metadata,
  spec,
});

async function issue(body: APIObject, ctx = context()): Promise<{ response: APIObject; claims: ServiceAccountTokenClaims }> {
  const result = await serviceAccountTokenAction.act(structuredClone(sa), body, ctx);
  if (Array.isArray(result)) throw new Error("expected a token, got field errors");
  const response = result.body as APIObject;
  const token = (response["status"] as { token: string }).token;
  return { response, claims: JSON.parse(token) as ServiceAccountTokenClaims };
}

async function refusal(body: APIObject, ctx = context()): Promise<{ code: number; message: string }> {
  try {
    await serviceAccountTokenAction.act(structuredClone(sa), body, ctx);
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    return { code: (error as StatusError).code, message: (error as StatusError).message };
  }
  throw new Error("expected the token request to be refused");
}

describe("ServiceAccount token sub-resource", () => {
  it("lists token as a sub-resource taking an authentication TokenRequest", () => {
    expect(serviceAccountType.subresources).toEqual(["token"]);
    expect(serviceAccountType.strategy?.actions?.["token"]).toBe(serviceAccountTokenAction);
    expect(serviceAccountTokenAction).toMatchObject({ kind: "TokenRequest", apiVersion: "authentication.{domain}/v1" });
  });

  it("answers 201 with the request, defaulted to an hour and the server's audiences, its token and expiry, leaving the account alone", async () => {
    const result = await serviceAccountTokenAction.act(structuredClone(sa), request(), context());
    expect(result).toMatchObject({ code: 201, parent: "none" });
    const { response, claims } = await issue(request());
    expect(response).toMatchObject({
      apiVersion: "authentication.orch.io/v1",
      kind: "TokenRequest",
      metadata: { name: "builder", namespace: "ci", creationTimestamp: "2026-11-21T12:00:00Z" },
      spec: { audiences: [audience], expirationSeconds: 3600 },
      status: { expirationTimestamp: "2026-11-21T13:00:00Z" },
    });
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it("issues the reference's claims: sub, aud, iat = nbf = now, exp, a uuid jti and the private claim", async () => {
    const { claims } = await issue(request({ audiences: ["vault", "api"], expirationSeconds: 1200 }));
    expect(claims).toEqual({
      aud: ["vault", "api"],
      exp: iat + 1200,
      iat,
      jti: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      "orch.io": { namespace: "ci", serviceaccount: { name: "builder", uid: "sa-uid" } },
      nbf: iat,
      sub: "system:serviceaccount:ci:builder",
    });
  });

  it("binds to a pod running as the account, with the pod's node in the claims", async () => {
    const { response, claims } = await issue(request({ boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "runner", uid: "pod-uid" } }));
    expect(response["spec"]).toMatchObject({ boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "runner", uid: "pod-uid" } });
    expect(claims["orch.io"]).toEqual({
      namespace: "ci",
      node: { name: "n1", uid: "node-uid" },
      pod: { name: "runner", uid: "pod-uid" },
      serviceaccount: { name: "builder", uid: "sa-uid" },
    });
  });

  it("names a missing node of a bound pod without a uid, and leaves out the node of an unscheduled pod", async () => {
    expect((await issue(request({ boundObjectRef: { kind: "Pod", name: "orphaned" } }))).claims["orch.io"]).toMatchObject({ node: { name: "gone" } });
    expect((await issue(request({ boundObjectRef: { kind: "Pod", name: "orphaned" } }))).claims["orch.io"]).not.toHaveProperty("node.uid");
    expect((await issue(request({ boundObjectRef: { kind: "Pod", name: "unscheduled" } }))).claims["orch.io"]).not.toHaveProperty("node");
  });

  it("binds to a secret or a node", async () => {
    expect((await issue(request({ boundObjectRef: { kind: "Secret", apiVersion: "v1", name: "creds" } }))).claims["orch.io"]).toEqual({
      namespace: "ci",
      secret: { name: "creds", uid: "secret-uid" },
      serviceaccount: { name: "builder", uid: "sa-uid" },
    });
    expect((await issue(request({ boundObjectRef: { kind: "Node", apiVersion: "v1", name: "n1", uid: "node-uid" } }))).claims["orch.io"]).toEqual({
      namespace: "ci",
      node: { name: "n1", uid: "node-uid" },
      serviceaccount: { name: "builder", uid: "sa-uid" },
    });
  });

  it.each([
    [{ kind: "Pod", name: "absent" }, 404, 'pods "absent" not found'],
    [{ kind: "Secret", name: "absent" }, 404, 'secrets "absent" not found'],
    [{ kind: "Node", name: "absent" }, 404, 'nodes "absent" not found'],
    [
      { kind: "Pod", apiVersion: "v1", name: "runner", uid: "stale" },
      409,
      'Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated',
    ],
    [
      { kind: "Secret", name: "creds", uid: "stale" },
      409,
      'Operation cannot be fulfilled on Secret "creds": the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated',
    ],
    [{ kind: "Deployment", apiVersion: "apps/v1", name: "web" }, 400, "cannot bind token to object of type apps/v1, Kind=Deployment"],
    [{ kind: "Pod", apiVersion: "apps/v1", name: "runner" }, 400, "cannot bind token to object of type apps/v1, Kind=Pod"],
    [{ kind: "ConfigMap", apiVersion: "v1", name: "c" }, 400, "cannot bind token to object of type /v1, Kind=ConfigMap"],
    [{ name: "x" }, 400, "cannot bind token to object of type /, Kind="],
    [{ kind: "Pod", name: "other" }, 400, 'cannot bind token for serviceaccount "builder" to pod running with different serviceaccount name.'],
  ])("refuses the bound object %j with %d: %s", async (ref, code, message) => {
    expect(await refusal(request({ boundObjectRef: ref }))).toEqual({ code, message });
  });

  it.each([
    [599, "may not specify a duration less than 10 minutes"],
    [0, "may not specify a duration less than 10 minutes"],
    [-1, "may not specify a duration less than 10 minutes"],
    [2 ** 32 + 1, "may not specify a duration larger than 2^32 seconds"],
  ])("refuses expirationSeconds %d with 422: %s", async (seconds, detail) => {
    expect(await refusal(request({ expirationSeconds: seconds }))).toEqual({
      code: 422,
      message: `TokenRequest.authentication.orch.io "" is invalid: spec.expirationSeconds: Invalid value: ${seconds}: ${detail}`,
    });
  });

  it("accepts the bounds 10 minutes and 2^32 seconds", async () => {
    expect((await issue(request({ expirationSeconds: 600 }))).claims.exp).toBe(iat + 600);
    expect((await issue(request({ expirationSeconds: 2 ** 32 }))).claims.exp).toBe(iat + 2 ** 32);
  });

  it("refuses a body naming another account or namespace with 422 on the account's name", async () => {
    expect(await refusal(request({}, { name: "deployer" }))).toEqual({
      code: 422,
      message:
        'TokenRequest.authentication.orch.io "builder" is invalid: metadata.name: Invalid value: "deployer": must match the service account name if specified',
    });
    expect(await refusal(request({}, { name: "builder", namespace: "default" }))).toEqual({
      code: 422,
      message:
        'TokenRequest.authentication.orch.io "builder" is invalid: metadata.namespace: Invalid value: "default": must match the service account namespace if specified',
    });
  });

  it("extends a pod-bound kubelet-style request (3607 s, the server's audiences) to a year with warnafter", async () => {
    const bound = { boundObjectRef: { kind: "Pod", name: "runner" } };
    const { response, claims } = await issue(request({ ...bound, expirationSeconds: 3607 }));
    expect(claims.exp).toBe(iat + 365 * 24 * 3600);
    expect(claims["orch.io"]).toMatchObject({ warnafter: iat + 3607 });
    expect(response["status"]).toMatchObject({ expirationTimestamp: "2026-11-21T13:00:07Z" });
    expect((await issue(request({ ...bound, expirationSeconds: 3607, audiences: ["vault"] }))).claims.exp).toBe(iat + 3607);
    expect((await issue(request({ expirationSeconds: 3607 }))).claims.exp).toBe(iat + 3607);
    const unextended = await issue(request({ ...bound, expirationSeconds: 3607 }), context({ serviceAccountTokens: fakeIssuer({ extendExpiration: false }) }));
    expect(unextended.claims.exp).toBe(iat + 3607);
    expect(unextended.claims["orch.io"]).not.toHaveProperty("warnafter");
  });

  it("answers 500 when the server supplies no issuer or the issuer fails", async () => {
    expect(await refusal(request(), context({ serviceAccountTokens: undefined as never }))).toMatchObject({ code: 500 });
    const failing = fakeIssuer({ issue: async () => Promise.reject(new Error("no key")) });
    expect(await refusal(request(), context({ serviceAccountTokens: failing }))).toEqual({
      code: 500,
      message: "Internal error occurred: failed to generate token: no key",
    });
  });
});

describe("TokenRequest rules and claims", () => {
  it("validates expirationSeconds only", () => {
    expect(validateTokenRequest(request({ expirationSeconds: 3600 }))).toEqual([]);
    expect(validateTokenRequest(request({ expirationSeconds: 1 }))).toEqual([
      { type: "FieldValueInvalid", field: "spec.expirationSeconds", detail: "may not specify a duration less than 10 minutes", value: 1 },
    ]);
  });

  it("names the private claim and the default issuer after the domain", () => {
    expect(serviceAccountClaimKey("orch.io")).toBe("orch.io");
    expect(serviceAccountClaimKey("k8s.io")).toBe("kubernetes.io");
    expect(defaultServiceAccountIssuer("orch.io")).toBe("https://orch.default.svc.cluster.local");
    expect(defaultServiceAccountIssuer("k8s.io")).toBe("https://kubernetes.default.svc.cluster.local");
  });

  it("prints the claims with sorted keys, as the reference's encoder does", () => {
    const claims = serviceAccountTokenClaims({
      domain: "k8s.io",
      serviceAccount: sa,
      pod: stored["pods/ci/runner"] as APIObject,
      node: stored["nodes//n1"] as APIObject,
      audiences: ["a"],
      expirationSeconds: 600,
      warnAfterSeconds: 60,
      now,
      jti: "id",
    });
    expect(JSON.stringify(claims)).toBe(
      `{"aud":["a"],"exp":${iat + 600},"iat":${iat},"jti":"id","kubernetes.io":{"namespace":"ci","node":{"name":"n1","uid":"node-uid"},"pod":{"name":"runner","uid":"pod-uid"},"serviceaccount":{"name":"builder","uid":"sa-uid"},"warnafter":${iat + 60}},"nbf":${iat},"sub":"system:serviceaccount:ci:builder"}`,
    );
  });

  it("refuses to bind one token to a secret and a pod", () => {
    const input = { domain: "orch.io", serviceAccount: sa, audiences: [], expirationSeconds: 600, now };
    expect(() => serviceAccountTokenClaims({ ...input, secret: sa, pod: sa })).toThrow("token can only be bound to one object type");
  });
});
