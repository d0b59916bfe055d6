import { MemoryStore } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import type { APIResponse } from "./api-request.js";
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test JSON is read loosely
async function call(server: APIServer, method: string, url: string, body?: unknown, accept?: string): Promise<{ status: number; json: any }> {
  const headers = new Headers(body === undefined ? {} : { "content-type": "application/json" });
  if (accept) headers.set("accept", accept);
  const res: APIResponse = await server.handle({
    method,
    url,
    headers,
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const aggregated = "application/json;g=apidiscovery.orch.io;v=v2;as=APIGroupDiscoveryList";

/** The group versions `/apis` lists, as `<group>/<version>`. */
async function listedGroupVersions(server: APIServer): Promise<string[]> {
  const groups = (await call(server, "GET", "/apis")).json.groups as { versions: { groupVersion: string }[] }[];
  return groups.flatMap((g) => g.versions.map((v) => v.groupVersion));
}

/** The group versions aggregated discovery lists (core and named). */
async function aggregatedGroupVersions(server: APIServer): Promise<string[]> {
  const out: string[] = [];
  for (const path of ["/api", "/apis"]) {
    const items = (await call(server, "GET", path, undefined, aggregated)).json.items as { metadata: { name?: string }; versions: { version: string }[] }[];
    for (const item of items) for (const v of item.versions) out.push(item.metadata.name ? `${item.metadata.name}/${v.version}` : v.version);
  }
  return out;
}

async function openAPIPaths(server: APIServer): Promise<string[]> {
  return Object.keys((await call(server, "GET", "/openapi/v3")).json.paths as Record<string, unknown>);
}

const webhookConfiguration = (apiVersion: string) => ({
  apiVersion,
  kind: "MutatingWebhookConfiguration",
  metadata: { name: "hooks" },
  webhooks: [
    {
      name: "check.example.com",
      clientConfig: { url: "https://hooks.example.com/check" },
      rules: [{ operations: ["CREATE"], apiGroups: ["none.example.com"], apiVersions: ["v1"], resources: ["nothings"] }],
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    },
  ],
});

const imageReview = { apiVersion: "imagepolicy.orch.io/v1alpha1", kind: "ImageReview", spec: { containers: [{ image: "busybox" }], namespace: "default" } };

describe("runtimeConfig", () => {
  it("hides a disabled version from /apis, the group, aggregated discovery and OpenAPI", async () => {
    const server = newServer({ runtimeConfig: { "admissionregistration.orch.io/v1beta1": false } });
    expect(await listedGroupVersions(server)).toContain("admissionregistration.orch.io/v1");
    expect(await listedGroupVersions(server)).not.toContain("admissionregistration.orch.io/v1beta1");
    expect((await call(server, "GET", "/apis/admissionregistration.orch.io")).json.versions).toEqual([
      { groupVersion: "admissionregistration.orch.io/v1", version: "v1" },
    ]);
    expect(await aggregatedGroupVersions(server)).not.toContain("admissionregistration.orch.io/v1beta1");
    expect(await openAPIPaths(server)).toContain("apis/admissionregistration.orch.io/v1");
    expect(await openAPIPaths(server)).not.toContain("apis/admissionregistration.orch.io/v1beta1");
    expect((await call(server, "GET", "/openapi/v3/apis/admissionregistration.orch.io/v1beta1")).status).toBe(404);
    expect((await call(server, "GET", "/apis/admissionregistration.orch.io/v1beta1")).status).toBe(404);
  });

  it("answers 404 to a request for a disabled version, and serves the others", async () => {
    const server = newServer({ runtimeConfig: { "admissionregistration.orch.io/v1beta1": false } });
    const beta = await call(
      server,
      "POST",
      "/apis/admissionregistration.orch.io/v1beta1/mutatingwebhookconfigurations",
      webhookConfiguration("admissionregistration.orch.io/v1beta1"),
    );
    expect(beta.status).toBe(404);
    expect((await call(server, "GET", "/apis/admissionregistration.orch.io/v1beta1/mutatingwebhookconfigurations")).status).toBe(404);
    expect(
      (
        await call(
          server,
          "POST",
          "/apis/admissionregistration.orch.io/v1/mutatingwebhookconfigurations",
          webhookConfiguration("admissionregistration.orch.io/v1"),
        )
      ).status,
    ).toBe(201);
  });

  it("serves only what api/all=false turns back on, and still starts on the stored namespaces", async () => {
    const server = newServer({ runtimeConfig: { "api/all": false, "coordination.orch.io/v1": true } });
    expect(await listedGroupVersions(server)).toEqual(["coordination.orch.io/v1"]);
    expect(await aggregatedGroupVersions(server)).toEqual(["coordination.orch.io/v1"]);
    expect((await call(server, "GET", "/api")).json.versions).toEqual([]);
    expect((await call(server, "GET", "/api/v1")).status).toBe(404);
    expect(await openAPIPaths(server)).toEqual(["apis/coordination.orch.io/v1"]);
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(404);
    const lease = await call(server, "POST", "/apis/coordination.orch.io/v1/namespaces/default/leases", {
      apiVersion: "coordination.orch.io/v1",
      kind: "Lease",
      metadata: { name: "l" },
    });
    expect(lease.status, JSON.stringify(lease.json)).toBe(201);
    expect((await call(server, "GET", "/apis/coordination.orch.io/v1/namespaces/default/leases/l")).json.metadata.name).toBe("l");
  });

  it("turns the core group on or off as v1 or api/v1, and one resource as <group>/<version>/<resource>", async () => {
    const core = newServer({ runtimeConfig: { "api/all": false, "api/v1": true } });
    expect((await call(core, "GET", "/api")).json.versions).toEqual(["v1"]);
    expect(await listedGroupVersions(core)).toEqual([]);
    const noConfigMaps = newServer({ runtimeConfig: { "v1/configmaps": false } });
    expect((await call(noConfigMaps, "GET", "/api/v1/namespaces/default/configmaps")).status).toBe(404);
    expect((await call(noConfigMaps, "GET", "/api/v1/namespaces/default/secrets")).status).toBe(200);
    const resources = (await call(noConfigMaps, "GET", "/api/v1")).json.resources as { name: string }[];
    expect(resources.map((r) => r.name)).not.toContain("configmaps");
    const doc = (await call(noConfigMaps, "GET", "/openapi/v3/api/v1")).json;
    expect(Object.keys(doc.paths)).not.toContain("/api/v1/namespaces/{namespace}/configmaps");
    expect(Object.keys(doc.paths)).toContain("/api/v1/namespaces/{namespace}/secrets");
  });

  it("serves ImageReview only when imagepolicy/v1alpha1 is turned on", async () => {
    const off = newServer();
    expect(await listedGroupVersions(off)).not.toContain("imagepolicy.orch.io/v1alpha1");
    expect(await openAPIPaths(off)).not.toContain("apis/imagepolicy.orch.io/v1alpha1");
    expect((await call(off, "POST", "/apis/imagepolicy.orch.io/v1alpha1/imagereviews", imageReview)).status).toBe(404);

    for (const runtimeConfig of [{ "imagepolicy.orch.io/v1alpha1": true }, { "api/alpha": true }, { "api/all": true }]) {
      const on = newServer({ runtimeConfig });
      expect(await listedGroupVersions(on)).toContain("imagepolicy.orch.io/v1alpha1");
      expect(await openAPIPaths(on)).toContain("apis/imagepolicy.orch.io/v1alpha1");
      const resources = (await call(on, "GET", "/apis/imagepolicy.orch.io/v1alpha1")).json.resources;
      expect(resources).toEqual([{ name: "imagereviews", singularName: "imagereview", namespaced: false, kind: "ImageReview", verbs: ["create"] }]);
      // Served, but without the ImagePolicyWebhook plugin behind it nothing can answer the review.
      const res = await call(on, "POST", "/apis/imagepolicy.orch.io/v1alpha1/imagereviews", imageReview);
      expect(res.status).toBe(405);
      expect(res.json.message).toMatch(/ImageReview needs the ImagePolicyWebhook admission plugin/);
    }
  });

  it("lets the most specific key win, whatever the order the keys are given in", async () => {
    const server = newServer({ runtimeConfig: { "imagepolicy.orch.io/v1alpha1": false, "api/all": true } });
    expect(await listedGroupVersions(server)).not.toContain("imagepolicy.orch.io/v1alpha1");
    const alphaOff = newServer({ runtimeConfig: { "api/alpha": false, "api/all": true } });
    expect(await listedGroupVersions(alphaOff)).not.toContain("imagepolicy.orch.io/v1alpha1");
    const betaOff = newServer({ runtimeConfig: { "api/beta": false } });
    expect(await listedGroupVersions(betaOff)).not.toContain("admissionregistration.orch.io/v1beta1");
    expect(await listedGroupVersions(betaOff)).toContain("admissionregistration.orch.io/v1");
  });

  it.each([
    [{ "widgets.example.com/v1": true }, "unknown api groups widgets.example.com"],
    [{ "coordination.orch.io/v9": true }, "group version coordination.orch.io/v9 that has not been registered"],
    [{ "imagepolicy.orch.io": true }, "runtime-config invalid key imagepolicy.orch.io"],
    [{ v2: false }, "runtime-config invalid key v2"],
    [{ "a/b/c/d": false }, "runtime-config invalid key a/b/c/d"],
    [{ "v1/ConfigMaps": false }, 'invalid key v1/ConfigMaps: group/version/resource and resource is always lowercase plural, not "ConfigMaps"'],
    [{ "api/all": false }, "invalid key with only api/all=false"],
  ])("refuses %j at construction, with the reference's message", (runtimeConfig, message) => {
    expect(() => new APIServer({ runtimeConfig })).toThrow(message);
  });

  it("keeps stored objects readable through a served version when their storage version is turned off", async () => {
    const store = new MemoryStore();
    const before = newServer({ store });
    const created = await call(
      before,
      "POST",
      "/apis/admissionregistration.orch.io/v1/mutatingwebhookconfigurations",
      webhookConfiguration("admissionregistration.orch.io/v1"),
    );
    expect(created.status, JSON.stringify(created.json)).toBe(201);

    const after = newServer({ store, runtimeConfig: { "admissionregistration.orch.io/v1": false } });
    expect((await call(after, "GET", "/apis/admissionregistration.orch.io")).json.preferredVersion).toEqual({
      groupVersion: "admissionregistration.orch.io/v1beta1",
      version: "v1beta1",
    });
    expect((await call(after, "GET", "/apis/admissionregistration.orch.io/v1/mutatingwebhookconfigurations/hooks")).status).toBe(404);
    const got = await call(after, "GET", "/apis/admissionregistration.orch.io/v1beta1/mutatingwebhookconfigurations/hooks");
    expect(got.status, JSON.stringify(got.json)).toBe(200);
    expect(got.json).toMatchObject({
      apiVersion: "admissionregistration.orch.io/v1beta1",
      metadata: { name: "hooks", uid: created.json.metadata.uid },
      webhooks: [{ name: "check.example.com" }],
    });
    // Written through the served version, still stored in the storage version.
    const updated = await call(after, "PUT", "/apis/admissionregistration.orch.io/v1beta1/mutatingwebhookconfigurations/hooks", {
      ...got.json,
      metadata: { ...got.json.metadata, labels: { a: "b" } },
    });
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
    const stored = (await store.get("/registry/admissionregistration.orch.io/mutatingwebhookconfigurations/hooks"))?.value as {
      apiVersion: string;
      metadata: { labels?: Record<string, string> };
    };
    expect(stored).toMatchObject({ apiVersion: "admissionregistration.orch.io/v1", metadata: { labels: { a: "b" } } });
  });
});
