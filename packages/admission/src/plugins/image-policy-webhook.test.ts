import type { HTTPRequest, HTTPResponse } from "@orch/authn";
import type { APIObject } from "@orch/meta";
import { configMapType, podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import type { PluginContext, WebhookTLS } from "../plugin.js";
import { imagePolicyWebhook } from "./image-policy-webhook.js";

const caPEM = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const certPEM = "-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n";
const keyPEM = "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";

const kubeconfig = `
apiVersion: v1
kind: Config
clusters:
  - name: backend
    cluster:
      server: https://images.example.com/review
      certificate-authority-data: ${btoa(caPEM)}
users:
  - name: apiserver
    user:
      client-certificate: certs/client.crt
      client-key-data: ${btoa(keyPEM)}
contexts:
  - name: default
    context: { cluster: backend, user: apiserver }
current-context: default
`;

const files: Record<string, string> = { "/etc/orch/image-policy.kubeconfig": kubeconfig, "/etc/orch/certs/client.crt": certPEM };

type Answer = Partial<HTTPResponse> & { json?: unknown; fail?: string };

/** A backend answering from `answers` in turn (the last one repeated), recording the calls. */
function fakeBackend(answers: Answer[]) {
  const calls: { url: string; request: HTTPRequest; review: Record<string, unknown> }[] = [];
  const tls: WebhookTLS[] = [];
  const client = async (url: string, request: HTTPRequest): Promise<HTTPResponse> => {
    calls.push({ url, request, review: JSON.parse(String(request.body)) as Record<string, unknown> });
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)] ?? {};
    if (answer.fail) throw new Error(answer.fail);
    const body = answer.body ?? new TextEncoder().encode(JSON.stringify(answer.json ?? {}));
    return { status: answer.status ?? 200, headers: new Headers(), body };
  };
  return { calls, tls, transport: { client: (t: WebhookTLS) => (tls.push(t), client) } };
}

const review = (status: Record<string, unknown>) => ({ json: { apiVersion: "imagepolicy.orch.io/v1alpha1", kind: "ImageReview", status } });

function setup(answers: Answer[], policy: Record<string, unknown> = {}, now = { t: 0 }) {
  const services = fakeServices({ now: () => now.t });
  const backend = fakeBackend(answers);
  const ctx: PluginContext = {
    services,
    configuration: { imagePolicy: { kubeConfigFile: "/etc/orch/image-policy.kubeconfig", retryBackoff: -1, ...policy } },
    transport: backend.transport,
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`no file ${path}`);
      return text;
    },
  };
  return { services, backend, plugin: imagePolicyWebhook(ctx) };
}

function pod(annotations: Record<string, string> = {}): APIObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns", annotations },
    spec: {
      containers: [{ name: "a", image: "registry/app:1" }],
      initContainers: [{ name: "i", image: "registry/init:1" }],
      ephemeralContainers: [{ name: "e", image: "registry/debug:1" }],
    },
  };
}

const create = (object: APIObject = pod()) => attributesFor({ operation: "CREATE", type: podType, object });

