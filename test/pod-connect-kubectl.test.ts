/**
 * `kubectl logs`, `kubectl exec` and `kubectl port-forward` against a running `orch-apiserver`,
 * which has no node agent to connect them to: each fails at once with the reference's message
 * (a pod not yet scheduled has no host; a scheduled pod's node agent cannot be reached; a pod on
 * a Node that does not exist names that Node), never a hang.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

const manifests = `apiVersion: v1
kind: Node
metadata:
  name: worker-1
status:
  addresses:
  - type: InternalIP
    address: 192.0.2.21
---
apiVersion: v1
kind: Pod
metadata:
  name: pending
spec:
  containers:
  - name: app
    image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: scheduled
spec:
  nodeName: worker-1
  containers:
  - name: app
    image: busybox
---
apiVersion: v1
kind: Pod
metadata:
  name: orphan
spec:
  nodeName: gone
  containers:
  - name: app
    image: busybox
`;

describe("kubectl logs, exec and port-forward against orch-apiserver", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startAPIServer();
    kubectl = await kubectlFor(server);
    const file = await kubectl.file("pods.yaml", manifests);
    // The ServiceAccount admission plugin waits for the default ServiceAccount, made by a controller.
    let applied = await kubectl(["create", "-f", file]);
    for (let i = 0; i < 20 && applied.code !== 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      applied = await kubectl(["apply", "-f", file]);
    }
    expect(applied.code, applied.stderr).toBe(0);
    for (const pod of ["scheduled", "orphan"]) {
      const patched = await kubectl(["patch", "pod", pod, "--subresource=status", "--type=merge", "-p", '{"status":{"phase":"Running"}}']);
      expect(patched.code, patched.stderr).toBe(0);
    }
  }, 60_000);
  afterAll(async () => {
    await kubectl?.close();
    await server?.stop();
  });

  it("prints an empty log for a pod not yet scheduled, as the reference", async () => {
    const res = await kubectl(["logs", "pending"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe("");
  });

  it("refuses exec into a pod without a host", async () => {
    const res = await kubectl(["exec", "pending", "--", "ls"]);
    expect(res.code).not.toBe(0);
    expect(res.code).not.toBe(124);
    expect(res.stderr).toContain("pod pending does not have a host assigned");
    // kubectl itself refuses to forward to a pod that is not running.
    const forward = await kubectl(["port-forward", "pod/pending", "0:80"]);
    expect(forward.code).toBe(1);
    expect(forward.stderr).toContain("unable to forward port because pod is not running. Current status=Pending");
  });

  it("cannot reach the node agent of a scheduled pod: logs, exec and port-forward fail at once", async () => {
    const logs = await kubectl(["logs", "scheduled"]);
    expect(logs.code).toBe(1);
    expect(logs.stderr).toContain('Get "https://192.0.2.21:10250/containerLogs/default/scheduled/app"');
    const exec = await kubectl(["exec", "scheduled", "--", "ls"]);
    expect(exec.code).not.toBe(0);
    expect(exec.code).not.toBe(124);
    expect(exec.stderr).toContain("error dialing backend: dial tcp 192.0.2.21:10250");
    const forward = await kubectl(["port-forward", "pod/scheduled", "0:80"]);
    expect(forward.code).not.toBe(0);
    expect(forward.code).not.toBe(124);
    expect(forward.stderr).toContain("error dialing backend: dial tcp 192.0.2.21:10250");
  });

  it("names the missing Node of a pod scheduled on one that does not exist", async () => {
    const res = await kubectl(["logs", "orphan"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('nodes "gone" not found');
  });

  it("lists the sub-resources in discovery", async () => {
    const res = await kubectl(["get", "--raw", "/api/v1"]);
    expect(res.code, res.stderr).toBe(0);
    const names = (JSON.parse(res.stdout) as { resources: { name: string }[] }).resources.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["pods/log", "pods/exec", "pods/attach", "pods/portforward", "pods/proxy"]));
  });
});
