import { describe, expect, it } from "vitest";
import { APIServer } from "./api-server.js";

/** In-process calls to the `scale` sub-resource and its parents. */
async function call(server: APIServer, method: string, url: string, body?: unknown, contentType = "application/json") {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": contentType }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const deployments = "/apis/apps/v1/namespaces/default/deployments";
const web = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web" },
  spec: {
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
  },
};

async function withDeployment() {
  const server = new APIServer();
  const created = await call(server, "POST", deployments, web);
  expect(created.status).toBe(201);
  return { server, created: created.json };
}

describe("the scale sub-resource", () => {
  it("answers an autoscaling/v1 Scale of a deployment", async () => {
    const { server, created } = await withDeployment();
    const res = await call(server, "GET", `${deployments}/web/scale`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: {
        name: "web",
        namespace: "default",
        uid: created.metadata.uid,
        resourceVersion: created.metadata.resourceVersion,
        creationTimestamp: created.metadata.creationTimestamp,
      },
      spec: { replicas: 1 },
      status: { replicas: 0, selector: "app=web" },
    });
  });

  it("changes only spec.replicas of the parent on PUT", async () => {
    const { server, created } = await withDeployment();
    const put = await call(server, "PUT", `${deployments}/web/scale`, {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "web", namespace: "default", resourceVersion: created.metadata.resourceVersion },
      spec: { replicas: 3 },
      status: { replicas: 9, selector: "x=y" },
    });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ kind: "Scale", spec: { replicas: 3 }, status: { replicas: 0, selector: "app=web" } });
    const got = await call(server, "GET", `${deployments}/web`);
    expect(got.json.spec.replicas).toBe(3);
    expect(got.json.spec.selector).toEqual(web.spec.selector);
    expect(got.json.status).toEqual({});
    expect(got.json.metadata.generation).toBe(2);
    expect(got.json.metadata.resourceVersion).toBe(put.json.metadata.resourceVersion);
    expect(got.json.metadata.managedFields.some((f: { subresource?: string }) => f.subresource === "scale")).toBe(true);
  });

  it.each([
    ["a merge patch", "application/merge-patch+json", { spec: { replicas: 5 } }],
    ["a strategic merge patch", "application/strategic-merge-patch+json", { spec: { replicas: 5 } }],
    ["a JSON patch", "application/json-patch+json", [{ op: "replace", path: "/spec/replicas", value: 5 }]],
  ])("changes spec.replicas on %s", async (_what, contentType, patch) => {
    const { server } = await withDeployment();
    const res = await call(server, "PATCH", `${deployments}/web/scale`, patch, contentType);
    expect(res.status).toBe(200);
    expect(res.json.spec.replicas).toBe(5);
    expect((await call(server, "GET", `${deployments}/web`)).json.spec.replicas).toBe(5);
  });

  it("refuses a stale resourceVersion with 409", async () => {
    const { server, created } = await withDeployment();
    await call(server, "PATCH", `${deployments}/web/scale`, { spec: { replicas: 2 } }, "application/merge-patch+json");
    const stale = {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name: "web", resourceVersion: created.metadata.resourceVersion },
      spec: { replicas: 4 },
    };
    const put = await call(server, "PUT", `${deployments}/web/scale`, stale);
    expect(put.status).toBe(409);
    expect(put.json.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    );
    const patched = await call(
      server,
      "PATCH",
      `${deployments}/web/scale`,
      { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { replicas: 4 } },
      "application/merge-patch+json",
    );
    expect(patched.status).toBe(409);
    expect((await call(server, "GET", `${deployments}/web`)).json.spec.replicas).toBe(2);
  });

  it("refuses negative replicas with 422 on the Scale", async () => {
    const { server } = await withDeployment();
    const res = await call(server, "PATCH", `${deployments}/web/scale`, { spec: { replicas: -1 } }, "application/merge-patch+json");
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it("is 404 for a missing parent and for a kind without scale", async () => {
    const { server } = await withDeployment();
    expect((await call(server, "GET", `${deployments}/nope/scale`)).status).toBe(404);
    const ds = await call(server, "POST", "/apis/apps/v1/namespaces/default/daemonsets", { ...web, kind: "DaemonSet", spec: web.spec });
    expect(ds.status).toBe(201);
    expect((await call(server, "GET", "/apis/apps/v1/namespaces/default/daemonsets/web/scale")).status).toBe(404);
    expect((await call(server, "GET", "/api/v1/namespaces/default/configmaps/x/scale")).status).toBe(404);
  });

  it("serves the scale of replica sets and stateful sets", async () => {
    const server = new APIServer();
    for (const [resource, kind] of [
      ["replicasets", "ReplicaSet"],
      ["statefulsets", "StatefulSet"],
    ]) {
      const base = `/apis/apps/v1/namespaces/default/${resource}`;
      expect((await call(server, "POST", base, { ...web, kind })).status).toBe(201);
      const res = await call(server, "PATCH", `${base}/web/scale`, { spec: { replicas: 2 } }, "application/merge-patch+json");
      expect(res.json).toMatchObject({ kind: "Scale", spec: { replicas: 2 }, status: { selector: "app=web" } });
    }
  });

  it("is listed in discovery as autoscaling/v1 Scale", async () => {
    const server = new APIServer();
    const res = await call(server, "GET", "/apis/apps/v1");
    const scale = res.json.resources.find((r: { name: string }) => r.name === "deployments/scale");
    expect(scale).toMatchObject({ group: "autoscaling", version: "v1", kind: "Scale", verbs: ["get", "patch", "update"] });
  });

  it("refuses a deployment whose selector does not match its template", async () => {
    const server = new APIServer();
    const res = await call(server, "POST", deployments, { ...web, spec: { ...web.spec, selector: { matchLabels: { app: "db" } } } });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(
      'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    );
  });
});