describe("ImagePolicyWebhook", () => {
  it("validates pods on CREATE and UPDATE", () => {
    const { plugin } = setup([review({ allowed: true })]);
    expect(plugin.name).toBe("ImagePolicyWebhook");
    expect(plugin.operations).toEqual(["CREATE", "UPDATE"]);
    expect(plugin.admit).toBeUndefined();
  });

  it("builds its client from the kubeconfig: CA, client certificate (relative to the kubeconfig) and key", () => {
    const { backend } = setup([review({ allowed: true })]);
    expect(backend.tls).toEqual([{ ca: caPEM, cert: certPEM, key: keyPEM }]);
  });

  it("sends an ImageReview of the images, the image-policy annotations and the namespace", async () => {
    const { backend, plugin } = setup([review({ allowed: true })]);
    await plugin.validate?.(create(pod({ "mycluster.image-policy.orch.io/ticket": "1234", other: "x" })));
    expect(backend.calls).toHaveLength(1);
    expect(backend.calls[0]?.url).toBe("https://images.example.com/review");
    expect(backend.calls[0]?.request).toMatchObject({ method: "POST", headers: { "Content-Type": "application/json" } });
    expect(backend.calls[0]?.review).toEqual({
      apiVersion: "imagepolicy.orch.io/v1alpha1",
      kind: "ImageReview",
      metadata: { creationTimestamp: null },
      spec: {
        containers: [{ image: "registry/app:1" }, { image: "registry/init:1" }],
        annotations: { "mycluster.image-policy.orch.io/ticket": "1234" },
        namespace: "ns",
      },
      status: { allowed: false },
    });
  });

  it("reviews only the ephemeral containers for pods/ephemeralcontainers", async () => {
    const { backend, plugin } = setup([review({ allowed: true })]);
    const attrs = attributesFor({ operation: "UPDATE", type: podType, object: pod(), oldObject: pod(), subresource: "ephemeralcontainers" });
    await plugin.validate?.(attrs);
    expect(backend.calls[0]?.review["spec"]).toMatchObject({ containers: [{ image: "registry/debug:1" }] });
  });

  it("refuses denied images with the backend's reason (403)", async () => {
    const { plugin } = setup([review({ allowed: false, reason: "unsigned image" })]);
    await expect(plugin.validate?.(create())).rejects.toMatchObject({
      status: { code: 403, message: 'pods "p" is forbidden: image policy webhook backend denied one or more images: unsigned image' },
    });
  });

  it("refuses denied images without a reason with the reference's wording", async () => {
    const { plugin } = setup([review({ allowed: false })]);
    await expect(plugin.validate?.(create())).rejects.toMatchObject({
      status: { message: 'pods "p" is forbidden: one or more images rejected by webhook backend' },
    });
  });

  it("records the backend's audit annotations under the plugin's prefix", async () => {
    const { plugin } = setup([review({ allowed: true, auditAnnotations: { "audit-required": "true" } })]);
    const attrs = create();
    await plugin.validate?.(attrs);
    expect(attrs.auditAnnotations).toEqual({ "imagepolicywebhook.image-policy.orch.io/audit-required": "true" });
  });

  it("caches approvals for allowTTL and denials for denyTTL, by review spec", async () => {
    const now = { t: 0 };
    const { backend, plugin } = setup([review({ allowed: true })], { allowTTL: 10, denyTTL: 5 }, now);
    await plugin.validate?.(create());
    await plugin.validate?.(create());
    expect(backend.calls).toHaveLength(1);
    await plugin.validate?.(create(pod({ "x.image-policy.orch.io/a": "b" })));
    expect(backend.calls).toHaveLength(2);
    now.t = 10_000;
    await plugin.validate?.(create());
    expect(backend.calls).toHaveLength(3);

    const denied = setup([review({ allowed: false })], { denyTTL: 5 }, now);
    await expect(denied.plugin.validate?.(create())).rejects.toMatchObject({ status: { code: 403 } });
    await expect(denied.plugin.validate?.(create())).rejects.toMatchObject({ status: { code: 403 } });
    expect(denied.backend.calls).toHaveLength(1);
    now.t += 5_000;
    await expect(denied.plugin.validate?.(create())).rejects.toMatchObject({ status: { code: 403 } });
    expect(denied.backend.calls).toHaveLength(2);
  });

  it("caches approvals for 300 s and denials for 30 s by default", async () => {
    const now = { t: 0 };
    const allowed = setup([review({ allowed: true })], {}, now);
    await allowed.plugin.validate?.(create());
    now.t = 299_999;
    await allowed.plugin.validate?.(create());
    expect(allowed.backend.calls).toHaveLength(1);
    now.t = 300_000;
    await allowed.plugin.validate?.(create());
    expect(allowed.backend.calls).toHaveLength(2);

    now.t = 0;
    const denied = setup([review({ allowed: false })], {}, now);
    await expect(denied.plugin.validate?.(create())).rejects.toMatchObject({ status: { code: 403 } });
    now.t = 30_000;
    await expect(denied.plugin.validate?.(create())).rejects.toMatchObject({ status: { code: 403 } });
    expect(denied.backend.calls).toHaveLength(2);
  });

  it("does not cache when a TTL is -1", async () => {
    const { backend, plugin } = setup([review({ allowed: true })], { allowTTL: -1 });
    await plugin.validate?.(create());
    await plugin.validate?.(create());
    expect(backend.calls).toHaveLength(2);
  });

  it("retries a transient failure once", async () => {
    const { backend, plugin } = setup([{ status: 503 }, review({ allowed: true })]);
    await expect(plugin.validate?.(create())).resolves.toBeUndefined();
    expect(backend.calls).toHaveLength(2);
  });

  it("fails closed when the backend keeps failing and defaultAllow is false (403)", async () => {
    const { backend, plugin } = setup([{ fail: "connect ECONNREFUSED" }]);
    await expect(plugin.validate?.(create())).rejects.toMatchObject({
      status: { code: 403, message: 'pods "p" is forbidden: Post "https://images.example.com/review": connect ECONNREFUSED' },
    });
    expect(backend.calls).toHaveLength(2);
  });

  it("does not retry a 4xx answer, and fails closed with its status", async () => {
    const { backend, plugin } = setup([{ status: 404 }]);
    await expect(plugin.validate?.(create())).rejects.toMatchObject({ status: { message: 'pods "p" is forbidden: Error contacting webhook: 404' } });
    expect(backend.calls).toHaveLength(1);
  });

  it("fails open when defaultAllow is true, marking the pod and the audit event", async () => {
    const { services, plugin } = setup([{ status: 500 }], { defaultAllow: true });
    const attrs = create();
    await expect(plugin.validate?.(attrs)).resolves.toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({ "imagepolicywebhook.image-policy.orch.io/failed-open": "true" });
    expect(attrs.object?.metadata.annotations).toMatchObject({ "alpha.image-policy.orch.io/failed-open": "true" });
    expect(services.logged.join("\n")).toContain("Error contacting webhook: 500");
  });

  it("treats an answer that is not an ImageReview as a backend failure", async () => {
    const wrongKind = setup([{ json: { kind: "TokenReview", status: { allowed: true } } }]);
    await expect(wrongKind.plugin.validate?.(create())).rejects.toMatchObject({
      status: { message: expect.stringContaining('kind "TokenReview", not ImageReview') },
    });
    const badAllowed = setup([review({ allowed: "yes" })]);
    await expect(badAllowed.plugin.validate?.(create())).rejects.toMatchObject({
      status: { message: expect.stringContaining("cannot unmarshal string into Go struct field ImageReview.status.allowed of type bool") },
    });
    const notJSON = setup([{ body: new TextEncoder().encode("<html>") }], { defaultAllow: true });
    const attrs = create();
    await notJSON.plugin.validate?.(attrs);
    expect(attrs.auditAnnotations["imagepolicywebhook.image-policy.orch.io/failed-open"]).toBe("true");
  });

  it("skips other resources and other pod sub-resources", async () => {
    const { backend, plugin } = setup([review({ allowed: false })]);
    const cm = attributesFor({
      operation: "CREATE",
      type: configMapType,
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" } },
    });
    await expect(plugin.validate?.(cm)).resolves.toBeUndefined();
    const status = attributesFor({ operation: "UPDATE", type: podType, object: pod(), oldObject: pod(), subresource: "status" });
    await expect(plugin.validate?.(status)).resolves.toBeUndefined();
    expect(backend.calls).toHaveLength(0);
  });

  it("refuses to start without a configuration, a kubeConfigFile or a transport", () => {
    const services = fakeServices();
    const backend = fakeBackend([]);
    const readFile = (path: string) => files[path] ?? "";
    expect(() => imagePolicyWebhook({ services, configuration: undefined, transport: backend.transport, readFile })).toThrow("no config specified");
    expect(() => imagePolicyWebhook({ services, configuration: { imagePolicy: {} }, transport: backend.transport, readFile })).toThrow(
      "kubeConfigFile is required",
    );
    const configuration = { imagePolicy: { kubeConfigFile: "/etc/orch/image-policy.kubeconfig" } };
    expect(() => imagePolicyWebhook({ services, configuration, readFile })).toThrow("no webhook transport");
    expect(() => imagePolicyWebhook({ services, configuration, transport: backend.transport })).toThrow("reads no files");
  });

  it("range-checks the durations with the reference's message", () => {
    const services = fakeServices();
    const backend = fakeBackend([]);
    const readFile = (path: string) => files[path] ?? "";
    const build = (policy: Record<string, unknown>) => () =>
      imagePolicyWebhook({
        services,
        configuration: { imagePolicy: { kubeConfigFile: "/etc/orch/image-policy.kubeconfig", ...policy } },
        transport: backend.transport,
        readFile,
      });
    expect(build({ allowTTL: 3600 })).toThrow("imagePolicy.allowTTL: valid value is between 1s and 30m0s, got 1h0m0s");
    expect(build({ denyTTL: -5 })).toThrow("imagePolicy.denyTTL: valid value is between 1s and 30m0s, got -5s");
    expect(build({ retryBackoff: 600_000 })).toThrow("imagePolicy.retryBackoff: valid value is between 1ns and 5m0s, got 10m0s");
    expect(build({ allowTTL: 1.5 })).toThrow("allowTTL must be an integer");
    expect(build({ allowTTL: 1800, denyTTL: 1, retryBackoff: 1500 })).not.toThrow();
  });
});
