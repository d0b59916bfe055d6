/**
 * The `kubectl` of this machine (v1.32) against a running `orch-apiserver`, with the kubeconfig
 * the server wrote. Every call is bounded (`timeout`), gets its own discovery and OpenAPI cache
 * dir, and is asserted on what kubectl printed.
 */
import { parse as parseYAML } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

/** The rows of kubectl's column output: each line split on runs of two or more spaces. */
function table(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/));
}

const age = /^\d+(s|m|h|d)/;

function configMapManifest(name: string, extra: Record<string, unknown> = {}): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  labels:
    app: demo
data:
  color: blue
${Object.entries(extra)
  .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
  .join("\n")}
`;
}

describe("kubectl against orch-apiserver (default domain, core group)", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startAPIServer();
    kubectl = await kubectlFor(server);
  });
  afterAll(async () => {
    await kubectl?.close();
    expect(await server?.stop()).toBe(0);
  });

  it("version: shows the server version kubectl negotiated with", async () => {
    const plain = await kubectl(["version"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^Server Version: v1\.32\.0-orch$/m);
    const json = await kubectl(["version", "-o", "json"]);
    expect(JSON.parse(json.stdout).serverVersion).toMatchObject({ major: "1", minor: "32", gitVersion: "v1.32.0-orch" });
  });

  it("api-versions and api-resources: discovery of the core group and the orch groups", async () => {
    const versions = await kubectl(["api-versions"]);
    expect(versions.code).toBe(0);
    const groupVersions = versions.stdout.trim().split("\n");
    expect(groupVersions).toEqual(expect.arrayContaining(["coordination.orch.io/v1", "v1"]));
    expect(groupVersions).toEqual([...groupVersions].sort());

    const resources = await kubectl(["api-resources"]);
    expect(resources.code).toBe(0);
    const rows = table(resources.stdout);
    expect(rows[0]).toEqual(["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    expect(rows).toContainEqual(["configmaps", "cm", "v1", "true", "ConfigMap"]);
    expect(rows).toContainEqual(["namespaces", "ns", "v1", "false", "Namespace"]);
    expect(rows).toContainEqual(["events", "ev", "v1", "true", "Event"]);
    // No short name: the column is blank, so the row has one cell less.
    expect(rows).toContainEqual(["secrets", "v1", "true", "Secret"]);
    expect(rows).toContainEqual(["leases", "coordination.orch.io/v1", "true", "Lease"]);
  });

  it("get --raw /readyz?verbose: every check, then the verdict", async () => {
    const res = await kubectl(["get", "--raw", "/readyz?verbose"]);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split("\n");
    expect(lines).toContain("[+]ping ok");
    expect(lines).toContain("[+]etcd ok");
    expect(lines).toContain("[+]poststarthook/start-namespace-lifecycle ok");
    expect(lines.every((l) => l.startsWith("[+]") || l === "readyz check passed")).toBe(true);
    expect(lines.at(-1)).toBe("readyz check passed");
  });

  it("get namespaces: the built-in namespaces in the server's Table, NAME STATUS AGE", async () => {
    // kubectl asks for a meta.k8s.io Table; a server of domain orch.io answers one too (its own
    // groups stay orch.io), so kubectl prints the server's columns.
    const res = await kubectl(["get", "namespaces"]);
    expect(res.code).toBe(0);
    const rows = table(res.stdout);
    expect(rows[0]).toEqual(["NAME", "STATUS", "AGE"]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["default", "orch-public", "orch-system"]);
    for (const row of rows.slice(1)) {
      expect(row[1]).toBe("Active");
      expect(row[2]).toMatch(age);
    }
  });

  it("create -f: downloads OpenAPI v3, then creates with fieldValidation=Strict; get -o json and -o yaml show it", async () => {
    const manifest = await kubectl.file("settings.yaml", configMapManifest("settings"));
    const created = await kubectl(["create", "-f", manifest, "-v=6"]);
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toBe("configmap/settings created");
    const requests = created.stderr.split("\n").filter((l) => l.includes("round_trippers"));
    const index = requests.findIndex((l) => / GET https:\/\/\S+\/openapi\/v3\?\S* 200 OK/.test(l));
    const post = requests.findIndex((l) => / POST https:\/\/\S+\/api\/v1\/namespaces\/default\/configmaps\?\S*fieldValidation=Strict\S* 201 Created/.test(l));
    expect(index).toBeGreaterThanOrEqual(0);
    expect(requests.some((l) => / GET https:\/\/\S+\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+\S* 200 OK/.test(l))).toBe(true);
    expect(post).toBeGreaterThan(index);

    const json = await kubectl(["get", "cm", "settings", "-o", "json"]);
    expect(json.code).toBe(0);
    const object = JSON.parse(json.stdout);
    expect(object).toMatchObject({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "default", labels: { app: "demo" } },
      data: { color: "blue" },
    });
    expect(object.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const yaml = await kubectl(["get", "configmap", "settings", "-o", "yaml"]);
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/^apiVersion: v1\n/);
    expect(parseYAML(yaml.stdout)).toEqual(object);
  });

  it("create configmap --from-literal (rendered by kubectl, sent through create -f -)", async () => {
    // `kubectl create configmap` alone sends protobuf, which this server does not read yet; the
    // same generator's output through `create -f -` takes the JSON path.
    const rendered = await kubectl([
      "create",
      "configmap",
      "literal",
      "--from-literal=greeting=hello",
      "--from-literal=count=3",
      "--dry-run=client",
      "-o",
      "yaml",
    ]);
    expect(rendered.code).toBe(0);
    const created = await kubectl(["create", "-f", "-"], { input: rendered.stdout });
    expect(created.stdout.trim()).toBe("configmap/literal created");
    const data = await kubectl(["get", "cm", "literal", "-o", "jsonpath={.data}"]);
    expect(JSON.parse(data.stdout)).toEqual({ count: "3", greeting: "hello" });
  });

  it("label and annotate (merge patches), then replace -f, then delete", async () => {
    const manifest = await kubectl.file("patched.yaml", configMapManifest("patched"));
    expect((await kubectl(["create", "-f", manifest])).code).toBe(0);

    const labeled = await kubectl(["label", "cm", "patched", "env=test", "-v=6"]);
    expect(labeled.stdout.trim()).toBe("configmap/patched labeled");
    expect(labeled.stderr).toMatch(/ PATCH https:\/\/\S+\/api\/v1\/namespaces\/default\/configmaps\/patched\?fieldManager=kubectl-label 200 OK/);
    const annotated = await kubectl(["annotate", "configmap", "patched", "owner=team-a"]);
    expect(annotated.stdout.trim()).toBe("configmap/patched annotated");
    const overwrite = await kubectl(["label", "cm", "patched", "env=prod"]);
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toContain("'env' already has a value (test), and --overwrite is false");
    expect((await kubectl(["label", "cm", "patched", "env=prod", "--overwrite"])).code).toBe(0);
    expect((await kubectl(["label", "cm", "patched", "app-"])).stdout.trim()).toBe("configmap/patched unlabeled");

    const before = JSON.parse((await kubectl(["get", "cm", "patched", "-o", "json"])).stdout);
    expect(before.metadata.labels).toEqual({ env: "prod" });
    expect(before.metadata.annotations).toEqual({ owner: "team-a" });
    const listed = await kubectl(["get", "cm", "-l", "env=prod", "-o", "name"]);
    expect(listed.stdout.trim()).toBe("configmap/patched");

    const edited = { ...before, data: { color: "green", size: "L" } };
    const replaced = await kubectl(["replace", "-f", await kubectl.file("patched.json", JSON.stringify(edited))]);
    expect(replaced.code).toBe(0);
    expect(replaced.stdout.trim()).toBe("configmap/patched replaced");
    const after = JSON.parse((await kubectl(["get", "cm", "patched", "-o", "json"])).stdout);
    expect(after.data).toEqual({ color: "green", size: "L" });
    expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
    // Replacing again from the old resourceVersion is a conflict.
    const stale = await kubectl(["replace", "-f", await kubectl.file("stale.json", JSON.stringify({ ...before, data: { color: "red" } }))]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      'Operation cannot be fulfilled on configmaps "patched": the object has been modified; please apply your changes to the latest version and try again',
    );

    const deleted = await kubectl(["delete", "cm", "patched"]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout.trim()).toBe('configmap "patched" deleted');
    const gone = await kubectl(["get", "cm", "patched"]);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toBe('Error from server (NotFound): configmaps "patched" not found');
  });

  it("get -w --output-watch-events sees a ConfigMap added, modified and deleted, and ends at --request-timeout", async () => {
    const namespace = await kubectl(["create", "namespace", "watched", "--dry-run=client", "-o", "yaml"]);
    expect((await kubectl(["create", "-f", "-"], { input: namespace.stdout })).stdout.trim()).toBe("namespace/watched created");
    expect((await kubectl(["create", "-n", "watched", "-f", "-"], { input: configMapManifest("w0") })).code).toBe(0);
    // kubectl lists first (printing w0 as ADDED), then watches from the list's resourceVersion.
    let listed!: () => void;
    const initialList = new Promise<void>((resolve) => (listed = resolve));
    const watching = kubectl(["get", "cm", "-n", "watched", "-w", "--output-watch-events", "--request-timeout=5s"], {
      timeoutSeconds: 15,
      onStdout: (out) => {
        if (/^ADDED\s+w0\s/m.test(out)) listed();
      },
    });
    await Promise.race([initialList, watching.then((r) => Promise.reject(new Error(`kubectl get -w ended early: ${r.stderr}`)))]);
    expect((await kubectl(["create", "-n", "watched", "-f", "-"], { input: configMapManifest("w") })).code).toBe(0);
    expect((await kubectl(["label", "-n", "watched", "cm", "w", "seen=yes"])).code).toBe(0);
    expect((await kubectl(["delete", "-n", "watched", "cm", "w"])).code).toBe(0);
    const res = await watching;
    expect(res.code).toBe(0);
    const rows = table(res.stdout);
    // The server's Table columns (ConfigMap: DATA), as watch events of Table rows.
    expect(rows[0]).toEqual(["EVENT", "NAME", "DATA", "AGE"]);
    expect(rows.slice(1).map((r) => [r[0], r[1]])).toEqual([
      ["ADDED", "w0"],
      ["ADDED", "w"],
      ["MODIFIED", "w"],
      ["DELETED", "w"],
    ]);
  });

  it("explain: finds the kinds' schemas in OpenAPI v3 by x-kubernetes-group-version-kind on the default domain", async () => {
    const configMap = await kubectl(["explain", "configmap"]);
    expect(configMap.code, configMap.stderr).toBe(0);
    expect(configMap.stdout).toMatch(/^KIND:\s+ConfigMap\nVERSION:\s+v1\n/);
    expect(configMap.stdout).toContain("ConfigMap holds configuration data for pods to consume.");
    expect(configMap.stdout).toMatch(/^ {2}data\t<map\[string\]string>$/m);
    const field = await kubectl(["explain", "configmap.metadata.ownerReferences"]);
    expect(field.code, field.stderr).toBe(0);
    expect(field.stdout).toMatch(/^FIELD: ownerReferences <\[\]OwnerReference>$/m);
    const lease = await kubectl(["explain", "leases.spec"]);
    expect(lease.code, lease.stderr).toBe(0);
    expect(lease.stdout).toMatch(/^GROUP:\s+coordination\.orch\.io\nKIND:\s+Lease\n/);
  });

  it("apply (client-side): a port left out of the manifest is deleted, by the merge key the schema names", async () => {
    // Once kubectl finds a kind's schema by its GVK it computes the strategic merge patch from the
    // schema's x-kubernetes-patch-* markers; without them it would send the list whole, and the
    // server, merging by port, would keep the port.
    const service = (ports: string[]) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: applied\nspec:\n  selector:\n    app: web\n  ports:\n${ports.map((p) => `  - ${p}\n`).join("")}`;
    const both = await kubectl.file("svc-both.yaml", service(["{name: http, port: 80}", "{name: https, port: 443}"]));
    const one = await kubectl.file("svc-one.yaml", service(["{name: http, port: 80}"]));
    expect((await kubectl(["apply", "-f", both])).stdout.trim()).toBe("service/applied created");
    const applied = await kubectl(["apply", "-f", one]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.trim()).toBe("service/applied configured");
    expect((await kubectl(["get", "svc", "applied", "-o", "jsonpath={.spec.ports[*].name}"])).stdout).toBe("http");
  });

  it("bad input: an invalid name gets the 422 message, a missing namespace NotFound", async () => {
    const invalid = await kubectl(["create", "-f", "-"], { input: configMapManifest("Bad_Name") });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr.trim()).toBe(
      `The ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    );
    const missing = await kubectl(["create", "-n", "no-such-namespace", "-f", "-"], { input: configMapManifest("lost") });
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): error when creating "STDIN": namespaces "no-such-namespace" not found');
    const strict = await kubectl(["create", "-f", "-"], { input: configMapManifest("strict").replace(/^data:/m, "spec: {}\ndata:") });
    expect(strict.code).toBe(1);
    expect(strict.stderr.trim()).toBe(
      'Error from server (BadRequest): error when creating "STDIN": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec"',
    );
    // Nothing of those was stored, and the server still serves.
    const list = await kubectl(["get", "cm", "-A", "-o", "name"]);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(/Bad_Name|lost|strict/);
  });
});

describe("kubectl against orch-apiserver --domain k8s.io (every group, Table output)", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
    kubectl = await kubectlFor(server);
  });
  afterAll(async () => {
    await kubectl?.close();
    expect(await server?.stop()).toBe(0);
  });

  it("get namespaces: the server's Table, NAME STATUS AGE", async () => {
    const res = await kubectl(["get", "namespaces"]);
    expect(res.code).toBe(0);
    const rows = table(res.stdout);
    expect(rows[0]).toEqual(["NAME", "STATUS", "AGE"]);
    expect(rows.slice(1).map((r) => r.slice(0, 2))).toEqual([
      ["default", "Active"],
      ["kube-public", "Active"],
      ["kube-system", "Active"],
    ]);
    for (const row of rows.slice(1)) expect(row[2]).toMatch(age);
  });

  it("api-versions lists coordination.k8s.io/v1", async () => {
    const res = await kubectl(["api-versions"]);
    expect(res.stdout.trim().split("\n")).toEqual(expect.arrayContaining(["coordination.k8s.io/v1", "v1"]));
  });

  it("create -f a Lease in coordination.k8s.io/v1; get leases -A and get lease -o yaml", async () => {
    const empty = await kubectl(["get", "leases", "-n", "default"]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe("");
    expect(empty.stderr.trim()).toBe("No resources found in default namespace.");

    const lease = `apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: x
  namespace: default
spec:
  holderIdentity: node-1
  leaseDurationSeconds: 40
  renewTime: "2026-11-21T20:49:14.123456Z"
`;
    const created = await kubectl(["create", "-f", await kubectl.file("lease.yaml", lease)]);
    expect(created.code).toBe(0);
    expect(created.stdout.trim()).toBe("lease.coordination.k8s.io/x created");

    // Beside it, the server's own lease in kube-system (the one its endpoint reconciler renews).
    const all = await kubectl(["get", "leases", "-A"]);
    const rows = table(all.stdout);
    expect(rows[0]).toEqual(["NAMESPACE", "NAME", "HOLDER", "AGE"]);
    const mine = rows.slice(1).filter((r) => r[0] !== "kube-system");
    expect(mine.map((r) => r.slice(0, 3))).toEqual([["default", "x", "node-1"]]);
    expect(mine[0]?.[3]).toMatch(age);
    expect(
      rows
        .slice(1)
        .filter((r) => r[0] === "kube-system")
        .map((r) => r[1]),
    ).toEqual(["apiserver-endpoint-127-0-0-1"]);

    const yaml = await kubectl(["get", "lease", "x", "-o", "yaml"]);
    expect(yaml.code).toBe(0);
    const object = parseYAML(yaml.stdout);
    expect(object).toMatchObject({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "x", namespace: "default" },
      spec: { holderIdentity: "node-1", leaseDurationSeconds: 40, renewTime: "2026-11-21T20:49:14.123456Z" },
    });
    expect(object.metadata.resourceVersion).toMatch(/^\d+$/);

    const invalid = await kubectl(["create", "-f", "-"], {
      input: lease.replace("name: x", "name: bad-lease").replace("leaseDurationSeconds: 40", "leaseDurationSeconds: -1"),
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr.trim()).toBe('The Lease "bad-lease" is invalid: spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0');
  });

  it("get configmaps: the ConfigMap Table with its DATA column", async () => {
    const created = await kubectl(["create", "-f", "-"], { input: configMapManifest("tabled", { shape: "round" }) });
    expect(created.stdout.trim()).toBe("configmap/tabled created");
    const rows = table((await kubectl(["get", "configmaps"])).stdout);
    expect(rows[0]).toEqual(["NAME", "DATA", "AGE"]);
    expect(rows.slice(1).map((r) => r.slice(0, 2))).toEqual([["tabled", "2"]]);
    const wide = table((await kubectl(["get", "cm", "tabled", "--show-labels"])).stdout);
    expect(wide[0]).toEqual(["NAME", "DATA", "AGE", "LABELS"]);
    expect(wide[1]?.[3]).toBe("app=demo");
  });

  it("create priorityclass (a protobuf body) in scheduling.k8s.io/v1, without the Go zero values the JSON leaves out", async () => {
    const created = await kubectl(["create", "priorityclass", "high", "--value=1000", "--description=urgent"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe("priorityclass.scheduling.k8s.io/high created\n");
    const got = await kubectl(["get", "priorityclass", "high", "-o", "json"]);
    const pc = JSON.parse(got.stdout) as Record<string, unknown>;
    expect(pc).toMatchObject({ value: 1000, description: "urgent", preemptionPolicy: "PreemptLowerPriority" });
    expect(pc).not.toHaveProperty("globalDefault");
  });

  it("api-resources lists leases under coordination.k8s.io/v1", async () => {
    const rows = table((await kubectl(["api-resources", "--api-group=coordination.k8s.io"])).stdout);
    expect(rows).toEqual([
      ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"],
      ["leases", "coordination.k8s.io/v1", "true", "Lease"],
    ]);
  });
});
