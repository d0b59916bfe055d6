/**
 * The workload loops as users run them: `orch-apiserver` with its in-process controllers, driven
 * by the kubectl of this machine. Nothing runs Pods here, so the tests play the node: they mark
 * Pods succeeded or ready through the pods' `status` sub-resource, and clear the not-ready taint
 * a new Node starts with.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { until } from "./support/authorization.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";

interface Pod {
  metadata: { name: string; deletionTimestamp?: string; labels?: Record<string, string> };
  spec: {
    affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: { matchFields?: { values: string[] }[] }[] } } };
  };
  status?: { phase?: string };
}

describe("the workload controllers of orch-apiserver", () => {
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

  /** The live Pods of `default` with `selector`, by name. */
  async function pods(selector: string): Promise<Pod[]> {
    const res = await adminRequest(server, { path: `/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(selector)}` });
    expect(res.status).toBe(200);
    return (res.json as { items: Pod[] }).items.filter((p) => !p.metadata.deletionTimestamp).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  /** Writes the Pod's status as a node would: `phase`, and Ready when `ready`. */
  async function setPodStatus(name: string, phase: string, ready: boolean): Promise<void> {
    const conditions = [{ type: "Ready", status: ready ? "True" : "False" }];
    const res = await adminRequest(server, {
      method: "PATCH",
      path: `/api/v1/namespaces/default/pods/${name}/status`,
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ status: { phase, conditions } }),
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
  }

  async function apply(name: string, manifest: unknown): Promise<void> {
    const path = await kubectl.file(`${name}.json`, JSON.stringify(manifest));
    const res = await kubectl(["apply", "-f", path]);
    expect(res.code, res.stderr).toBe(0);
  }

  it("completes a Job whose Pods succeed, for kubectl wait --for=condition=complete", async () => {
    await apply("job", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "work", namespace: "default" },
      spec: { completions: 2, parallelism: 2, template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } },
    });
    await until(
      async () => (await pods("job-name=work")).length === 2,
      () => "the Job's two Pods",
      20_000,
    );
    for (const pod of await pods("job-name=work")) await setPodStatus(pod.metadata.name, "Succeeded", false);
    const waited = await kubectl(["wait", "--for=condition=complete", "job/work", "--timeout=30s"], { timeoutSeconds: 40 });
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toBe("job.batch/work condition met\n");
    const got = await kubectl(["get", "job", "work", "-o", "jsonpath={.status.succeeded}/{.status.active}"]);
    expect(got.stdout).toBe("2/0");
  });

  it("makes a StatefulSet's Pods x-0 then x-1 as each is marked ready", async () => {
    await apply("sts", {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "x", namespace: "default" },
      spec: {
        replicas: 2,
        serviceName: "x",
        selector: { matchLabels: { app: "x" } },
        template: { metadata: { labels: { app: "x" } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
      },
    });
    await until(
      async () => (await pods("app=x")).length === 1,
      () => "x-0",
      20_000,
    );
    expect((await pods("app=x")).map((p) => p.metadata.name)).toEqual(["x-0"]);
    expect((await pods("app=x"))[0]?.metadata.labels).toMatchObject({ "statefulset.orch.io/pod-name": "x-0", "apps.orch.io/pod-index": "0" });
    await setPodStatus("x-0", "Running", true);
    await until(
      async () => (await pods("app=x")).length === 2,
      () => "x-1",
      20_000,
    );
    expect((await pods("app=x")).map((p) => p.metadata.name)).toEqual(["x-0", "x-1"]);
    await setPodStatus("x-1", "Running", true);
    const rolled = await kubectl(["rollout", "status", "statefulset/x", "--timeout=30s"], { timeoutSeconds: 40 });
    expect(rolled.code, rolled.stderr).toBe(0);
  });

  it("makes a DaemonSet's Pod on each Node, bound to it by node affinity", async () => {
    for (const node of ["worker-1", "worker-2"]) {
      await apply(node, { apiVersion: "v1", kind: "Node", metadata: { name: node } });
      const untainted = await kubectl(["taint", "nodes", node, "node.orch.io/not-ready:NoSchedule-"]);
      expect(untainted.code, untainted.stderr).toBe(0);
    }
    await apply("ds", {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "agent", namespace: "default" },
      spec: {
        selector: { matchLabels: { app: "agent" } },
        template: { metadata: { labels: { app: "agent" } }, spec: { containers: [{ name: "c", image: "agent" }] } },
      },
    });
    await until(
      async () => (await pods("app=agent")).length === 2,
      () => "a Pod per Node",
      20_000,
    );
    const nodes = (await pods("app=agent")).map(
      (p) => p.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values[0],
    );
    expect(nodes.sort()).toEqual(["worker-1", "worker-2"]);
    await until(
      async () => (await kubectl(["get", "ds", "agent", "-o", "jsonpath={.status.desiredNumberScheduled}/{.status.currentNumberScheduled}"])).stdout === "2/2",
      () => "the DaemonSet's status",
      20_000,
    );
  });

  it("keeps a PodDisruptionBudget's status in step with its Pods", async () => {
    await apply("pdb", {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "x", namespace: "default" },
      spec: { minAvailable: 1, selector: { matchLabels: { app: "x" } } },
    });
    const budget = async () =>
      (await kubectl(["get", "pdb", "x", "-o", "jsonpath={.status.currentHealthy}/{.status.desiredHealthy}/{.status.disruptionsAllowed}"])).stdout;
    await until(
      async () => (await budget()) === "2/1/1",
      () => "the budget counting two healthy Pods",
      20_000,
    );
    await setPodStatus("x-1", "Running", false);
    await until(
      async () => (await budget()) === "1/1/0",
      () => "the budget counting one healthy Pod",
      20_000,
    );
    const reason = await kubectl(["get", "pdb", "x", "-o", 'jsonpath={.status.conditions[?(@.type=="DisruptionAllowed")].reason}']);
    expect(reason.stdout).toBe("InsufficientPods");
  });

  it("writes nothing to the server's log for routine work", () => {
    const lines = server
      .stderr()
      .split("\n")
      .filter((l) => /\b(job|cronjob|statefulset|daemonset|disruption|ttl-after-finished): /.test(l));
    expect(lines).toEqual([]);
  });
});
