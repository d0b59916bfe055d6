import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpsRequestTo } from "../../test/support/apiserver.js";
import { kubectlFor, type Kubectl } from "../../test/support/kubectl.js";
import { kubeconfigFor, startApp, type HonoApp } from "./main.js";

describe("Hono example", () => {
  let app: HonoApp;
  let kubectl: Kubectl;
  let dir: string;
  beforeAll(async () => {
    app = await startApp();
    dir = await mkdtemp(join(tmpdir(), "orch-hono-"));
    const kubeconfigPath = join(dir, "kubeconfig");
    await writeFile(kubeconfigPath, kubeconfigFor(app), { mode: 0o600 });
    kubectl = await kubectlFor({ kubeconfigPath });
  });
  afterAll(async () => {
    await kubectl?.close();
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const get = (path: string, token?: string) =>
    httpsRequestTo(app.url, { ca: app.caPem }, { path, headers: token ? { authorization: `Bearer ${token}` } : {} });

  it("keeps the app's own routes", async () => {
    const res = await get("/hello");
    expect(res.json).toEqual({ hello: "from hono" });
  });

  it("serves the API under /k8s, and a path under /k8s the API does not know is a 404 Status", async () => {
    const list = await get("/k8s/api/v1/namespaces", app.token);
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ kind: "NamespaceList" });
    const unknown = await get("/k8s/nope", app.token);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ kind: "Status", reason: "NotFound" });
  });

  it("authenticates through the mount: no token is 401, the request headers reach the server", async () => {
    const res = await get("/k8s/api/v1/namespaces");
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: "Status", reason: "Unauthorized" });
  });

  it("works with kubectl given server: https://127.0.0.1:<port>/k8s", async () => {
    const namespaces = await kubectl(["get", "namespaces", "-o", "name"]);
    expect(namespaces.stderr).toBe("");
    expect(namespaces.stdout.split("\n")).toContain("namespace/default");

    const created = await kubectl(["create", "configmap", "from-kubectl", "--from-literal=mode=fast"]);
    expect(created.stdout.trim()).toBe("configmap/from-kubectl created");

    const patched = await kubectl(["patch", "configmap", "from-kubectl", "--type=merge", "-p", '{"data":{"mode":"safe"}}']);
    expect(patched.stdout.trim()).toBe("configmap/from-kubectl patched");

    const got = await kubectl(["get", "configmap", "from-kubectl", "-o", "json"]);
    expect(JSON.parse(got.stdout)).toMatchObject({ kind: "ConfigMap", metadata: { name: "from-kubectl", namespace: "default" }, data: { mode: "safe" } });

    // explain follows the OpenAPI v3 index's links, which must resolve under the prefix.
    const explained = await kubectl(["explain", "configmaps.data"]);
    expect(explained.stderr).toBe("");
    expect(explained.stdout).toContain("FIELD: data");
  });

  it("streams a watch through Hono event by event", async () => {
    const events: string[] = [];
    const watch = request(`${app.apiURL}/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dwatched`, {
      ca: app.caPem,
      headers: { authorization: `Bearer ${app.token}` },
      agent: false,
    });
    const opened = new Promise<void>((resolve, reject) => {
      watch.on("response", (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => events.push(chunk));
        res.on("error", () => undefined);
        resolve();
      });
      watch.on("error", reject);
    });
    watch.end();
    await opened;
    const created = await httpsRequestTo(
      app.url,
      { ca: app.caPem },
      {
        method: "POST",
        path: "/k8s/api/v1/namespaces/default/configmaps",
        headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: "watched" } }),
      },
    );
    expect(created.status).toBe(201);
    const deadline = Date.now() + 5000;
    while (!events.join("").includes("\n") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(JSON.parse(events.join("").split("\n")[0]!)).toMatchObject({ type: "ADDED", object: { metadata: { name: "watched" } } });
    watch.destroy();
  });
});
