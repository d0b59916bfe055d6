/**
 * The objects `orch-apiserver` makes for itself, read with the kubectl of this machine: the
 * `kubernetes` Service of `default` (the first address of the service range, port 443 to the
 * server's port) and its Endpoints (the advertised address), the Local APIServices of the served versions, and the system
 * PriorityClasses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

describe("the objects orch-apiserver creates for itself", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;
  let port: string;

  beforeAll(async () => {
    server = await startAPIServer({
      flags: ["--service-cluster-ip-range", "10.0.0.0/24", "--advertise-address", "192.0.2.30", "--runtime-config", "batch/v1=false"],
    });
    kubectl = await kubectlFor(server);
    port = new URL(server.url).port;
  }, 30_000);
  afterAll(async () => {
    await kubectl?.close();
    await server?.stop();
  });

  it("has the kubernetes Service and its Endpoints pointing at this server", async () => {
    const svc = await kubectl(["get", "svc", "kubernetes", "-o", "json"]);
    expect(svc.code, svc.stderr).toBe(0);
    const service = JSON.parse(svc.stdout) as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> };
    expect(service.metadata.labels).toEqual({ component: "apiserver", provider: "kubernetes" });
    expect(service.spec).toMatchObject({
      clusterIP: "10.0.0.1",
      type: "ClusterIP",
      ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: Number(port) }],
    });
    const table = await kubectl(["get", "svc", "kubernetes"]);
    expect(table.stdout.split("\n")[1]?.split(/\s+/).slice(0, 5)).toEqual(["kubernetes", "ClusterIP", "10.0.0.1", "<none>", "443/TCP"]);
    const endpoints = await kubectl(["get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}"]);
    expect(endpoints.code, endpoints.stderr).toBe(0);
    expect(endpoints.stdout).toBe(`192.0.2.30:${port}`);
  });

  it("lists a Local, available APIService per served version, and none for a version turned off", async () => {
    const res = await kubectl(["get", "apiservices"]);
    expect(res.code, res.stderr).toBe(0);
    const rows = res.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(/\s{2,}/));
    expect(rows[0]?.slice(0, 3)).toEqual(["NAME", "SERVICE", "AVAILABLE"]);
    expect(rows).toContainEqual(expect.arrayContaining(["v1.", "Local", "True"]));
    expect(rows).toContainEqual(expect.arrayContaining(["v1.apps", "Local", "True"]));
    expect(rows.map((r) => r[0])).not.toContain("v1.batch");
  });

  it("has the two system PriorityClasses", async () => {
    const res = await kubectl(["get", "priorityclasses", "-o", "custom-columns=NAME:.metadata.name,VALUE:.value", "--no-headers"]);
    expect(res.code, res.stderr).toBe(0);
    expect(
      res.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(/\s+/)),
    ).toEqual([
      ["system-cluster-critical", "2000000000"],
      ["system-node-critical", "2000001000"],
    ]);
    const deleted = await kubectl(["delete", "priorityclass", "system-node-critical"]);
    expect(deleted.code).not.toBe(0);
    expect(deleted.stderr).toContain(
      'Error from server (Forbidden): priorityclasses.scheduling.orch.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted',
    );
  });
});
