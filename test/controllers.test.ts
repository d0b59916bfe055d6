/**
 * The controllers as users run them: `orch-apiserver` running the garbage collector in-process,
 * driven by kubectl's `--cascade` modes, and publishing `cluster-info` for anonymous readers;
 * and `orch-controller-manager` spawned against a server that runs no garbage collector, with
 * the admin kubeconfig.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { clusterInfoKubeconfig } from "@orch/certificates";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, httpsRequestTo, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { until } from "./support/authorization.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";

const controllerManagerBin = fileURLToPath(new URL("../node_modules/.bin/orch-controller-manager", import.meta.url));

interface ConfigMap {
  metadata: { name: string; uid: string; ownerReferences?: unknown[] };
}

/** Creates ConfigMap `owner` and two ConfigMaps owned by it (`<owner>-a`, `<owner>-b`) in `default`. */
async function ownerWithDependents(server: RunningAPIServer, owner: string): Promise<void> {
  const post = (body: unknown) =>
    adminRequest(server, {
      method: "POST",
      path: "/api/v1/namespaces/default/configmaps",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const created = await post({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: owner } });
  expect(created.status).toBe(201);
  const uid = (created.json as ConfigMap).metadata.uid;
  for (const suffix of ["a", "b"]) {
    const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: owner, uid }];
    expect((await post({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${owner}-${suffix}`, ownerReferences } })).status).toBe(201);
  }
}

/** The dependents of `owner` that still exist, by name, with their ownerReferences. */
async function dependents(server: RunningAPIServer, owner: string): Promise<Map<string, unknown[] | undefined>> {
  const found = new Map<string, unknown[] | undefined>();
  for (const suffix of ["a", "b"]) {
    const res = await adminRequest(server, { path: `/api/v1/namespaces/default/configmaps/${owner}-${suffix}` });
    if (res.status === 200) found.set(`${owner}-${suffix}`, (res.json as ConfigMap).metadata.ownerReferences);
  }
  return found;
}

describe("orch-apiserver with its in-process controllers", () => {
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

  it("kubectl delete --cascade=foreground returns once the owner's dependents are deleted", async () => {
    await ownerWithDependents(server, "fg");
    const deleted = await kubectl(["delete", "configmap", "fg", "--cascade=foreground", "--timeout=20s"], { timeoutSeconds: 30 });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await adminRequest(server, { path: "/api/v1/namespaces/default/configmaps/fg" })).status).toBe(404);
    expect(await dependents(server, "fg")).toEqual(new Map());
  });

  it("kubectl delete --cascade=background deletes the owner at once and its dependents within seconds", async () => {
    await ownerWithDependents(server, "bg");
    const deleted = await kubectl(["delete", "configmap", "bg", "--cascade=background"], { timeoutSeconds: 30 });
    expect(deleted.code, deleted.stderr).toBe(0);
    await until(
      async () => (await dependents(server, "bg")).size === 0,
      () => "the dependents of bg to be collected",
      10_000,
    );
  });

  it("kubectl delete --cascade=orphan keeps the dependents, without their ownerReferences", async () => {
    await ownerWithDependents(server, "or");
    const deleted = await kubectl(["delete", "configmap", "or", "--cascade=orphan", "--timeout=20s"], { timeoutSeconds: 30 });
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await adminRequest(server, { path: "/api/v1/namespaces/default/configmaps/or" })).status).toBe(404);
    const kept = await dependents(server, "or");
    expect([...kept.keys()]).toEqual(["or-a", "or-b"]);
    for (const references of kept.values()) expect(references ?? []).toEqual([]);
  });

  it("publishes cluster-info in orch-public, readable without credentials", async () => {
    const ca = await readFile(`${server.dataDir}/ca.crt`, "utf8");
    const res = await httpsRequestTo(server.url, { ca }, { path: "/api/v1/namespaces/orch-public/configmaps/cluster-info" });
    expect(res.status).toBe(200);
    expect((res.json as { data: Record<string, string> }).data["kubeconfig"]).toBe(clusterInfoKubeconfig({ server: server.url, caPem: ca }));
  });
});

describe("orch-controller-manager", () => {
  let server: RunningAPIServer;
  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--controllers=-garbagecollector"] });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("collects a background-deleted owner's dependents for a server without a garbage collector, and exits 0 on SIGTERM", async () => {
    // Without a collector the dependents stay.
    await ownerWithDependents(server, "before");
    expect((await adminRequest(server, { method: "DELETE", path: "/api/v1/namespaces/default/configmaps/before" })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect((await dependents(server, "before")).size).toBe(2);

    const child = spawn(controllerManagerBin, ["--kubeconfig", server.kubeconfigPath], { stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.setEncoding("utf8").on("data", (c: string) => {
          stdout += c;
          if (stdout.includes("\n")) resolve();
        });
        void exited.then(({ code }) => reject(new Error(`orch-controller-manager exited with ${code}: ${stderr}`)));
        setTimeout(() => reject(new Error(`orch-controller-manager not ready in 20 s: ${stderr}`)), 20_000).unref();
      });
      expect(stdout).toBe("orch-controller-manager ready\n");
      // Dependents of an owner deleted before it started, and after.
      await until(
        async () => (await dependents(server, "before")).size === 0,
        () => "the dependents of before to be collected",
        15_000,
      );
      await ownerWithDependents(server, "after");
      expect((await adminRequest(server, { method: "DELETE", path: "/api/v1/namespaces/default/configmaps/after" })).status).toBe(200);
      await until(
        async () => (await dependents(server, "after")).size === 0,
        () => "the dependents of after to be collected",
        15_000,
      );
      const lease = await adminRequest(server, { path: "/apis/coordination.orch.io/v1/namespaces/orch-system/leases/orch-controller-manager" });
      expect(lease.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited, stderr).toEqual({ code: 0, signal: null });
    expect(stdout).toBe("orch-controller-manager ready\n");
  }, 60_000);
});
