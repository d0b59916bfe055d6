import type { AdmissionAttributes, AdmissionPlugin } from "@orch/admission";
import { badRequest } from "@orch/meta";
import { MemoryStore, type ListOptions, type ListResult } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import type { APIResponse } from "./api-request.js";
import { createDefaultServiceAccount } from "./internal/testing.js";
import { APIServer, type APIServerOptions } from "./api-server.js";

const servers: APIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

function newServer(options: APIServerOptions = {}): APIServer {
  const server = new APIServer(options);
  servers.push(server);
  return server;
}

interface Call {
  status: number;
  headers: Headers;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(server: APIServer, method: string, url: string, body?: unknown, contentType = "application/json"): Promise<Call> {
  const headers = new Headers({ "content-type": contentType });
  const bytes = body === undefined ? undefined : new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
  const res: APIResponse = await server.handle({ method, url, headers, ...(bytes ? { body: bytes } : {}) });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const cm = (name: string, data: Record<string, string> = { a: "1" }) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });

/** A plugin that records what it saw, labels ConfigMaps, and refuses the value "forbidden". */
function recorder(): AdmissionPlugin & { seen: AdmissionAttributes[] } {
  const seen: AdmissionAttributes[] = [];
  return {
    name: "recorder",
    seen,
    admit(attrs) {
      seen.push({ ...attrs, object: attrs.object ? structuredClone(attrs.object) : undefined });
      if (attrs.resource.resource === "configmaps" && attrs.object) {
        attrs.object.metadata.labels = { ...attrs.object.metadata.labels, admitted: "yes" };
      }
    },
    validate(attrs) {
      const data = attrs.object?.data as Record<string, string> | undefined;
      if (data?.["a"] === "forbidden") throw new Error("a may not be forbidden");
      if (data?.["a"] === "teapot") throw badRequest("no teapots");
      if (attrs.operation === "DELETE" && attrs.oldObject?.metadata.name === "keep") throw new Error("keep stays");
      if (data?.["a"] === "warn") attrs.warnings.push("a is warn");
    },
  };
}

