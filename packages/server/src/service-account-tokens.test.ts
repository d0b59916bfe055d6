import { FakeClock } from "@orch/store";
import { decodeProtectedHeader, jwtVerify } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { APIServer } from "./api-server.js";
import { ServiceAccountTokenSigner, serviceAccountKeyId, signingAlgorithm } from "./service-account-tokens.js";

async function call(server: APIServer, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json", ...headers }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** The reference's key id, computed here without the code under test: unpadded base64url of SHA-256(DER). */
async function referenceKeyId(publicKey: CryptoKey): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await crypto.subtle.exportKey("spki", publicKey)));
  return btoa(String.fromCharCode(...digest))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");
}

const rsaParams = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" };
const ecParams = (namedCurve: string) => ({ name: "ECDSA", namedCurve });

/** One RSA pair for the whole file: generating 2048-bit keys is slow. */
let rsaPair: Promise<CryptoKeyPair> | undefined;
const rsaKeys = () => (rsaPair ??= crypto.subtle.generateKey(rsaParams, true, ["sign", "verify"]) as Promise<CryptoKeyPair>);

const claims = { aud: ["a"], exp: 2000, iat: 1000, jti: "id", nbf: 1000, sub: "system:serviceaccount:ns:sa", "orch.io": { namespace: "ns" } };

afterEach(() => vi.restoreAllMocks());

