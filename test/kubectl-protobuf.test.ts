/**
 * `kubectl create configmap|secret generic|namespace` send their body as
 * `application/vnd.kubernetes.protobuf` and ask for protobuf first in `Accept`: the kubectl of
 * this machine against `orch-apiserver`, proving the server reads those bodies (and answers in
 * protobuf that kubectl decodes), and that the objects read back right in JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

/** The fields of the objects read back that the tests look at. */
interface ReadBack {
  apiVersion: string;
  kind: string;
  type?: string;
  metadata: { name: string; namespace?: string; uid?: string; creationTimestamp?: string };
  data?: Record<string, string>;
  status?: { phase?: string };
}

describe("kubectl create with protobuf bodies against orch-apiserver", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;

  const getJSON = async (args: readonly string[]) => {
    const res = await kubectl([...args, "-o", "json"]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    return JSON.parse(res.stdout) as ReadBack;
  };

  beforeAll(async () => {
    server = await startAPIServer();
    kubectl = await kubectlFor(server);
  });
  afterAll(async () => {
    await kubectl?.close();
    expect(await server?.stop()).toBe(0);
  });

  it("create configmap --from-literal: the protobuf body is read and the ConfigMap reads back", async () => {
    const res = await kubectl(["create", "configmap", "x", "--from-literal=a=b", "--from-literal=empty=", "-v=8"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("configmap/x created\n");
    // kubectl really sent protobuf, and got protobuf back
    expect(res.stderr).toMatch(/"Request Body" body=<\s*00000000\s+6b 38 73 00/);
    expect(res.stderr).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf/);
    expect(res.stderr).toMatch(/"Response Body" body=<\s*00000000\s+6b 38 73 00/);
    const cm = await getJSON(["get", "configmap", "x"]);
    expect(cm.apiVersion).toBe("v1");
    expect(cm.kind).toBe("ConfigMap");
    expect(cm.metadata).toMatchObject({ name: "x", namespace: "default" });
    expect(cm.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(cm.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(cm.data).toEqual({ a: "b", empty: "" });
  });

  it("create secret generic --from-literal: bytes arrive as base64 data", async () => {
    const res = await kubectl(["create", "secret", "generic", "s", "--from-literal=p=q", "--from-literal=u=ünï"]);
    expect(res.stderr).toBe("");
    expect(res.stdout).toBe("secret/s created\n");
    const secret = await getJSON(["get", "secret", "s"]);
    expect(secret.type).toBe("Opaque");
    expect(secret.data).toEqual({ p: Buffer.from("q").toString("base64"), u: Buffer.from("ünï").toString("base64") });
    expect(secret.metadata).toMatchObject({ name: "s", namespace: "default" });
  });

  it("create namespace: the Namespace is created, Active, and reads back", async () => {
    const res = await kubectl(["create", "namespace", "n"]);
    expect(res.stderr).toBe("");
    expect(res.stdout).toBe("namespace/n created\n");
    const ns = await getJSON(["get", "namespace", "n"]);
    expect(ns.metadata.name).toBe("n");
    expect(ns.status?.phase).toBe("Active");
    const inside = await kubectl(["create", "configmap", "inside", "-n", "n", "--from-literal=k=v"]);
    expect(inside.stdout).toBe("configmap/inside created\n");
    expect((await getJSON(["get", "configmap", "inside", "-n", "n"])).data).toEqual({ k: "v" });
  });

  it("a second create is a 409 AlreadyExists that kubectl prints (errors stay JSON)", async () => {
    const res = await kubectl(["create", "configmap", "x", "--from-literal=a=b"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/configmaps "x" already exists/);
  });

  it("delete: kubectl's delete is answered and the object is gone", async () => {
    const res = await kubectl(["delete", "configmap", "x"]);
    expect(res.stdout).toBe('configmap "x" deleted\n');
    const gone = await kubectl(["get", "configmap", "x"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/NotFound|not found/);
  });

  it("create service|quota: their protobuf bodies are read, with the Go zero values the JSON leaves out", async () => {
    const service = await kubectl(["create", "service", "clusterip", "web", "--tcp=80:8080", "-v=8"]);
    expect(service.code, service.stderr).toBe(0);
    expect(service.stdout).toBe("service/web created\n");
    expect(service.stderr).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf/);
    const spec = (await getJSON(["get", "service", "web"])) as unknown as { spec: Record<string, unknown> };
    expect(spec.spec).toMatchObject({ type: "ClusterIP", selector: { app: "web" }, ports: [{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080 }] });
    expect(spec.spec).not.toHaveProperty("healthCheckNodePort");
    expect(spec.spec).not.toHaveProperty("publishNotReadyAddresses");
    const quota = await kubectl(["create", "quota", "small", "--hard=pods=10,requests.cpu=2"]);
    expect(quota.stdout).toBe("resourcequota/small created\n");
    expect(((await getJSON(["get", "quota", "small"])) as unknown as { spec: unknown }).spec).toEqual({ hard: { pods: "10", "requests.cpu": "2" } });
  });
});