describe("APIServer: admission on every write path", () => {
  it("a custom plugin mutates creates, updates, patches and applies, and sees the attributes", async () => {
    const plugin = recorder();
    const server = newServer({ admission: [plugin] });
    const created = await call(server, "POST", "/api/v1/namespaces/default/configmaps?fieldManager=me", cm("one"));
    expect(created.status).toBe(201);
    expect(created.json.metadata.labels).toEqual({ admitted: "yes" });
    const create = plugin.seen.at(-1)!;
    expect(create).toMatchObject({
      operation: "CREATE",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      subresource: "",
      name: "one",
      namespace: "default",
      dryRun: false,
      options: { kind: "CreateOptions", apiVersion: "meta.orch.io/v1", fieldManager: "me" },
      user: { name: "system:anonymous" },
    });
    expect(create.oldObject).toBeUndefined();

    const updated = await call(server, "PUT", "/api/v1/namespaces/default/configmaps/one", { ...cm("one", { a: "2" }) });
    expect(updated.json.metadata.labels).toEqual({ admitted: "yes" });
    expect(plugin.seen.at(-1)).toMatchObject({ operation: "UPDATE", options: { kind: "UpdateOptions" }, oldObject: { data: { a: "1" } } });

    const patched = await call(
      server,
      "PATCH",
      "/api/v1/namespaces/default/configmaps/one",
      { metadata: { labels: { admitted: "no" } } },
      "application/merge-patch+json",
    );
    expect(patched.json.metadata.labels).toEqual({ admitted: "yes" });
    expect(plugin.seen.at(-1)).toMatchObject({ operation: "UPDATE", options: { kind: "PatchOptions" } });

    const applied = await call(server, "PATCH", "/api/v1/namespaces/default/configmaps/two?fieldManager=me", cm("two"), "application/apply-patch+yaml");
    expect(applied.status).toBe(201);
    expect(applied.json.metadata.labels).toEqual({ admitted: "yes" });
  });

  it("a refusal is the plugin's Status or a 403, and nothing is written", async () => {
    const server = newServer({ admission: [recorder()] });
    const refused = await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("one", { a: "forbidden" }));
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ kind: "Status", reason: "Forbidden", message: 'configmaps "one" is forbidden: a may not be forbidden' });
    const teapot = await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("one", { a: "teapot" }));
    expect(teapot.status).toBe(400);
    expect(teapot.json.message).toBe("no teapots");
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/one")).status).toBe(404);

    expect((await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("one"))).status).toBe(201);
    const badUpdate = await call(server, "PUT", "/api/v1/namespaces/default/configmaps/one", cm("one", { a: "forbidden" }));
    expect(badUpdate.status).toBe(403);
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/one")).json.data).toEqual({ a: "1" });
  });

  it("deletes are admitted with the stored object as the old one", async () => {
    const plugin = recorder();
    const server = newServer({ admission: [plugin] });
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("keep"));
    const refused = await call(server, "DELETE", "/api/v1/namespaces/default/configmaps/keep");
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('configmaps "keep" is forbidden: keep stays');
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/keep")).status).toBe(200);
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("go"));
    expect((await call(server, "DELETE", "/api/v1/namespaces/default/configmaps/go?dryRun=All")).status).toBe(200);
    expect(plugin.seen.at(-1)).toMatchObject({
      operation: "DELETE",
      dryRun: true,
      options: { kind: "DeleteOptions", dryRun: ["All"] },
      oldObject: { metadata: { name: "go" } },
    });
    expect(plugin.seen.at(-1)!.object).toBeUndefined();
  });

  it("warnings of plugins reach the response", async () => {
    const server = newServer({ admission: [recorder()] });
    const created = await call(server, "POST", "/api/v1/namespaces/default/configmaps", cm("one", { a: "warn" }));
    expect(created.status).toBe(201);
    expect(created.headers.get("warning")).toContain("a is warn");
  });

  it("dry-run creates are admitted with dryRun set and store nothing", async () => {
    const plugin = recorder();
    const server = newServer({ admission: [plugin] });
    const created = await call(server, "POST", "/api/v1/namespaces/default/configmaps?dryRun=All", cm("dry"));
    expect(created.status).toBe(201);
    expect(created.json.metadata.labels).toEqual({ admitted: "yes" });
    expect(plugin.seen.at(-1)).toMatchObject({ dryRun: true, options: { dryRun: ["All"] } });
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/dry")).status).toBe(404);
  });

  it("sub-resources are admitted: status updates and actions with the action's kind", async () => {
    const plugin = recorder();
    const server = newServer({ admission: [plugin] });
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    expect((await call(server, "POST", "/api/v1/namespaces/default/pods", pod)).status).toBe(201);
    const current = (await call(server, "GET", "/api/v1/namespaces/default/pods/p")).json;
    await call(server, "PUT", "/api/v1/namespaces/default/pods/p/status", { ...current, status: { phase: "Running" } });
    expect(plugin.seen.at(-1)).toMatchObject({ operation: "UPDATE", subresource: "status", resource: { resource: "pods" } });
    const binding = { apiVersion: "v1", kind: "Binding", metadata: { name: "p" }, target: { kind: "Node", name: "n1" } };
    expect((await call(server, "POST", "/api/v1/namespaces/default/pods/p/binding", binding)).status).toBe(201);
    expect(plugin.seen.at(-1)).toMatchObject({
      operation: "CREATE",
      subresource: "binding",
      name: "p",
      kind: { group: "", version: "v1", kind: "Binding" },
      resource: { resource: "pods" },
    });
  });

  it("an empty plugin list turns admission off; the default set guards namespaces", async () => {
    const off = newServer({ admission: [] });
    expect((await call(off, "POST", "/api/v1/namespaces/nowhere/configmaps", cm("one"))).status).toBe(201);
    const on = newServer();
    const missing = await call(on, "POST", "/api/v1/namespaces/nowhere/configmaps", cm("one"));
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe('namespaces "nowhere" not found');
  });
});

