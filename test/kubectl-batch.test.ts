/**
 * The batch, policy and networking kinds with the kubectl of this machine against a running
 * `orch-apiserver`: `kubectl create job|cronjob|poddisruptionbudget` (and `ingress` with
 * `--domain k8s.io`, the group kubectl names), whose bodies kubectl sends in protobuf, the objects
 * read back with the reference's defaults, and the tables kubectl prints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

describe("kubectl create job, cronjob and poddisruptionbudget against orch-apiserver", () => {
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

  it("creates a job with a generated selector and the reference's defaults", async () => {
    const created = await kubectl(["create", "job", "pi", "--image=busybox", "-v=8", "--", "echo", "hi"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("job.batch/pi created\n");
    // kubectl sent the Job in protobuf, which the server read
    expect(created.stderr).toMatch(/"Request Body" body=<\s*00000000\s+6b 38 73 00/);
    const got = await kubectl(["get", "job", "pi", "-o", "json"]);
    expect(got.code, got.stderr).toBe(0);
    const job = JSON.parse(got.stdout) as { metadata: { uid: string; labels: Record<string, string> }; spec: Record<string, unknown> };
    expect(job.spec).toMatchObject({
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      selector: { matchLabels: { "batch.orch.io/controller-uid": job.metadata.uid } },
      template: { metadata: { labels: { "job-name": "pi", "controller-uid": job.metadata.uid } }, spec: { restartPolicy: "Never" } },
    });
    expect(job.metadata.labels).toMatchObject({ "job-name": "pi" });
  });

  it("prints the jobs table", async () => {
    const res = await kubectl(["get", "jobs"]);
    expect(res.code, res.stderr).toBe(0);
    const [header, row] = res.stdout.split("\n");
    expect(header?.split(/\s{2,}/).filter(Boolean)).toEqual(["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]);
    expect(row?.split(/\s+/).slice(0, 3)).toEqual(["pi", "Running", "0/1"]);
  });

  it("creates a cronjob and refuses a bad schedule with the cron parser's message", async () => {
    const created = await kubectl(["create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("cronjob.batch/tick created\n");
    const got = await kubectl([
      "get",
      "cronjob",
      "tick",
      "-o",
      "jsonpath={.spec.concurrencyPolicy} {.spec.successfulJobsHistoryLimit} {.spec.failedJobsHistoryLimit}",
    ]);
    expect(got.stdout).toBe("Allow 3 1");
    const bad = await kubectl(["create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61');
  });

  it("creates a job from a cronjob's template", async () => {
    const created = await kubectl(["create", "job", "manual-tick", "--from=cronjob/tick"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("job.batch/manual-tick created\n");
    const got = await kubectl(["get", "job", "manual-tick", "-o", "json"]);
    const job = JSON.parse(got.stdout) as {
      metadata: { annotations: Record<string, string>; ownerReferences: { kind: string; name: string }[] };
      spec: Record<string, unknown>;
    };
    expect(job.metadata.annotations).toMatchObject({ "cronjob.kubernetes.io/instantiate": "manual" });
    expect(job.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "CronJob", name: "tick" })]);
    expect(job.spec).toMatchObject({ template: { spec: { restartPolicy: "OnFailure", containers: [{ name: "tick", image: "busybox" }] } } });
  });

  it("creates a poddisruptionbudget and prints its table", async () => {
    const created = await kubectl(["create", "poddisruptionbudget", "web", "--selector=app=web", "--min-available=1"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("poddisruptionbudget.policy/web created\n");
    const res = await kubectl(["get", "pdb"]);
    expect(res.code, res.stderr).toBe(0);
    const [header, row] = res.stdout.split("\n");
    expect(header?.split(/\s{2,}/).filter(Boolean)).toEqual(["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"]);
    expect(row?.split(/\s+/).slice(0, 4)).toEqual(["web", "1", "N/A", "0"]);
  });

  it("autoscales a deployment (kubectl sends the HorizontalPodAutoscaler in protobuf) and prints the table", async () => {
    const deployment = await kubectl(["create", "deployment", "scaled", "--image=nginx"]);
    expect(deployment.code, deployment.stderr).toBe(0);
    const created = await kubectl(["autoscale", "deployment", "scaled", "--max=5", "--cpu-percent=70", "-v=8"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("horizontalpodautoscaler.autoscaling/scaled autoscaled\n");
    expect(created.stderr).toContain("application/vnd.kubernetes.protobuf");
    const got = await kubectl(["get", "hpa", "scaled", "-o", "jsonpath={.spec}"]);
    expect(JSON.parse(got.stdout)).toMatchObject({
      scaleTargetRef: { kind: "Deployment", name: "scaled", apiVersion: "apps/v1" },
      maxReplicas: 5,
      minReplicas: 1,
    });
    const table = await kubectl(["get", "hpa", "scaled"]);
    expect(table.code, table.stderr).toBe(0);
    expect(
      table.stdout
        .split("\n")[0]
        ?.split(/\s{2,}/)
        .filter(Boolean),
    ).toEqual(["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"]);
  });

  it("scales a replication controller through its scale sub-resource, whose selector is its label map", async () => {
    const manifest = `apiVersion: v1
kind: ReplicationController
metadata:
  name: nginx
spec:
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx
`;
    const applied = await kubectl(["apply", "-f", "-"], { input: manifest });
    expect(applied.code, applied.stderr).toBe(0);
    const scaled = await kubectl(["scale", "rc", "nginx", "--replicas=2"]);
    expect(scaled.code, scaled.stderr).toBe(0);
    expect(scaled.stdout).toBe("replicationcontroller/nginx scaled\n");
    const scale = await kubectl(["get", "--raw", "/api/v1/namespaces/default/replicationcontrollers/nginx/scale"]);
    expect(JSON.parse(scale.stdout)).toMatchObject({ kind: "Scale", spec: { replicas: 2 }, status: { selector: "app=nginx" } });
    const res = await kubectl(["get", "rc"]);
    const [header] = res.stdout.split("\n");
    expect(header?.split(/\s+/).filter(Boolean)).toEqual(["NAME", "DESIRED", "CURRENT", "READY", "AGE"]);
  });
});

describe("kubectl create ingress against orch-apiserver --domain k8s.io", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
    kubectl = await kubectlFor(server);
  }, 30_000);
  afterAll(async () => {
    await kubectl?.close();
    await server?.stop();
  });

  it("creates an ingress with a rule and TLS, and prints its table", async () => {
    const created = await kubectl(["create", "ingress", "web", "--class=nginx", "--rule=example.com/api*=api:80,tls=web-tls", "-v=8"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("ingress.networking.k8s.io/web created\n");
    expect(created.stderr).toMatch(/"Request Body" body=<\s*00000000\s+6b 38 73 00/);
    const res = await kubectl(["get", "ing"]);
    expect(res.code, res.stderr).toBe(0);
    const [header, row] = res.stdout.split("\n");
    expect(header?.split(/\s{2,}/).filter(Boolean)).toEqual(["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"]);
    expect(row?.split(/\s{2,}/).slice(0, 2)).toEqual(["web", "nginx"]);
    const got = await kubectl(["get", "ingress", "web", "-o", "jsonpath={.spec.rules[0].http.paths[0].pathType} {.spec.rules[0].http.paths[0].path}"]);
    expect(got.stdout).toBe("Prefix /api");
  });

  it("labels a job's pods under kubernetes.io", async () => {
    const created = await kubectl(["create", "job", "pi", "--image=busybox"]);
    expect(created.code, created.stderr).toBe(0);
    const got = await kubectl(["get", "job", "pi", "-o", "jsonpath={.spec.selector.matchLabels}"]);
    expect(Object.keys(JSON.parse(got.stdout) as Record<string, string>)).toEqual(["batch.kubernetes.io/controller-uid"]);
  });
});