describe("ServiceAccountTokenSigner", () => {
  it.each([
    ["RSA", rsaParams, "RS256"],
    ["ECDSA P-256", ecParams("P-256"), "ES256"],
    ["ECDSA P-384", ecParams("P-384"), "ES384"],
    ["ECDSA P-521", ecParams("P-521"), "ES512"],
  ])("signs with a %s key as %s, kid the SHA-256 of the public key's DER, iss added", async (_what, params, alg) => {
    const pair = params === rsaParams ? await rsaKeys() : ((await crypto.subtle.generateKey(params, true, ["sign", "verify"])) as CryptoKeyPair);
    const signer = new ServiceAccountTokenSigner("orch.io", { signingKey: pair.privateKey, issuer: "https://issuer.test" });
    const token = await signer.issue(claims);
    expect(decodeProtectedHeader(token)).toEqual({ alg, kid: await referenceKeyId(pair.publicKey) });
    const { payload } = await jwtVerify(token, pair.publicKey, { currentDate: new Date(1500 * 1000), issuer: "https://issuer.test" });
    expect(payload).toEqual({ ...claims, iss: "https://issuer.test" });
    expect(Object.keys(payload)).toEqual([...Object.keys(payload)].sort());
    const { key, kid } = await signer.verificationKey();
    expect(kid).toBe(await serviceAccountKeyId(pair.publicKey));
    await expect(jwtVerify(token, key, { currentDate: new Date(1500 * 1000) })).resolves.toBeDefined();
  });

  it("defaults the issuer and audiences after the domain, and extends kubelet tokens", () => {
    expect(new ServiceAccountTokenSigner("orch.io")).toMatchObject({
      issuer: "https://orch.default.svc.cluster.local",
      audiences: ["https://orch.default.svc.cluster.local"],
      extendExpiration: true,
    });
    expect(new ServiceAccountTokenSigner("k8s.io").audiences).toEqual(["https://kubernetes.default.svc.cluster.local"]);
    expect(new ServiceAccountTokenSigner("orch.io", { issuer: "https://x", audiences: ["api", "vault"], extendExpiration: false })).toMatchObject({
      issuer: "https://x",
      audiences: ["api", "vault"],
      extendExpiration: false,
    });
  });

  it("generates an ephemeral ES256 key on the first token, not before, and once", async () => {
    const generate = vi.spyOn(crypto.subtle, "generateKey");
    const signer = new ServiceAccountTokenSigner("orch.io");
    expect(generate).not.toHaveBeenCalled();
    const token = await signer.issue(claims);
    await signer.issue(claims);
    expect(generate).toHaveBeenCalledTimes(1);
    expect(decodeProtectedHeader(token).alg).toBe("ES256");
    const { key } = await signer.verificationKey();
    await expect(jwtVerify(token, key, { currentDate: new Date(1500 * 1000) })).resolves.toBeDefined();
  });

  it("loads a key given as a function once, on the first token", async () => {
    const pair = (await crypto.subtle.generateKey(ecParams("P-256"), true, ["sign", "verify"])) as CryptoKeyPair;
    const load = vi.fn(async () => pair.privateKey);
    const signer = new ServiceAccountTokenSigner("orch.io", { signingKey: load });
    expect(load).not.toHaveBeenCalled();
    await signer.issue(claims);
    await signer.issue(claims);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("needs keyId for a key that is not extractable", async () => {
    const pair = (await crypto.subtle.generateKey(ecParams("P-256"), false, ["sign", "verify"])) as CryptoKeyPair;
    await expect(new ServiceAccountTokenSigner("orch.io", { signingKey: pair.privateKey }).issue(claims)).rejects.toThrow("give keyId");
    const token = await new ServiceAccountTokenSigner("orch.io", { signingKey: pair.privateKey, keyId: "k1" }).issue(claims);
    expect(decodeProtectedHeader(token).kid).toBe("k1");
  });

  it("refuses keys the reference cannot sign with", async () => {
    const pss = (await crypto.subtle.generateKey({ ...rsaParams, name: "RSA-PSS" }, true, ["sign", "verify"])) as CryptoKeyPair;
    expect(() => signingAlgorithm(pss.privateKey)).toThrow("want RSA (RSASSA-PKCS1-v1_5, SHA-256) or ECDSA");
    const pair = (await crypto.subtle.generateKey(ecParams("P-256"), true, ["sign", "verify"])) as CryptoKeyPair;
    await expect(new ServiceAccountTokenSigner("orch.io", { signingKey: pair.publicKey }).issue(claims)).rejects.toThrow("private key usable to sign");
  });
});

describe("POST serviceaccounts/{name}/token", () => {
  const accounts = "/api/v1/namespaces/default/serviceaccounts";

  async function setup(options: ConstructorParameters<typeof APIServer>[0] = {}) {
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 12, 0, 0));
    const pair = await rsaKeys();
    const server = new APIServer({ clock, serviceAccountTokens: { signingKey: pair.privateKey }, ...options });
    const sa = await call(server, "POST", accounts, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder" } });
    expect(sa.status).toBe(201);
    return { server, clock, publicKey: pair.publicKey, uid: sa.json.metadata.uid as string };
  }

  it("answers every malformed TokenRequest with a 4xx Status, never a 500", async () => {
    const { server } = await setup();
    const bodies: unknown[] = [
      "",
      "{",
      "[]",
      "null",
      "42",
      { spec: "x" },
      { spec: { expirationSeconds: "abc" } },
      { spec: { expirationSeconds: -1 } },
      { spec: { expirationSeconds: 1e300 } },
      { spec: { expirationSeconds: 600.5 } },
      { spec: { audiences: "a" } },
      { spec: { audiences: [1] } },
      { spec: { boundObjectRef: { kind: "Pod" } } },
      { spec: { boundObjectRef: { kind: "Pod", name: "nope" } } },
      { spec: { boundObjectRef: { kind: "Secret", name: "s", apiVersion: "v2" } } },
      { spec: { boundObjectRef: { kind: "Node", name: "n", uid: 5 } } },
      { apiVersion: "v1", kind: "Pod" },
      { metadata: { name: "other" } },
      { metadata: { namespace: "elsewhere" } },
    ];
    for (const body of bodies) {
      for (const url of [`${accounts}/builder/token`, `${accounts}/missing/token`, "/api/v1/namespaces/absent/serviceaccounts/builder/token"]) {
        const res = await call(server, "POST", url, body);
        expect(res.status, `${JSON.stringify(body)} to ${url}: ${JSON.stringify(res.json)}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.json).toMatchObject({ kind: "Status", status: "Failure", code: res.status });
      }
    }
    for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
      const res = await call(server, method, `${accounts}/builder/token`, {});
      expect(res.status, method).toBe(405);
    }
  });

  it("does not generate a key when the server is built", () => {
    const generate = vi.spyOn(crypto.subtle, "generateKey");
    const server = new APIServer();
    expect(server.serviceAccountTokens.issuer).toBe("https://orch.default.svc.cluster.local");
    expect(generate).not.toHaveBeenCalled();
  });

  it("answers 201 with a TokenRequest whose token verifies with the server's key", async () => {
    const { server, clock, publicKey, uid } = await setup();
    const res = await call(server, "POST", `${accounts}/builder/token`, {
      apiVersion: "authentication.orch.io/v1",
      kind: "TokenRequest",
      spec: { audiences: ["vault"], expirationSeconds: 1200 },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      apiVersion: "authentication.orch.io/v1",
      kind: "TokenRequest",
      metadata: { name: "builder", namespace: "default", creationTimestamp: "2026-11-21T12:00:00Z" },
      spec: { audiences: ["vault"], expirationSeconds: 1200 },
      status: { expirationTimestamp: "2026-11-21T12:20:00Z" },
    });
    const token = res.json.status.token as string;
    expect(decodeProtectedHeader(token)).toEqual({ alg: "RS256", kid: await referenceKeyId(publicKey) });
    const { payload } = await jwtVerify(token, publicKey, {
      currentDate: new Date(clock.now()),
      issuer: "https://orch.default.svc.cluster.local",
      audience: "vault",
      subject: "system:serviceaccount:default:builder",
    });
    expect(payload.exp! - payload.iat!).toBe(1200);
    expect(payload.iat).toBe(clock.now() / 1000);
    expect(payload["orch.io"]).toEqual({ namespace: "default", serviceaccount: { name: "builder", uid } });
  });

  it("takes the body kubectl sends (nulls for unset fields) and defaults to an hour and the server's audiences", async () => {
    const { server, clock } = await setup({ domain: "k8s.io" });
    const res = await call(server, "POST", `${accounts}/builder/token`, {
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { creationTimestamp: null },
      spec: { audiences: null, expirationSeconds: null, boundObjectRef: null },
      status: { token: "", expirationTimestamp: null },
    });
    expect(res.status).toBe(201);
    expect(res.json.spec).toEqual({ audiences: ["https://kubernetes.default.svc.cluster.local"], expirationSeconds: 3600 });
    const { key } = await server.serviceAccountTokens.verificationKey();
    const { payload } = await jwtVerify(res.json.status.token as string, key, {
      currentDate: new Date(clock.now()),
      audience: "https://kubernetes.default.svc.cluster.local",
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload).toHaveProperty("kubernetes.io");
  });

  it("uses the configured issuer and audiences", async () => {
    const pair = (await crypto.subtle.generateKey(ecParams("P-384"), true, ["sign", "verify"])) as CryptoKeyPair;
    const { server, clock } = await setup({
      serviceAccountTokens: { signingKey: pair.privateKey, issuer: "https://issuer.test", audiences: ["api", "vault"] },
    });
    const res = await call(server, "POST", `${accounts}/builder/token`, { spec: {} });
    expect(res.json.spec.audiences).toEqual(["api", "vault"]);
    const { payload, protectedHeader } = await jwtVerify(res.json.status.token as string, pair.publicKey, {
      currentDate: new Date(clock.now()),
      issuer: "https://issuer.test",
    });
    expect(payload.aud).toEqual(["api", "vault"]);
    expect(protectedHeader.alg).toBe("ES384");
  });

  it("binds the token to a pod of the account, reading the pod and its node", async () => {
    const { server, clock, publicKey } = await setup();
    const node = await call(server, "POST", "/api/v1/nodes", { metadata: { name: "n1" } });
    const pod = await call(server, "POST", "/api/v1/namespaces/default/pods", {
      metadata: { name: "runner" },
      spec: { serviceAccountName: "builder", nodeName: "n1", containers: [{ name: "c", image: "busybox" }] },
    });
    expect(pod.status).toBe(201);
    const res = await call(server, "POST", `${accounts}/builder/token`, {
      spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "runner", uid: pod.json.metadata.uid } },
    });
    expect(res.status).toBe(201);
    const { payload } = await jwtVerify(res.json.status.token as string, publicKey, { currentDate: new Date(clock.now()) });
    expect(payload["orch.io"]).toMatchObject({ pod: { name: "runner", uid: pod.json.metadata.uid }, node: { name: "n1", uid: node.json.metadata.uid } });
  });

  it.each([
    [{ kind: "Pod", name: "absent" }, 404, 'pods "absent" not found'],
    [{ kind: "Secret", name: "absent", uid: "x" }, 404, 'secrets "absent" not found'],
    [{ kind: "Deployment", apiVersion: "apps/v1", name: "web" }, 400, "cannot bind token to object of type apps/v1, Kind=Deployment"],
  ])("refuses the bound object %j with %d", async (ref, code, message) => {
    const { server } = await setup();
    const res = await call(server, "POST", `${accounts}/builder/token`, { spec: { boundObjectRef: ref } });
    expect(res.status).toBe(code);
    expect(res.json.message).toBe(message);
  });

  it("refuses a uid that is not the bound object's with 409", async () => {
    const { server } = await setup();
    await call(server, "POST", "/api/v1/namespaces/default/secrets", { metadata: { name: "creds" } });
    const res = await call(server, "POST", `${accounts}/builder/token`, { spec: { boundObjectRef: { kind: "Secret", name: "creds", uid: "stale" } } });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ reason: "Conflict", details: { name: "creds", kind: "Secret" } });
  });

  it("answers 404 for a missing service account", async () => {
    const { server } = await setup();
    const res = await call(server, "POST", `${accounts}/nobody/token`, { spec: {} });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ reason: "NotFound", message: 'serviceaccounts "nobody" not found', details: { name: "nobody", kind: "serviceaccounts" } });
  });

  it("refuses a short expiration with 422 on TokenRequest, and a body of a foreign group with 400", async () => {
    const { server } = await setup();
    const short = await call(server, "POST", `${accounts}/builder/token`, { spec: { expirationSeconds: 60 } });
    expect(short.status).toBe(422);
    expect(short.json).toMatchObject({
      reason: "Invalid",
      message: 'TokenRequest.authentication.orch.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
      details: { group: "authentication.orch.io", kind: "TokenRequest", causes: [{ field: "spec.expirationSeconds", reason: "FieldValueInvalid" }] },
    });
    const foreign = await call(server, "POST", `${accounts}/builder/token`, { apiVersion: "authentication.example.com/v1", kind: "TokenRequest", spec: {} });
    expect(foreign.status).toBe(400);
    expect(foreign.json.message).toBe(
      "the API version in the data (authentication.example.com/v1) does not match the expected API version (authentication.orch.io/v1)",
    );
    // The reference's group is taken (its clients send nothing else) and answered in.
    const reference = await call(server, "POST", `${accounts}/builder/token`, { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} });
    expect(reference.status).toBe(201);
    expect(reference.json).toMatchObject({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", status: { token: expect.any(String) } });
    const badType = await call(server, "POST", `${accounts}/builder/token`, { spec: { expirationSeconds: "1h" } });
    expect(badType.status).toBe(400);
    expect(badType.json.message).toBe(
      'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequest.spec.expirationSeconds of type int64',
    );
  });

  it("lists serviceaccounts/token in discovery as a create of authentication TokenRequest", async () => {
    const server = new APIServer({ domain: "k8s.io" });
    const plain = await call(server, "GET", "/api/v1");
    expect(plain.json.resources).toContainEqual({
      name: "serviceaccounts/token",
      singularName: "",
      namespaced: true,
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
      verbs: ["create"],
    });
    const aggregated = await call(server, "GET", "/api", undefined, { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" });
    const sa = aggregated.json.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === "serviceaccounts");
    expect(sa.subresources).toEqual([
      { subresource: "token", responseKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" }, verbs: ["create"] },
    ]);
  });

  it("describes the token operation and the TokenRequest kind in the OpenAPI document", async () => {
    const server = new APIServer({ domain: "k8s.io" });
    const doc = await call(server, "GET", "/openapi/v3/api/v1");
    const post = doc.json.paths["/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token"].post;
    expect(post).toMatchObject({
      operationId: "createCoreV1NamespacedServiceAccountToken",
      "x-kubernetes-action": "post",
      "x-kubernetes-group-version-kind": { group: "authentication.k8s.io", kind: "TokenRequest", version: "v1" },
      requestBody: { content: { "*/*": { schema: { $ref: "#/components/schemas/io.k8s.api.authentication.v1.TokenRequest" } } } },
    });
    expect(doc.json.components.schemas["io.k8s.api.authentication.v1.TokenRequest"]).toMatchObject({
      required: ["spec"],
      "x-kubernetes-group-version-kind": [{ group: "authentication.k8s.io", kind: "TokenRequest", version: "v1" }],
    });
    expect(doc.json.components.schemas["io.k8s.api.authentication.v1.BoundObjectReference"]).toBeDefined();
  });
});
