/**
 * Admission end to end against `orch-apiserver --domain k8s.io` with its default plugins, with
 * clients nobody here wrote: kubectl applies a ValidatingWebhookConfiguration pointing at a real
 * local HTTPS webhook (its CA as `caBundle`) and gets the webhook's denial; kubectl is refused a
 * privileged Pod in a `pod-security.kubernetes.io/enforce: restricted` namespace with the
 * plugin's message; `@kubernetes/client-node` is refused a Pod over a ResourceQuota and a
 * webhook configuration with an http URL (422 with the field path).
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import * as k8s from "@kubernetes/client-node";
import { createCertificateAuthority } from "@orch/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";

let server: RunningAPIServer;
let kubectl: Kubectl;
let webhook: Server;
let webhookCA: string;
const reviews: { apiVersion: string; request: { operation: string; namespace?: string; name?: string; dryRun?: boolean; userInfo?: { username?: string } } }[] =
  [];

beforeAll(async () => {
  const ca = await createCertificateAuthority();
  const cert = await ca.issue({ subject: "CN=webhook", ips: ["127.0.0.1"], usage: "server" });
  webhookCA = ca.certPem;
  webhook = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as (typeof reviews)[number] & {
        request: { uid: string; object?: { metadata?: { labels?: Record<string, string> } } };
      };
      reviews.push(review);
      const allowed = review.request.object?.metadata?.labels?.["reviewed"] !== "no";
      const response = allowed
        ? { uid: review.request.uid, allowed }
        : { uid: review.request.uid, allowed, status: { code: 422, message: "label reviewed=no is not welcome" } };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: "AdmissionReview", response }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
  kubectl = await kubectlFor(server);
}, 60_000);

afterAll(async () => {
  await kubectl?.close();
  expect(await server?.stop()).toBe(0);
  webhook?.closeAllConnections();
  await new Promise((resolve) => webhook?.close(resolve));
});

async function ok(args: readonly string[], input?: string): Promise<string> {
  const res = await kubectl(args, input === undefined ? {} : { input });
  expect({ code: res.code, stderr: res.stderr }, `kubectl ${args.join(" ")}`).toEqual({ code: 0, stderr: "" });
  return res.stdout;
}

describe("kubectl", () => {
  it("applies a ValidatingWebhookConfiguration; the webhook's denial reaches kubectl with its code and message", async () => {
    const port = (webhook.address() as AddressInfo).port;
    const manifest = [
      "apiVersion: admissionregistration.k8s.io/v1",
      "kind: ValidatingWebhookConfiguration",
      "metadata:",
      "  name: reviewed",
      "webhooks:",
      "  - name: reviewed.example.com",
      "    clientConfig:",
      `      url: https://127.0.0.1:${port}/validate`,
      `      caBundle: ${Buffer.from(webhookCA).toString("base64")}`,
      "    rules:",
      "      - operations: [CREATE]",
      '        apiGroups: [""]',
      "        apiVersions: [v1]",
      "        resources: [configmaps]",
      "    namespaceSelector:",
      '      matchLabels: { hooked: "yes" }',
      "    sideEffects: None",
      "    admissionReviewVersions: [v1]",
      "",
    ].join("\n");
    const path = await kubectl.file("webhook.yaml", manifest);
    expect(await ok(["apply", "-f", path])).toBe("validatingwebhookconfiguration.admissionregistration.k8s.io/reviewed created\n");
    await ok(["create", "namespace", "hooked"]);
    await ok(["label", "namespace", "hooked", "hooked=yes"]);
    // Watch-driven: the configuration takes effect within moments.
    let denied = { code: 0 as number | null, stdout: "", stderr: "" };
    for (let i = 0; i < 50; i++) {
      denied = await kubectl(["create", "configmap", `c${i}`, "-n", "hooked", "--dry-run=server", "-o", "name"]);
      if (reviews.length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(reviews.length).toBeGreaterThan(0);
    expect(reviews.at(-1)).toMatchObject({
      apiVersion: "admission.k8s.io/v1",
      request: { operation: "CREATE", namespace: "hooked", dryRun: true, userInfo: { username: "admin" } },
    });
    expect(denied.code).toBe(0);
    const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rejected\n  labels:\n    reviewed: "no"\n';
    const res = await kubectl(["create", "-n", "hooked", "-f", "-"], { input: cm });
    expect(res).toMatchObject({ code: 1, stdout: "" });
    expect(res.stderr).toBe(
      'Error from server (Forbidden): error when creating "STDIN": admission webhook "reviewed.example.com" denied the request: label reviewed=no is not welcome\n',
    );
    // Namespaces the selector does not pick are not sent to the webhook.
    const before = reviews.length;
    await ok(["create", "-n", "default", "-f", "-"], cm);
    expect(reviews.length).toBe(before);
  });

  it("refuses a privileged Pod in a restricted namespace with PodSecurity's message", async () => {
    await ok(["create", "namespace", "locked"]);
    await ok(["label", "namespace", "locked", "pod-security.kubernetes.io/enforce=restricted"]);
    const res = await kubectl(["run", "root", "-n", "locked", "--image=registry.example/app:1.0", "--privileged"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^Error from server \(Forbidden\): pods "root" is forbidden: violates PodSecurity "restricted:latest": /);
    expect(res.stderr).toContain('privileged (container "root" must not set securityContext.privileged=true)');
  });
});

describe("@kubernetes/client-node", () => {
  let config: k8s.KubeConfig;
  beforeAll(() => {
    config = new k8s.KubeConfig();
    config.loadFromFile(server.kubeconfigPath);
  });

  async function failure(promise: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(k8s.ApiException);
      const e = error as k8s.ApiException<unknown>;
      return { code: e.code, status: (typeof e.body === "string" ? JSON.parse(e.body) : e.body) as Record<string, unknown> };
    }
    throw new Error("expected the request to fail");
  }

  it("a ResourceQuota refuses the Pod over it with the quota's figures", async () => {
    const core = config.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "quota" } } });
    await core.createNamespacedResourceQuota({ namespace: "quota", body: { metadata: { name: "one-pod" }, spec: { hard: { pods: "1" } } } });
    // The quota controller fills in status.hard within moments; until then the quota constrains nothing.
    for (let i = 0; i < 100 && !(await core.readNamespacedResourceQuota({ namespace: "quota", name: "one-pod" })).status?.hard; i++)
      await new Promise((r) => setTimeout(r, 20));
    const pod = (name: string): k8s.V1Pod => ({ metadata: { name }, spec: { containers: [{ name: "app", image: "registry.example/app:1.0" }] } });
    await core.createNamespacedPod({ namespace: "quota", body: pod("first") });
    const refused = await failure(core.createNamespacedPod({ namespace: "quota", body: pod("second") }));
    expect(refused.code).toBe(403);
    expect(refused.status).toMatchObject({
      reason: "Forbidden",
      message: 'pods "second" is forbidden: exceeded quota: one-pod, requested: pods=1, used: pods=1, limited: pods=1',
    });
    const quota = await core.readNamespacedResourceQuota({ namespace: "quota", name: "one-pod" });
    expect(quota.status?.used).toEqual({ pods: "1" });
    // The ServiceAccount plugin gave the Pod its default account and token volume.
    const first = await core.readNamespacedPod({ namespace: "quota", name: "first" });
    expect(first.spec?.serviceAccountName).toBe("default");
    expect(first.spec?.volumes?.[0]?.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
  });

  it("a webhook configuration with an http URL is 422 with the field path", async () => {
    const admission = config.makeApiClient(k8s.AdmissionregistrationV1Api);
    const refused = await failure(
      admission.createValidatingWebhookConfiguration({
        body: {
          metadata: { name: "plain-http" },
          webhooks: [{ name: "plain.example.com", clientConfig: { url: "http://127.0.0.1:1/" }, sideEffects: "None", admissionReviewVersions: ["v1"] }],
        },
      }),
    );
    expect(refused.code).toBe(422);
    expect(refused.status).toMatchObject({ reason: "Invalid", details: { causes: [expect.objectContaining({ field: "webhooks[0].clientConfig.url" })] } });
  });
});
