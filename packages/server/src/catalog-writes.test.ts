import { describe, expect, it } from "vitest";
import { createDefaultServiceAccount } from "./internal/testing.js";
import { APIServer } from "./api-server.js";

/** In-process calls; the bad-input rules of the resource catalog issue. */
async function call(server: APIServer, method: string, url: string, body?: unknown, contentType = "application/json") {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": contentType }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const pvcs = "/api/v1/namespaces/default/persistentvolumeclaims";
const claim = {
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name: "data" },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
};

describe("catalog writes: what the main resource and its sub-resources may change", () => {
  it("ignores a status write through the main resource", async () => {
    const server = new APIServer();
    const created = await call(server, "POST", pvcs, claim);
    expect(created.json.status).toEqual({ phase: "Pending" });
    const put = await call(server, "PUT", `${pvcs}/data`, { ...created.json, status: { phase: "Bound" } });
    expect(put.status).toBe(200);
    expect(put.json.status).toEqual({ phase: "Pending" });
    const patched = await call(server, "PATCH", `${pvcs}/data`, { status: { phase: "Lost" } }, "application/merge-patch+json");
    expect(patched.json.status).toEqual({ phase: "Pending" });
  });

  it("ignores a spec write through /status and changes only the status", async () => {
    const server = new APIServer();
    const created = await call(server, "POST", pvcs, claim);
    const res = await call(server, "PUT", `${pvcs}/data/status`, {
      ...created.json,
      spec: { ...created.json.spec, storageClassName: "other" },
      status: { phase: "Bound" },
    });
    expect(res.status).toBe(200);
    expect(res.json.status.phase).toBe("Bound");
    expect(res.json.spec.storageClassName).toBeUndefined();
    const got = await call(server, "GET", `${pvcs}/data/status`);
    expect(got.json.status.phase).toBe("Bound");
  });

  it("refuses an object of the wrong kind or apiVersion for its path with 400, storing nothing", async () => {
    const server = new APIServer();
    const wrongKind = await call(server, "POST", pvcs, { ...claim, kind: "ConfigMap" });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.json.message).toBe("the kind in the data (ConfigMap) does not match the expected kind (PersistentVolumeClaim)");
    const wrongVersion = await call(server, "POST", pvcs, { ...claim, apiVersion: "storage.orch.io/v1" });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.json.message).toContain("does not match the expected API version (v1)");
    expect((await call(server, "GET", `${pvcs}/data`)).status).toBe(404);
  });

  it("refuses unknown and duplicate fields under Strict, warns about them by default", async () => {
    const server = new APIServer();
    const strict = await call(server, "POST", `${pvcs}?fieldValidation=Strict`, { ...claim, spec: { ...claim.spec, bogus: 1 } });
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('unknown field "spec.bogus"');
    const duplicate =
      '{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"dup","name":"dup2"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}';
    const strictDuplicate = await call(server, "POST", `${pvcs}?fieldValidation=Strict`, duplicate);
    expect(strictDuplicate.status).toBe(400);
    expect(strictDuplicate.json.message).toContain('duplicate field "metadata.name"');
    const warned = await call(server, "POST", pvcs, duplicate);
    expect(warned.status).toBe(201);
    expect(warned.headers.get("warning")).toContain('duplicate field \\"metadata.name\\"');
    expect((await call(server, "GET", `${pvcs}/data`)).status).toBe(404);
  });

  it("reads and writes admissionregistration objects through v1 and v1beta1 with each version's defaults", async () => {
    const server = new APIServer();
    const path = (v: string) => `/apis/admissionregistration.orch.io/${v}/validatingwebhookconfigurations`;
    const webhook = (v: string) => ({
      apiVersion: `admissionregistration.orch.io/${v}`,
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: `hooks-${v}` },
      webhooks: [
        {
          name: "check.example.com",
          clientConfig: { url: "https://hooks.example.com/check" },
          admissionReviewVersions: ["v1"],
          sideEffects: "None",
        },
      ],
    });
    const beta = await call(server, "POST", path("v1beta1"), webhook("v1beta1"));
    expect(beta.status).toBe(201);
    expect(beta.headers.get("warning")).toContain("is deprecated");
    expect(beta.json.webhooks[0].failurePolicy).toBe("Ignore");
    const asV1 = await call(server, "GET", `${path("v1")}/hooks-v1beta1`);
    expect(asV1.json.apiVersion).toBe("admissionregistration.orch.io/v1");
    expect(asV1.json.webhooks[0].failurePolicy).toBe("Ignore");
    const v1 = await call(server, "POST", path("v1"), webhook("v1"));
    expect(v1.json.webhooks[0].failurePolicy).toBe("Fail");
    const asBeta = await call(server, "GET", `${path("v1beta1")}/hooks-v1`);
    expect(asBeta.json.apiVersion).toBe("admissionregistration.orch.io/v1beta1");
    expect(asBeta.json.webhooks[0]).toMatchObject({ name: "check.example.com", failurePolicy: "Fail" });
  });

  it("binds and evicts pods through their action sub-resources", async () => {
    const server = new APIServer();
    await createDefaultServiceAccount(server);
    const pods = "/api/v1/namespaces/default/pods";
    await call(server, "POST", pods, { metadata: { name: "p" }, spec: { containers: [{ name: "app", image: "nginx" }] } });
    const bound = await call(server, "POST", `${pods}/p/binding`, {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "p" },
      target: { apiVersion: "v1", kind: "Node", name: "node-1" },
    });
    expect(bound.status).toBe(201);
    expect((await call(server, "GET", `${pods}/p`)).json.spec.nodeName).toBe("node-1");
    const again = await call(server, "POST", `${pods}/p/binding`, {
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name: "p" },
      target: { apiVersion: "v1", kind: "Node", name: "node-2" },
    });
    expect(again.status).toBe(409);
    const evicted = await call(server, "POST", `${pods}/p/eviction`, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "p" } });
    expect(evicted.status).toBe(201);
    expect((await call(server, "GET", `${pods}/p`)).status).toBe(404);
  });

  it("reports the health of its own components as ComponentStatus", async () => {
    const server = new APIServer();
    const list = await call(server, "GET", "/api/v1/componentstatuses");
    expect(list.json.items.map((c: { metadata: { name: string } }) => c.metadata.name).sort()).toEqual(["controller-manager", "storage"]);
    expect(list.json.items[0].conditions[0]).toMatchObject({ type: "Healthy", status: "True" });
    expect((await call(server, "POST", "/api/v1/componentstatuses", { metadata: { name: "x" } })).status).toBe(405);
  });
});
