/**
 * The workload controllers as users drive them: `orch-apiserver --domain k8s.io` running its
 * in-process controller manager (the `deployment`, `replicaset` and `replicationcontroller`
 * loops), and the kubectl of this machine creating, rolling out, undoing and scaling a
 * Deployment, and keeping the Pods of a ReplicationController. No node agent runs: a stand-in
 * marks every Pod running and ready through the pods' `status` sub-resource. The domain is
 * `k8s.io` because `kubectl rollout undo` reads the `deployment.kubernetes.io/revision`
 * annotations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { until } from "./support/authorization.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startPodReadiness } from "./support/node-agent.js";

interface Obj {
  metadata: { name: string; uid: string; deletionTimestamp?: string; ownerReferences?: { uid: string }[]; annotations?: Record<string, string> };
  spec?: { replicas?: number; template?: { spec?: { containers?: { image?: string }[] } } };
  status?: { phase?: string; conditions?: { type: string; status: string }[]; replicas?: number; readyReplicas?: number };
}

let server: RunningAPIServer;
let kubectl: Kubectl;
let stopReadiness: (() => void) | undefined;

async function list(path: string): Promise<Obj[]> {
  const res = await adminRequest(server, { path });
  expect(res.status, res.text).toBe(200);
  return (res.json as { items: Obj[] }).items;
}

const pods = async () => (await list("/api/v1/namespaces/default/pods")).filter((p) => !p.metadata.deletionTimestamp);
const replicaSets = async () => list("/apis/apps/v1/namespaces/default/replicasets");
const revision = (o: Obj) => Number(o.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 0);

async function rolloutStatus(): Promise<void> {
  const res = await kubectl(["rollout", "status", "deployment/web", "--timeout=60s"], { timeoutSeconds: 70 });
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toContain('deployment "web" successfully rolled out');
}

describe("kubectl rollouts against orch-apiserver's workload controllers", () => {
  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
    kubectl = await kubectlFor(server);
    // Pods are refused until the serviceaccount loop made the namespace's default account.
    await until(
      async () => (await adminRequest(server, { path: "/api/v1/namespaces/default/serviceaccounts/default" })).status === 200,
      () => "the default ServiceAccount",
      20_000,
    );
    stopReadiness = startPodReadiness(server, "default");
  }, 60_000);

  afterAll(async () => {
    stopReadiness?.();
    await kubectl?.close();
    await server?.stop();
  });

  it("kubectl create deployment makes a ReplicaSet and its Pods, and rollout status completes once they are ready", async () => {
    const created = await kubectl(["create", "deployment", "web", "--image=nginx:1", "--replicas=2"]);
    expect(created.code, created.stderr).toBe(0);
    await rolloutStatus();
    const sets = await replicaSets();
    expect(sets).toHaveLength(1);
    expect(sets[0]?.metadata.name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(revision(sets[0]!)).toBe(1);
    expect((await pods()).filter((p) => p.metadata.ownerReferences?.[0]?.uid === sets[0]?.metadata.uid)).toHaveLength(2);
  }, 90_000);

  it("kubectl set image rolls out a second ReplicaSet and scales the first to 0", async () => {
    const set = await kubectl(["set", "image", "deployment/web", "nginx=nginx:2"]);
    expect(set.code, set.stderr).toBe(0);
    await rolloutStatus();
    await until(
      async () => {
        const sets = (await replicaSets()).sort((a, b) => revision(a) - revision(b));
        return sets.length === 2 && sets[0]?.spec?.replicas === 0 && sets[0]?.status?.replicas === 0 && sets[1]?.spec?.replicas === 2;
      },
      () => "the old ReplicaSet to be scaled to 0",
      20_000,
    );
    const history = await kubectl(["rollout", "history", "deployment/web"]);
    expect(history.code, history.stderr).toBe(0);
    expect(history.stdout).toMatch(/^1\s/m);
    expect(history.stdout).toMatch(/^2\s/m);
  }, 90_000);

  it("kubectl rollout undo goes back to the first template under revision 3", async () => {
    const undo = await kubectl(["rollout", "undo", "deployment/web"]);
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toBe("deployment.apps/web rolled back\n");
    await rolloutStatus();
    const image = await kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"]);
    expect(image.stdout).toBe("nginx:1");
    await until(
      async () => {
        const sets = (await replicaSets()).sort((a, b) => revision(a) - revision(b));
        return (
          sets.length === 2 && revision(sets[1]!) === 3 && sets[1]?.spec?.template?.spec?.containers?.[0]?.image === "nginx:1" && sets[0]?.spec?.replicas === 0
        );
      },
      () => "the first ReplicaSet to come back as revision 3",
      20_000,
    );
  }, 90_000);

  it("kubectl scale changes the number of Pods", async () => {
    const scaled = await kubectl(["scale", "deployment/web", "--replicas=3"]);
    expect(scaled.code, scaled.stderr).toBe(0);
    await rolloutStatus();
    const ready = await kubectl(["get", "deployment", "web", "-o", "jsonpath={.status.readyReplicas}/{.status.updatedReplicas}/{.status.availableReplicas}"]);
    expect(ready.stdout).toBe("3/3/3");
    await until(
      async () => (await pods()).length === 3,
      () => "3 Pods",
      20_000,
    );
  }, 90_000);

  it("a ReplicationController keeps its Pods, replacing a deleted one", async () => {
    const manifest = await kubectl.file(
      "rc.yaml",
      `apiVersion: v1
kind: ReplicationController
metadata:
  name: db
spec:
  replicas: 2
  selector:
    app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: redis
        image: redis
`,
    );
    const applied = await kubectl(["apply", "-f", manifest]);
    expect(applied.code, applied.stderr).toBe(0);
    const dbPods = async () => (await pods()).filter((p) => p.metadata.name.startsWith("db-"));
    await until(
      async () => (await dbPods()).length === 2,
      () => "2 Pods of db",
      20_000,
    );
    const victim = (await dbPods())[0]!.metadata.name;
    const deleted = await kubectl(["delete", "pod", victim, "--wait=false"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    await until(
      async () => {
        const names = (await dbPods()).map((p) => p.metadata.name);
        return names.length === 2 && !names.includes(victim);
      },
      () => "a replacement for the deleted Pod",
      20_000,
    );
    await until(
      async () => {
        const rc = (await adminRequest(server, { path: "/api/v1/namespaces/default/replicationcontrollers/db" })).json as Obj;
        return rc.status?.readyReplicas === 2;
      },
      () => "db to report 2 ready replicas",
      20_000,
    );
  }, 90_000);

  it("logs nothing of the workload loops' routine work", () => {
    expect(server.stderr()).not.toMatch(/(deployment|replicaset|replicationcontroller): /);
  });
});
