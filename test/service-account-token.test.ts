/**
 * The ServiceAccount `token` sub-resource over real HTTPS, against the `orch-apiserver` bin:
 * `kubectl create token` under `--domain k8s.io` (signed with the serving key by default, or with
 * `--service-account-key-file`), and `@kubernetes/client-node`'s
 * `createNamespacedServiceAccountToken` and `kubectl create token` (whose body is in the
 * reference's `authentication.k8s.io` group) under the default domain. Every token is verified here
 * with the public half of the key the server was given.
 */
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

/** The reference's key id: unpadded base64url of the SHA-256 of the public key's DER (PKIX). */
function keyId(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("base64url");
}

/** Verifies `token` with `publicKey` and returns its claims. */
async function verified(token: string, publicKey: KeyObject, issuer: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, publicKey, { issuer });
  return payload;
}

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: runner
spec:
  serviceAccountName: builder
  containers:
  - name: app
    image: busybox
`;

describe("kubectl create token against orch-apiserver --domain k8s.io (signed with the serving key)", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;
  let servingKey: KeyObject;

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
    kubectl = await kubectlFor(server);
    servingKey = createPublicKey(await readFile(join(server.dataDir, "apiserver.key"), "utf8"));
    expect((await kubectl(["create", "serviceaccount", "builder"])).code).toBe(0);
  });
  afterAll(async () => {
    await kubectl?.close();
    expect(await server?.stop()).toBe(0);
  });

  it("prints a token for the account, ES256 with the serving key's kid, with the reference's claims", async () => {
    const res = await kubectl(["create", "token", "builder", "--duration=20m", "--audience=foo"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    const token = res.stdout.trim();
    expect(decodeProtectedHeader(token)).toEqual({ alg: "ES256", kid: keyId(servingKey) });
    const claims = await verified(token, servingKey, "https://kubernetes.default.svc.cluster.local");
    const uid = (await kubectl(["get", "serviceaccount", "builder", "-o", "jsonpath={.metadata.uid}"])).stdout;
    expect(claims).toMatchObject({
      aud: ["foo"],
      sub: "system:serviceaccount:default:builder",
      "kubernetes.io": { namespace: "default", serviceaccount: { name: "builder", uid } },
    });
    expect(claims.exp! - claims.iat!).toBe(1200);
    expect(claims.nbf).toBe(claims.iat);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(60);
  });

  it("defaults to an hour and the server's audience", async () => {
    const res = await kubectl(["create", "token", "builder"]);
    expect(res.code).toBe(0);
    const claims = await verified(res.stdout.trim(), servingKey, "https://kubernetes.default.svc.cluster.local");
    expect(claims.aud).toEqual(["https://kubernetes.default.svc.cluster.local"]);
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it("binds a token to a pod of the account", async () => {
    expect((await kubectl(["create", "-f", "-"], { input: podManifest })).code).toBe(0);
    const uid = (await kubectl(["get", "pod", "runner", "-o", "jsonpath={.metadata.uid}"])).stdout;
    const res = await kubectl(["create", "token", "builder", "--bound-object-kind", "Pod", "--bound-object-name", "runner", "--bound-object-uid", uid]);
    expect(res.stderr).toBe("");
    const claims = await verified(res.stdout.trim(), servingKey, "https://kubernetes.default.svc.cluster.local");
    expect(claims["kubernetes.io"]).toMatchObject({ pod: { name: "runner", uid } });
    const stale = await kubectl(["create", "token", "builder", "--bound-object-kind", "Pod", "--bound-object-name", "runner", "--bound-object-uid", "stale"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      'Operation cannot be fulfilled on Pod "runner": the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated',
    );
  });

  it("reports the server's refusals: a missing account, a missing pod, a duration under 10 minutes", async () => {
    const missing = await kubectl(["create", "token", "nobody"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('serviceaccounts "nobody" not found');
    const pod = await kubectl(["create", "token", "builder", "--bound-object-kind", "Pod", "--bound-object-name", "absent"]);
    expect(pod.code).toBe(1);
    expect(pod.stderr).toContain('pods "absent" not found');
    const short = await kubectl(["create", "token", "builder", "--duration=5m"]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
    );
  });

  it("lists serviceaccounts/token in discovery (kubectl api-resources --subresource)", async () => {
    const res = await kubectl(["get", "--raw", "/api/v1"]);
    const list = JSON.parse(res.stdout) as { resources: { name: string }[] };
    expect(list.resources).toContainEqual({
      name: "serviceaccounts/token",
      singularName: "",
      namespaced: true,
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
      verbs: ["create"],
    });
  });
});

describe("orch-apiserver --service-account-key-file (RSA) --service-account-issuer", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;
  let dir: string;
  let publicKey: KeyObject;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "orch-sa-key-"));
    const pair = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    publicKey = createPublicKey(pair.publicKey);
    await writeFile(join(dir, "sa.key"), pair.privateKey, { mode: 0o600 });
    server = await startAPIServer({
      flags: ["--domain", "k8s.io", "--service-account-key-file", join(dir, "sa.key"), "--service-account-issuer", "https://issuer.example.com"],
    });
    kubectl = await kubectlFor(server);
    expect((await kubectl(["create", "serviceaccount", "builder"])).code).toBe(0);
  });
  afterAll(async () => {
    await kubectl?.close();
    expect(await server?.stop()).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it("signs RS256 with the key file, kid its public key's, iss and default audience the issuer", async () => {
    const res = await kubectl(["create", "token", "builder", "--duration=20m", "--audience=foo"]);
    expect(res.code).toBe(0);
    const token = res.stdout.trim();
    expect(decodeProtectedHeader(token)).toEqual({ alg: "RS256", kid: keyId(publicKey) });
    const claims = await verified(token, publicKey, "https://issuer.example.com");
    expect(claims).toMatchObject({ aud: ["foo"], sub: "system:serviceaccount:default:builder" });
    expect(claims.exp! - claims.iat!).toBe(1200);
    const plain = await kubectl(["create", "token", "builder"]);
    expect((await verified(plain.stdout.trim(), publicKey, "https://issuer.example.com")).aud).toEqual(["https://issuer.example.com"]);
  });

  it("refuses to start with a signing key file that holds no private key, or a key file that holds no key", async () => {
    const bad = join(dir, "public.pem");
    await writeFile(bad, publicKey.export({ type: "spki", format: "pem" }));
    await expect(startAPIServer({ flags: ["--service-account-signing-key-file", bad] })).rejects.toThrow(
      /service account key .*public\.pem: no PEM private key/,
    );
    const empty = join(dir, "empty.pem");
    await writeFile(empty, "not a key\n");
    await expect(startAPIServer({ flags: ["--service-account-key-file", empty] })).rejects.toThrow(/--service-account-key-file .*empty\.pem: /);
  });
});

describe("@kubernetes/client-node createNamespacedServiceAccountToken against orch-apiserver (default domain)", () => {
  let server: RunningAPIServer;
  let core: k8s.CoreV1Api;
  let servingKey: KeyObject;

  beforeAll(async () => {
    server = await startAPIServer();
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(server.kubeconfigPath);
    core = kc.makeApiClient(k8s.CoreV1Api);
    servingKey = createPublicKey(await readFile(join(server.dataDir, "apiserver.key"), "utf8"));
    await core.createNamespacedServiceAccount({ namespace: "default", body: { metadata: { name: "builder" } } });
  });
  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it("issues a token whose claims sit under orch.io, with the expiration decoded by the client", async () => {
    const answer = await core.createNamespacedServiceAccountToken({
      name: "builder",
      namespace: "default",
      body: { apiVersion: "authentication.orch.io/v1", kind: "TokenRequest", spec: { audiences: ["vault"], expirationSeconds: 900 } },
    });
    expect(answer.spec).toMatchObject({ audiences: ["vault"], expirationSeconds: 900 });
    expect(answer.status?.expirationTimestamp).toBeInstanceOf(Date);
    const claims = await verified(answer.status!.token, servingKey, "https://orch.default.svc.cluster.local");
    expect(claims).toMatchObject({ aud: ["vault"], sub: "system:serviceaccount:default:builder", "orch.io": { namespace: "default" } });
    expect(Math.abs(answer.status!.expirationTimestamp.getTime() / 1000 - claims.exp!)).toBeLessThanOrEqual(1);
  });

  it("takes a body without apiVersion, and the reference's authentication.k8s.io/v1 (answered in it); refuses another group with 400", async () => {
    const untyped = await core.createNamespacedServiceAccountToken({ name: "builder", namespace: "default", body: { spec: { audiences: [] } } });
    expect(untyped.spec?.audiences).toEqual(["https://orch.default.svc.cluster.local"]);
    const reference = await core.createNamespacedServiceAccountToken({
      name: "builder",
      namespace: "default",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { audiences: ["vault"] } },
    });
    expect(reference.apiVersion).toBe("authentication.k8s.io/v1");
    expect(await verified(reference.status!.token, servingKey, "https://orch.default.svc.cluster.local")).toMatchObject({ aud: ["vault"] });
    let failure: unknown;
    try {
      await core.createNamespacedServiceAccountToken({
        name: "builder",
        namespace: "default",
        body: { apiVersion: "authentication.example.com/v1", kind: "TokenRequest", spec: { audiences: [] } },
      });
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(k8s.ApiException);
    const e = failure as k8s.ApiException<string>;
    expect(e.code).toBe(400);
    expect(JSON.parse(e.body).message).toBe(
      "the API version in the data (authentication.example.com/v1) does not match the expected API version (authentication.orch.io/v1)",
    );
  });

  it("kubectl create token works against the default domain too (it sends authentication.k8s.io/v1 as protobuf)", async () => {
    const kubectl = await kubectlFor(server);
    try {
      const res = await kubectl(["create", "token", "builder", "--duration=15m", "--audience=bar"]);
      expect(res.code, res.stderr).toBe(0);
      const claims = await verified(res.stdout.trim(), servingKey, "https://orch.default.svc.cluster.local");
      expect(claims).toMatchObject({ aud: ["bar"], sub: "system:serviceaccount:default:builder" });
      expect(claims.exp! - claims.iat!).toBe(900);
    } finally {
      await kubectl.close();
    }
  });
});
