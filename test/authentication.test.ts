/**
 * Authentication end to end, over real HTTPS against `orch-apiserver --domain k8s.io` started
 * with a static token file, bootstrap tokens, an authenticating proxy's CA, an OpenID provider
 * and a token webhook (see `support/authentication.ts`): kubectl and `@kubernetes/client-node`
 * with static tokens, service-account tokens, bootstrap tokens, and TokenReview. The OpenID
 * provider, the webhook and the proxy are in `authentication-external.test.ts`; bad input and
 * `--anonymous-auth=false` in `authentication-bad-input.test.ts`.
 */
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { staticTokens, startAuthenticationFixture, unauthorizedStatus, userInfoOf, type AuthenticationFixture } from "./support/authentication.js";

const alice = staticTokens.alice;

let fx: AuthenticationFixture;
let admin: Kubectl;
const kubectls: Kubectl[] = [];

/** kubectl with a kubeconfig whose user has `token` (and no client certificate). */
async function kubectlWithToken(name: string, token: string): Promise<Kubectl> {
  const kubectl = await kubectlFor({ kubeconfigPath: await fx.tokenKubeconfig(name, token) });
  kubectls.push(kubectl);
  return kubectl;
}

/** `kubectl auth whoami -o json`'s user info. */
async function kubectlWhoami(kubectl: Kubectl): Promise<unknown> {
  const res = await kubectl(["auth", "whoami", "-o", "json"]);
  expect(res.stderr).toBe("");
  expect(res.code).toBe(0);
  const review = JSON.parse(res.stdout) as { apiVersion: string; kind: string; status: { userInfo: unknown } };
  expect(review.apiVersion).toBe("authentication.k8s.io/v1");
  expect(review.kind).toBe("SelfSubjectReview");
  return review.status.userInfo;
}

beforeAll(async () => {
  fx = await startAuthenticationFixture();
  admin = await kubectlFor(fx.server);
  kubectls.push(admin);
});

afterAll(async () => {
  for (const kubectl of kubectls) await kubectl.close();
  expect(await fx?.stop()).toBe(0);
});

describe("kubectl with a static token (--token-auth-file)", () => {
  it("lists namespaces", async () => {
    const kubectl = await kubectlWithToken("alice", alice.token);
    const res = await kubectl(["get", "namespaces", "-o", "name"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout.trim().split("\n")).toEqual(["namespace/default", "namespace/kube-public", "namespace/kube-system"]);
  });

  it("kubectl auth whoami shows the token's user, uid and groups, with system:authenticated", async () => {
    const aliceInfo = { username: "alice", uid: "uid-alice", groups: ["dev", "ops", "system:authenticated"] };
    const bobInfo = { username: "bob", uid: "uid-bob", groups: ["system:authenticated"] };
    // The same review in JSON first, so that the identity is checked whatever kubectl's encoding.
    expect(userInfoOf(await fx.whoami({ token: alice.token }))).toEqual(aliceInfo);
    expect(userInfoOf(await fx.whoami({ token: staticTokens.bob.token }))).toEqual(bobInfo);
    // kubectl sends its SelfSubjectReview in protobuf.
    expect(await kubectlWhoami(await kubectlWithToken("alice", alice.token))).toEqual(aliceInfo);
    expect(await kubectlWhoami(await kubectlWithToken("bob", staticTokens.bob.token))).toEqual(bobInfo);
  });

  it("the admin kubeconfig's client certificate is admin in system:masters", async () => {
    const adminInfo = { username: "admin", groups: ["system:masters", "system:authenticated"] };
    expect(userInfoOf(await fx.whoami({ cert: fx.admin }))).toEqual(adminInfo);
    expect(await kubectlWhoami(admin)).toEqual(adminInfo);
  });

  it("a wrong token makes kubectl fail with Unauthorized", async () => {
    const kubectl = await kubectlWithToken("wrong", "not-a-known-token");
    // `get` fails in discovery first, where kubectl reports a 401 in words of its own.
    const res = await kubectl(["get", "namespaces"]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe("");
    expect(res.stderr).toContain("error: You must be logged in to the server (the server has asked for the client to provide credentials)");
    for (const args of [
      ["get", "--raw", "/api/v1/namespaces"],
      ["auth", "whoami"],
    ]) {
      const refused = await kubectl(args);
      expect({ args, code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
        args,
        code: 1,
        stdout: "",
        stderr: "error: You must be logged in to the server (Unauthorized)\n",
      });
    }
  });
});

describe("@kubernetes/client-node with a token user", () => {
  function clientFor(token: string): k8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "orch", server: fx.cluster.server, caData: fx.cluster.caData, skipTLSVerify: false }],
      users: [{ name: "alice", token }],
      contexts: [{ name: "alice", cluster: "orch", user: "alice" }],
      currentContext: "alice",
    });
    return kc;
  }

  it("lists namespaces and creates a SelfSubjectReview that names the user", async () => {
    const kc = clientFor(alice.token);
    const namespaces = await kc.makeApiClient(k8s.CoreV1Api).listNamespace();
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(["default", "kube-public", "kube-system"]);
    const review = await kc
      .makeApiClient(k8s.AuthenticationV1Api)
      .createSelfSubjectReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" } });
    expect(review.kind).toBe("SelfSubjectReview");
    expect(review.status?.userInfo).toEqual({ username: "alice", uid: "uid-alice", groups: ["dev", "ops", "system:authenticated"] });
  });

  it("a wrong token is an ApiException 401 with the Unauthorized Status", async () => {
    const kc = clientFor("wrong-token-for-client-node");
    const error = await kc
      .makeApiClient(k8s.CoreV1Api)
      .listNamespace()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(k8s.ApiException);
    const e = error as k8s.ApiException<unknown>;
    // The generated client knows 401 as a code without a body model: it keeps only the code.
    expect(e.code).toBe(401);
    expect(e.message).toContain("Unauthorized");
  });
});

