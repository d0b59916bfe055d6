/**
 * `kubectl patch --type strategic|merge|json` (the kubectl of this machine) against a running
 * `orch-apiserver`, asserted on what kubectl printed and on what the server then serves.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

let server: RunningAPIServer;
let kubectl: Kubectl;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test JSON is read loosely
async function getJSON(kind: string, name: string): Promise<any> {
  const got = await kubectl(["get", kind, name, "-o", "json"]);
  expect(got.code, got.stderr).toBe(0);
  return JSON.parse(got.stdout);
}

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: patched
  labels:
    app: demo
spec:
  containers:
  - name: app
    image: nginx:1.25
    env:
    - name: MODE
      value: prod
  - name: sidecar
    image: busybox:1.36
    args: ["sleep", "3600"]
`;

const configMapManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  color: blue
  size: large
`;

describe("kubectl patch against orch-apiserver", () => {
  beforeAll(async () => {
    server = await startAPIServer();
    kubectl = await kubectlFor(server);
    await kubectl.file("pod.yaml", podManifest);
    await kubectl.file("cm.yaml", configMapManifest);
    for (const file of ["pod.yaml", "cm.yaml"]) {
      const created = await kubectl(["create", "-f", join(kubectl.dir, file)]);
      expect(created.code, created.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    await kubectl?.close();
    expect(await server?.stop()).toBe(0);
  });

  it("--type strategic: changes a container's image by name, keeping the other container and the env", async () => {
    const res = await kubectl(["patch", "pod", "patched", "--type", "strategic", "-p", '{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe("pod/patched patched");
    const pod = await getJSON("pod", "patched");
    expect(pod.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual(["app=nginx:1.27", "sidecar=busybox:1.36"]);
    expect(pod.spec.containers[0].env).toEqual([{ name: "MODE", value: "prod" }]);
  });

  it("--type strategic: merges labels and refuses an unknown $patch directive with the reference's message", async () => {
    const labelled = await kubectl(["patch", "pod", "patched", "--type", "strategic", "-p", '{"metadata":{"labels":{"tier":"front"}}}']);
    expect(labelled.code, labelled.stderr).toBe(0);
    expect((await getJSON("pod", "patched")).metadata.labels).toEqual({ app: "demo", tier: "front" });
    const bad = await kubectl(["patch", "pod", "patched", "--type", "strategic", "-p", '{"spec":{"containers":[{"name":"app","$patch":"frobnicate"}]}}']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("unknown patch type: frobnicate in map: map[$patch:frobnicate name:app]");
  });

  it("--type merge: RFC 7386 on a ConfigMap, null deleting a key", async () => {
    const res = await kubectl(["patch", "cm", "settings", "--type", "merge", "-p", '{"data":{"color":"green","size":null}}']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe("configmap/settings patched");
    expect((await getJSON("cm", "settings")).data).toEqual({ color: "green" });
  });

  it("--type json: RFC 6902 operations on a ConfigMap, and a failed test operation is refused", async () => {
    const res = await kubectl(["patch", "cm", "settings", "--type", "json", "-p", '[{"op":"add","path":"/data/shape","value":"round"}]']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe("configmap/settings patched");
    expect((await getJSON("cm", "settings")).data).toMatchObject({ shape: "round" });
    const failed = await kubectl(["patch", "cm", "settings", "--type", "json", "-p", '[{"op":"test","path":"/data/shape","value":"square"}]']);
    expect(failed.code).not.toBe(0);
    expect((await getJSON("cm", "settings")).data.shape).toBe("round");
  });
});
