/**
 * The `endpoint` and `endpointslice` controllers as users run them: `orch-apiserver --domain
 * k8s.io` with its in-process controllers, a Service and Pods whose readiness is reported
 * through the Pods' `status` sub-resource, read back over HTTPS and with kubectl; and a core
 * Event read through `events.k8s.io/v1`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RawResponse, type RunningAPIServer } from "./support/apiserver.js";
import { until } from "./support/authorization.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";

const ns = "/api/v1/namespaces/default";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type JSONValue = any;

describe("orch-apiserver --domain k8s.io keeps Endpoints and EndpointSlices of its Services", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;
  const send = (method: string, path: string, body?: unknown): Promise<RawResponse> =>
    adminRequest(server, { method, path, headers: { "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const json = async (path: string): Promise<JSONValue> => {
    const res = await send("GET", path);
    return res.status === 200 ? res.json : undefined;
  };

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
    kubectl = await kubectlFor(server);
  }, 30_000);
  afterAll(async () => {
    await kubectl?.close();
    await server?.stop();
  });

  it("lists ready Pods under addresses and the others under notReadyAddresses, and in a slice with their conditions", async () => {
    // Pods need the namespace's default ServiceAccount, which the serviceaccount controller creates.
    await until(
      async () => (await send("GET", `${ns}/serviceaccounts/default`)).status === 200,
      () => "the default ServiceAccount",
      20_000,
    );
    const service = await send("POST", `${ns}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web" },
      spec: { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
    });
    expect(service.status, JSON.stringify(service.json)).toBe(201);
    for (const [name, ip, ready] of [
      ["web-1", "10.244.0.11", true],
      ["web-2", "10.244.0.12", false],
    ] as const) {
      const created = await send("POST", `${ns}/pods`, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name, labels: { app: "web" } },
        spec: { nodeName: "node-1", containers: [{ name: "c", image: "nginx", ports: [{ name: "http", containerPort: 8080 }] }] },
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const pod = created.json as JSONValue;
      const status = {
        phase: "Running",
        podIP: ip,
        podIPs: [{ ip }],
        conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: "2026-11-24T10:00:00Z" }],
      };
      const written = await send("PUT", `${ns}/pods/${name}/status`, { ...pod, status });
      expect(written.status, JSON.stringify(written.json)).toBe(200);
    }

    await until(
      async () => (await json(`${ns}/endpoints/web`))?.subsets?.[0]?.notReadyAddresses?.length === 1,
      () => "the Endpoints of web",
      20_000,
    );
    const endpoints = await json(`${ns}/endpoints/web`);
    expect(endpoints.subsets).toEqual([
      {
        addresses: [{ ip: "10.244.0.11", nodeName: "node-1", targetRef: expect.objectContaining({ kind: "Pod", name: "web-1", namespace: "default" }) }],
        notReadyAddresses: [{ ip: "10.244.0.12", nodeName: "node-1", targetRef: expect.objectContaining({ kind: "Pod", name: "web-2" }) }],
        ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      },
    ]);
    expect(endpoints.metadata.annotations?.["endpoints.kubernetes.io/last-change-trigger-time"]).toMatch(/^2026-/);

    const slicesPath = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dweb";
    await until(
      async () => (await json(slicesPath))?.items?.[0]?.endpoints?.length === 2,
      () => "the EndpointSlice of web",
      20_000,
    );
    const [slice] = (await json(slicesPath)).items as JSONValue[];
    expect(slice.metadata.labels).toMatchObject({ "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io" });
    expect(slice.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "Service", name: "web", controller: true })]);
    expect(slice.endpoints.map((e: JSONValue) => [e.addresses[0], e.conditions.ready])).toEqual([
      ["10.244.0.11", true],
      ["10.244.0.12", false],
    ]);

    const got = await kubectl(["get", "endpointslices", "-l", "kubernetes.io/service-name=web", "--no-headers"], { timeoutSeconds: 30 });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^web-\S+\s+IPv4\s+8080\s+10\.244\.0\.11,10\.244\.0\.12\s/);
    const eps = await kubectl(["get", "endpoints", "web", "--no-headers"], { timeoutSeconds: 30 });
    expect(eps.code, eps.stderr).toBe(0);
    expect(eps.stdout).toMatch(/^web\s+10\.244\.0\.11:8080\s/);
  });

  it("serves a core Event through events.k8s.io/v1 to kubectl", async () => {
    const created = await send("POST", `${ns}/events`, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "web-1.started" },
      involvedObject: { kind: "Pod", name: "web-1", namespace: "default" },
      reason: "Started",
      message: "Started container c",
      type: "Normal",
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const got = await kubectl(["get", "events.v1.events.k8s.io", "web-1.started", "-o", "json"], { timeoutSeconds: 30 });
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ apiVersion: "events.k8s.io/v1", note: "Started container c", regarding: { kind: "Pod", name: "web-1" } });
  });
});