describe("service account tokens", () => {
  const namespace = "authn-sa";

  it("a token of kubectl create token is system:serviceaccount:<ns>:<sa>, and refused once the account is deleted", async () => {
    expect((await admin(["create", "namespace", namespace])).code).toBe(0);
    expect((await admin(["create", "serviceaccount", "robot", "-n", namespace])).code).toBe(0);
    const uid = (await admin(["get", "serviceaccount", "robot", "-n", namespace, "-o", "jsonpath={.metadata.uid}"])).stdout;
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);
    const created = await admin(["create", "token", "robot", "-n", namespace]);
    expect(created.stderr).toBe("");
    const token = created.stdout.trim();

    const whoami = await fx.whoami({ token });
    expect(whoami.status).toBe(201);
    const userInfo = userInfoOf(whoami) as { username: string; uid: string; groups: string[] };
    expect(userInfo.username).toBe(`system:serviceaccount:${namespace}:robot`);
    expect(userInfo.uid).toBe(uid);
    expect(userInfo.groups).toEqual(["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"]);
    const robot = await kubectlWithToken("robot", token);
    const list = await robot(["get", "serviceaccounts", "-n", namespace, "-o", "name"]);
    expect(list.stderr).toBe("");
    // The account the namespace got at creation, and robot.
    expect(list.stdout).toBe("serviceaccount/default\nserviceaccount/robot\n");

    // A second token, never used before the account goes: nothing cached it, so it is refused at once.
    const unused = (await admin(["create", "token", "robot", "-n", namespace])).stdout.trim();
    expect((await admin(["delete", "serviceaccount", "robot", "-n", namespace])).code).toBe(0);
    const refused = await fx.whoami({ token: unused });
    expect(refused.status).toBe(401);
    expect(refused.json).toEqual(unauthorizedStatus);

    // The first token was cached as valid for at most 10 s: it turns 401 within ~15 s.
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await fx.whoami({ token })).status;
      if (status === 401) break;
      expect(status).toBe(201);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(401);
  }, 30_000);
});

describe("bootstrap tokens (--enable-bootstrap-token-auth)", () => {
  const secret = (id: string, extra: Record<string, string> = {}) => `apiVersion: v1
kind: Secret
metadata:
  name: bootstrap-token-${id}
  namespace: kube-system
type: bootstrap.kubernetes.io/token
stringData:
  token-id: ${id}
  token-secret: 0123456789abcdef
  usage-bootstrap-authentication: "true"
  auth-extra-groups: system:bootstrappers:worker
${Object.entries(extra)
  .map(([k, v]) => `  ${k}: "${v}"`)
  .join("\n")}
`;

  beforeAll(async () => {
    const res = await admin(["create", "-f", "-"], { input: secret("abcdef") + "---\n" + secret("old123", { expiration: "2020-01-01T00:00:00Z" }) });
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
  });

  it("abcdef.0123456789abcdef is system:bootstrap:abcdef in system:bootstrappers and its extra group", async () => {
    const res = await fx.whoami({ token: "abcdef.0123456789abcdef" });
    expect(res.status).toBe(201);
    expect(userInfoOf(res)).toEqual({
      username: "system:bootstrap:abcdef",
      groups: ["system:bootstrappers", "system:bootstrappers:worker", "system:authenticated"],
    });
    const kubectl = await kubectlWithToken("bootstrap", "abcdef.0123456789abcdef");
    const list = await kubectl(["get", "secrets", "-n", "kube-system", "-o", "name"]);
    expect(list.stderr).toBe("");
    expect(list.stdout).toBe("secret/bootstrap-token-abcdef\nsecret/bootstrap-token-old123\n");
  });

  it("a wrong secret, and a token whose expiration is past, are 401", async () => {
    for (const token of ["abcdef.fedcba9876543210", "old123.0123456789abcdef", "zzzzzz.0123456789abcdef"]) {
      const res = await fx.whoami({ token });
      expect({ token, status: res.status, body: res.json }).toEqual({ token, status: 401, body: unauthorizedStatus });
    }
  });
});

describe("TokenReview over HTTPS as admin", () => {
  for (const version of ["v1", "v1beta1"]) {
    it(`authentication.k8s.io/${version}: the static token is authenticated with its user; garbage is not`, async () => {
      const review = async (token: string) => {
        const res = await fx.request({
          method: "POST",
          path: `/apis/authentication.k8s.io/${version}/tokenreviews`,
          cert: fx.admin,
          body: JSON.stringify({ apiVersion: `authentication.k8s.io/${version}`, kind: "TokenReview", spec: { token } }),
        });
        expect(res.status).toBe(201);
        const body = res.json as { apiVersion: string; kind: string; status: { authenticated?: boolean; user?: unknown; error?: string } };
        expect(body.apiVersion).toBe(`authentication.k8s.io/${version}`);
        expect(body.kind).toBe("TokenReview");
        return body.status;
      };
      const good = await review(alice.token);
      expect(good.authenticated).toBe(true);
      expect(good.user).toEqual({ username: "alice", uid: "uid-alice", groups: ["dev", "ops", "system:authenticated"] });
      const bad = await review(`garbage-${version}-token`);
      expect(bad.authenticated ?? false).toBe(false);
      expect(bad.user ?? {}).toEqual({});
    });
  }
});
