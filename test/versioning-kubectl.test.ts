/**
 * API versions with the kubectl of this machine against a running `orch-apiserver`: the versions
 * the reference stopped serving answer as an unknown group version does, `--runtime-config`
 * takes a version away from kubectl or gives it an alpha one, and `--request-timeout` reaches the
 * server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

/** The 404 Status the reference answers for a group version it does not serve. */
const notFoundStatus = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server could not find the requested resource",
  reason: "NotFound",
  details: {},
  code: 404,
};

describe("removed API versions with kubectl", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startAPIServer();
    kubectl = await kubectlFor(server);
  }, 30_000);

  afterAll(async () => {
    await kubectl?.close();
    await server?.stop();
  });

  it.each([
    "/apis/apps/v1beta1",
    "/apis/apps/v1beta2",
    "/apis/extensions/v1beta1",
    "/apis/apps/v1beta1/deployments",
    "/apis/apps/v1beta1/namespaces/default/statefulsets",
    "/apis/apps/v1beta2/namespaces/default/replicasets",
    "/apis/apps/v1beta2/daemonsets",
    "/apis/extensions/v1beta1/namespaces/default/deployments",
    "/apis/extensions/v1beta1/replicasets",
    "/apis/extensions/v1beta1/daemonsets",
    "/apis/no-such-group.example.com/v1",
  ])("GET %s answers the 404 Status of a group version that is not served", async (path) => {
    const res = await adminRequest(server, { path });
    expect(res.status).toBe(404);
    expect(res.json).toEqual(notFoundStatus);
  });

  it("kubectl apply of a Deployment in apps/v1beta1 finds no such kind", async () => {
    const manifest = await kubectl.file(
      "deployment-v1beta1.yaml",
      `apiVersion: apps/v1beta1
kind: Deployment
metadata:
  name: old
spec:
  replicas: 1
  template:
    metadata:
      labels:
        app: old
    spec:
      containers:
      - name: web
        image: nginx
`,
    );
    // Client-side validation is off: for a group version absent from /openapi/v3 kubectl falls
    // back to /openapi/v2, which orch does not serve, and would stop there instead.
    const res = await kubectl(["apply", "-f", manifest, "--validate=false"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('no matches for kind "Deployment" in version "apps/v1beta1"');
    expect((await kubectl(["apply", "-f", manifest])).code).not.toBe(0);
    const apps = await kubectl(["api-versions"]);
    expect(apps.code, apps.stderr).toBe(0);
    expect(apps.stdout.split("\n")).toContain("apps/v1");
    expect(apps.stdout.split("\n")).not.toContain("apps/v1beta1");
    expect(apps.stdout.split("\n")).not.toContain("extensions/v1beta1");
  });

  it("serves HorizontalPodAutoscalers and no alpha version by default", async () => {
    const hpa = await kubectl(["get", "horizontalpodautoscalers"]);
    expect(hpa.code, hpa.stderr).toBe(0);
    const versions = await kubectl(["api-versions"]);
    expect(versions.stdout.split("\n")).not.toContain("imagepolicy.orch.io/v1alpha1");
  });
});

describe("--runtime-config with kubectl", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--runtime-config", "autoscaling/v1=false,autoscaling/v2=false,api/alpha=true", "--request-timeout", "30s"] });
    kubectl = await kubectlFor(server);
  }, 30_000);

  afterAll(async () => {
    await kubectl?.close();
    await server?.stop();
  });

  it("versions turned off are ones kubectl no longer finds", async () => {
    const res = await kubectl(["get", "horizontalpodautoscalers"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('the server doesn\'t have a resource type "horizontalpodautoscalers"');
    const raw = await adminRequest(server, { path: "/apis/autoscaling/v1/horizontalpodautoscalers" });
    expect(raw.status).toBe(404);
    expect(raw.json).toEqual(notFoundStatus);
  });

  it("api/alpha=true serves the alpha versions", async () => {
    const versions = await kubectl(["api-versions"]);
    expect(versions.code, versions.stderr).toBe(0);
    expect(versions.stdout.split("\n")).toContain("imagepolicy.orch.io/v1alpha1");
    const resources = await kubectl(["api-resources", "--api-group=imagepolicy.orch.io", "-o", "name"]);
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.stdout).toBe("imagereviews.imagepolicy.orch.io\n");
  });

  it("a request with ?timeout= below --request-timeout is served", async () => {
    const res = await adminRequest(server, { path: "/api/v1/namespaces?timeout=10s" });
    expect(res.status).toBe(200);
    const bad = await adminRequest(server, { path: "/api/v1/namespaces?timeout=10" });
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toBe('invalid timeout specified in the request URL - time: missing unit in duration "10"');
  });
});
