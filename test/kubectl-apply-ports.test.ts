/**
 * `kubectl apply --server-side` of the reference's own example manifests, whose ports leave
 * `protocol` out: the key field of the Service's and the containers' port lists takes its default
 * (`TCP`) on the first apply and on a changed second one; an unchanged apply writes nothing.
 * Then `kubectl patch` resets `managedFields` with one empty entry (the tests share the Service,
 * in order).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";

let server: RunningAPIServer;
let kubectl: Kubectl;

beforeAll(async () => {
  server = await startAPIServer();
  kubectl = await kubectlFor(server);
});

afterAll(async () => {
  await kubectl?.close();
  await server?.stop();
});

// The guestbook's frontend Service, as the reference's documentation gives it.
const service = (ports: string) => `apiVersion: v1
kind: Service
metadata:
  name: frontend
  namespace: default
  labels:
    app: guestbook
    tier: frontend
spec:
  ports:
${ports}  selector:
    app: guestbook
    tier: frontend
`;

// The reference documentation's nginx Deployment.
const deployment = (image: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
  namespace: default
  labels:
    app: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: ${image}
        ports:
        - containerPort: 80
`;

const pod = (image: string) => `apiVersion: v1
kind: Pod
metadata:
  name: nginx
  namespace: default
spec:
  containers:
  - name: nginx
    image: ${image}
    ports:
    - containerPort: 80
`;

async function applied(file: string): Promise<void> {
  const res = await kubectl(["apply", "--server-side", "--field-manager", "example", "-f", file]);
  expect(res.code, res.stderr).toBe(0);
}

async function getJSON(...args: string[]): Promise<{ metadata: { resourceVersion: string }; spec: Record<string, unknown> }> {
  const res = await kubectl(["get", ...args, "-o", "json"]);
  expect(res.code, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

describe("kubectl apply --server-side of ports without protocol", () => {
  it("applies the example Service, defaults protocol to TCP, and applies a second port", async () => {
    await applied(await kubectl.file("svc.yaml", service("  - port: 80\n")));
    const first = await getJSON("service", "frontend");
    expect(first.spec.ports).toEqual([expect.objectContaining({ port: 80, protocol: "TCP", targetPort: 80 })]);
    await applied(await kubectl.file("svc.yaml", service("  - port: 80\n")));
    expect((await getJSON("service", "frontend")).metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    await applied(await kubectl.file("svc2.yaml", service("  - port: 80\n    name: http\n  - port: 443\n    name: https\n")));
    const second = await getJSON("service", "frontend");
    expect(second.spec.ports).toEqual([
      expect.objectContaining({ port: 80, protocol: "TCP", name: "http" }),
      expect.objectContaining({ port: 443, protocol: "TCP", name: "https" }),
    ]);
  });

  it("applies the example Deployment, then a changed image", async () => {
    await applied(await kubectl.file("deploy.yaml", deployment("nginx:1.14.2")));
    const first = await getJSON("deployment", "nginx-deployment");
    const containers = (d: typeof first) => (d.spec.template as { spec: { containers: { image: string; ports: unknown[] }[] } }).spec.containers;
    expect(containers(first)[0]?.ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
    await applied(await kubectl.file("deploy.yaml", deployment("nginx:1.16.1")));
    const second = await getJSON("deployment", "nginx-deployment");
    expect(containers(second)[0]?.image).toBe("nginx:1.16.1");
    expect(containers(second)[0]?.ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
  });

  it("applies a Pod with container ports, then a changed image", async () => {
    await applied(await kubectl.file("pod.yaml", pod("nginx:1.14.2")));
    await applied(await kubectl.file("pod.yaml", pod("nginx:1.16.1")));
    const got = await getJSON("pod", "nginx");
    expect((got.spec.containers as { image: string; ports: unknown[] }[])[0]).toMatchObject({
      image: "nginx:1.16.1",
      ports: [{ containerPort: 80, protocol: "TCP" }],
    });
  });

  it("applies the example Service client-side (strategic merge patch), then a second port", async () => {
    const named = (ports: string) => service(ports).replace("name: frontend", "name: frontend-csa");
    const first = await kubectl(["apply", "-f", await kubectl.file("csa.yaml", named("  - port: 80\n"))]);
    expect(first.code, first.stderr).toBe(0);
    const second = await kubectl(["apply", "-f", await kubectl.file("csa.yaml", named("  - port: 80\n    name: http\n  - port: 443\n    name: https\n"))]);
    expect(second.code, second.stderr).toBe(0);
    const got = await getJSON("service", "frontend-csa");
    expect(got.spec.ports).toEqual([
      expect.objectContaining({ port: 80, protocol: "TCP", name: "http" }),
      expect.objectContaining({ port: 443, protocol: "TCP", name: "https" }),
    ]);
  });

  it("clears managedFields with kubectl patch of one empty entry, and keeps them for an empty list", async () => {
    const kept = await kubectl(["patch", "service", "frontend", "--type=merge", "-p", '{"metadata":{"managedFields":[]}}']);
    expect(kept.code, kept.stderr).toBe(0);
    const before = JSON.parse((await kubectl(["get", "service", "frontend", "-o", "json", "--show-managed-fields"])).stdout);
    expect(before.metadata.managedFields.length).toBeGreaterThan(0);
    const cleared = await kubectl(["patch", "service", "frontend", "--type=json", "-p", '[{"op":"replace","path":"/metadata/managedFields","value":[{}]}]']);
    expect(cleared.code, cleared.stderr).toBe(0);
    const after = JSON.parse((await kubectl(["get", "service", "frontend", "-o", "json", "--show-managed-fields"])).stdout);
    expect(after.metadata.managedFields).toBeUndefined();
    expect(after.spec.ports).toEqual(before.spec.ports);
  });
});
