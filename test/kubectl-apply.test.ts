/**
 * `kubectl apply --server-side` (the kubectl of this machine) against a running orch-apiserver:
 * creation, field ownership per manager, conflicts, `--force-conflicts`, and removal of fields a
 * manager stops applying.
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

const manifest = (name: string, text: string) => kubectl.file(name, text);

const config = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"`)
    .join("\n")}\n`;

describe("kubectl apply --server-side against orch-apiserver", () => {
  it("creates the object and records the manager's fields", async () => {
    const file = await manifest("a.yaml", config({ mode: "fast", level: "1" }));
    const res = await kubectl(["apply", "--server-side", "--field-manager", "alice", "-f", file]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("configmap/applied serverside-applied");
    const got = await kubectl(["get", "cm", "applied", "-o", "json", "--show-managed-fields"]);
    const object = JSON.parse(got.stdout);
    expect(object.data).toEqual({ mode: "fast", level: "1" });
    expect(object.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: "alice", operation: "Apply", fieldsV1: { "f:data": { "f:level": {}, "f:mode": {} } } }),
    ]);
  });

  it("refuses another manager's change with the conflict message, and takes it with --force-conflicts", async () => {
    const file = await manifest("b.yaml", config({ mode: "safe" }));
    const refused = await kubectl(["apply", "--server-side", "--field-manager", "bob", "-f", file]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("Apply failed with 1 conflict");
    expect(refused.stderr).toContain('conflict with "alice"');
    expect(refused.stderr).toContain(".data.mode");
    expect(JSON.parse((await kubectl(["get", "cm", "applied", "-o", "json"])).stdout).data.mode).toBe("fast");

    const forced = await kubectl(["apply", "--server-side", "--field-manager", "bob", "--force-conflicts", "-f", file]);
    expect(forced.code, forced.stderr).toBe(0);
    const object = JSON.parse((await kubectl(["get", "cm", "applied", "-o", "json", "--show-managed-fields"])).stdout);
    expect(object.data).toEqual({ mode: "safe", level: "1" });
    const owners = Object.fromEntries(object.metadata.managedFields.map((e: { manager: string; fieldsV1: object }) => [e.manager, e.fieldsV1]));
    expect(owners.bob).toEqual({ "f:data": { "f:mode": {} } });
    expect(owners.alice).toEqual({ "f:data": { "f:level": {} } });
  });

  it("removes a field its only manager stops applying", async () => {
    const file = await manifest("c.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\n");
    const res = await kubectl(["apply", "--server-side", "--field-manager", "alice", "-f", file]);
    expect(res.code, res.stderr).toBe(0);
    const object = JSON.parse((await kubectl(["get", "cm", "applied", "-o", "json", "--show-managed-fields"])).stdout);
    expect(object.data).toEqual({ mode: "safe" });
    expect(object.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(["bob"]);
  });
});
