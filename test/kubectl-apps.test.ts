/**
 * The `apps/v1` workloads with the kubectl of this machine against a running `orch-apiserver`:
 * `kubectl create deployment`, `kubectl scale` through the `scale` sub-resource, and the table
 * kubectl prints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

let server: RunningAPIServer;
let kubectl: Kubectl;

describe("kubectl with apps/v1 workloads against orch-apiserver", () => {
  beforeAll(async () => {
    server = await startAPIServer();
    kubectl = await kubectlFor(server);
  }, 30_000);

  afterAll(async () => {
    await kubectl?.close();
    await server?.stop();
  });

  it("creates a deployment with the reference's defaults", async () => {
    const created = await kubectl(["create", "deployment", "web", "--image=nginx"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("deployment.apps/web created\n");
    const got = await kubectl(["get", "deployment", "web", "-o", "json"]);
    expect(got.code, got.stderr).toBe(0);
    const spec = (JSON.parse(got.stdout) as { spec: Record<string, unknown> }).spec;
    expect(spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
    });
  });

  it("scales a deployment through its scale sub-resource", async () => {
    const scaled = await kubectl(["scale", "deployment", "web", "--replicas=3"]);
    expect(scaled.code, scaled.stderr).toBe(0);
    expect(scaled.stdout).toBe("deployment.apps/web scaled\n");
    const replicas = await kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"]);
    expect(replicas.code, replicas.stderr).toBe(0);
    expect(replicas.stdout).toBe("3");
  });

  it("refuses a scale with a stale --resource-version (kubectl compares it with the Scale's)", async () => {
    const res = await kubectl(["scale", "deployment", "web", "--replicas=4", "--resource-version=1"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/^error: Expected resource version to be 1, was \d+\n$/);
    const replicas = await kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"]);
    expect(replicas.stdout).toBe("3");
  });

  it("prints the deployments table as kubectl shows it", async () => {
    // The deployment and replicaset loops create the 3 Pods; no node agent makes them ready.
    for (let i = 0; i < 100; i++) {
      const updated = await kubectl(["get", "deployment", "web", "-o", "jsonpath={.status.updatedReplicas}"]);
      if (updated.stdout === "3") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const res = await kubectl(["get", "deployments"]);
    expect(res.code, res.stderr).toBe(0);
    const [header, row] = res.stdout.split("\n");
    expect(header?.split(/\s+/).filter(Boolean)).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    expect(row?.split(/\s+/).slice(0, 4)).toEqual(["web", "0/3", "3", "0"]);
  });

  it("refuses to change the selector of a deployment", async () => {
    const res = await kubectl(["patch", "deployment", "web", "--type=merge", "-p", '{"spec":{"selector":{"matchLabels":{"app":"other"}}}}']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("spec.selector: Invalid value");
    expect(res.stderr).toContain("field is immutable");
  });

  it("creates and lists replica sets and stateful sets", async () => {
    const manifest = (kind: string) => `apiVersion: apps/v1
kind: ${kind}
metadata:
  name: db
spec:
  replicas: 2
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: pg
        image: postgres
`;
    for (const kind of ["ReplicaSet", "StatefulSet"]) {
      const applied = await kubectl(["apply", "-f", "-"], { input: manifest(kind) });
      expect(applied.code, applied.stderr).toBe(0);
    }
    const rs = await kubectl(["get", "replicasets"]);
    expect(rs.stdout.split("\n")[0]?.split(/\s+/).filter(Boolean)).toEqual(["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
    const sts = await kubectl(["get", "statefulsets"]);
    expect(sts.stdout.split("\n")[0]?.split(/\s+/).filter(Boolean)).toEqual(["NAME", "READY", "AGE"]);
    const scaled = await kubectl(["scale", "statefulset", "db", "--replicas=5"]);
    expect(scaled.code, scaled.stderr).toBe(0);
    const replicas = await kubectl(["get", "sts", "db", "-o", "jsonpath={.spec.replicas}"]);
    expect(replicas.stdout).toBe("5");
  });
});