describe("APIServer: ImagePolicyWebhook and the ImageReview API", () => {
  /** A backend that denies images tagged `latest` and counts its calls. */
  function backend() {
    const calls: { url: string; review: any }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
    const transport = {
      client: () => async (url: string, request: { body?: string | Uint8Array }) => {
        const review = JSON.parse(String(request.body)) as { spec: { containers?: { image?: string }[] } };
        calls.push({ url, review });
        const latest = (review.spec.containers ?? []).filter((c) => c.image?.endsWith(":latest"));
        const status = latest.length ? { allowed: false, reason: `${latest.map((c) => c.image).join(", ")} floats` } : { allowed: true };
        return {
          status: 200,
          headers: new Headers({ "content-type": "application/json" }),
          body: new TextEncoder().encode(JSON.stringify({ ...review, status })),
        };
      },
    };
    return { calls, transport };
  }
  const kubeconfig =
    "apiVersion: v1\nkind: Config\nclusters:\n- name: policy\n  cluster: { server: 'https://policy.example:8443/review' }\nusers:\n- name: api\n  user: {}\ncontexts:\n- name: c\n  context: { cluster: policy, user: api }\ncurrent-context: c\n";

  it("asks the backend about a Pod's images and answers ImageReviews when its group is on", async () => {
    const { calls, transport } = backend();
    const server = newServer({
      runtimeConfig: { "imagepolicy.orch.io/v1alpha1": true },
      admission: {
        plugins: ["ImagePolicyWebhook"],
        configuration: {
          ImagePolicyWebhook: { imagePolicy: { kubeConfigFile: "policy.kubeconfig", allowTTL: 50, denyTTL: 50, retryBackoff: 500, defaultAllow: false } },
        },
        transport,
        readFile: () => kubeconfig,
      },
    });
    const pod = (name: string, image: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { containers: [{ name: "c", image }] } });
    const refused = await call(server, "POST", "/api/v1/namespaces/default/pods", pod("floating", "nginx:latest"));
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe('pods "floating" is forbidden: image policy webhook backend denied one or more images: nginx:latest floats');
    expect(calls[0]).toMatchObject({
      url: "https://policy.example:8443/review",
      review: { apiVersion: "imagepolicy.orch.io/v1alpha1", kind: "ImageReview", spec: { containers: [{ image: "nginx:latest" }], namespace: "default" } },
    });
    expect((await call(server, "POST", "/api/v1/namespaces/default/pods", pod("pinned", "nginx:1.27"))).status).toBe(201);

    const review = await call(server, "POST", "/apis/imagepolicy.orch.io/v1alpha1/imagereviews", {
      apiVersion: "imagepolicy.orch.io/v1alpha1",
      kind: "ImageReview",
      spec: { containers: [{ image: "busybox:latest" }], namespace: "default" },
    });
    expect(review.status).toBe(201);
    expect(review.json.status).toEqual({ allowed: false, reason: "busybox:latest floats" });
  });
});

describe("APIServer: the watch-kept views of admission plugins", () => {
  it("miss no write stored right after their list", async () => {
    /** Stores a default PriorityClass right after the Priority plugin's view lists the classes. */
    class RacingStore extends MemoryStore {
      #raced = false;
      override async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
        const listed = await super.list(prefix, opts);
        if (!this.#raced && prefix.endsWith("/priorityclasses/")) {
          this.#raced = true;
          const metadata = { name: "high", uid: "high-uid", creationTimestamp: "2026-01-01T00:00:00Z" };
          await this.create(`${prefix}high`, { apiVersion: "scheduling.orch.io/v1", kind: "PriorityClass", metadata, value: 1000, globalDefault: true });
        }
        return listed;
      }
    }
    const server = newServer({ store: new RacingStore() });
    await createDefaultServiceAccount(server);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox" }] } };
    const created = await call(server, "POST", "/api/v1/namespaces/default/pods", pod);
    expect(created.status).toBe(201);
    expect(created.json.spec).toMatchObject({ priorityClassName: "high", priority: 1000 });
  });
});
