import { describe, expect, it } from "vitest";
import { componentPrefix, kindComponentName, openAPIDocument, openAPIIndex, type OpenAPIDocument, type OpenAPINode } from "./openapi.js";
import { coreAndCoordination as builtinResources } from "./internal/test-catalog.js";
import { builtinResources as catalog, ResourceRegistry } from "./registry.js";
import type { ResourceType } from "./resource-type.js";
import { int32 } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

// A tiny checker for the subset of OpenAPI schemas the generator emits.
function check(value: unknown, schema: OpenAPINode, doc: OpenAPIDocument, path = ""): string[] {
  const ref = schema["$ref"];
  if (typeof ref === "string") {
    const target = doc.components.schemas[ref.replace("#/components/schemas/", "")];
    return target ? check(value, target, doc, path) : [`${path}: dangling ${ref}`];
  }
  const errors: string[] = [];
  for (const part of (schema["allOf"] as OpenAPINode[] | undefined) ?? []) errors.push(...check(value, part, doc, path));
  switch (schema["type"]) {
    case "string":
      if (typeof value !== "string") errors.push(`${path}: not a string`);
      break;
    case "integer":
      if (!Number.isInteger(value)) errors.push(`${path}: not an integer`);
      break;
    case "boolean":
      if (typeof value !== "boolean") errors.push(`${path}: not a boolean`);
      break;
    case "array":
      if (!Array.isArray(value)) errors.push(`${path}: not an array`);
      else value.forEach((v, i) => errors.push(...check(v, schema["items"] as OpenAPINode, doc, `${path}[${i}]`)));
      break;
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        errors.push(`${path}: not an object`);
        break;
      }
      const props = schema["properties"] as Record<string, OpenAPINode> | undefined;
      const extra = schema["additionalProperties"] as OpenAPINode | undefined;
      for (const req of (schema["required"] as string[] | undefined) ?? []) if (!(req in value)) errors.push(`${path}.${req}: required`);
      for (const [k, v] of Object.entries(value)) {
        const sub = props?.[k] ?? extra;
        if (!sub) errors.push(`${path}.${k}: unknown`);
        else errors.push(...check(v, sub, doc, `${path}.${k}`));
      }
      break;
    }
    default:
      break;
  }
  return errors;
}

const meta = {
  name: "x",
  namespace: "ns",
  labels: { a: "b" },
  ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "u" }],
  finalizers: ["a.io/b"],
  creationTimestamp: "2026-01-01T00:00:00Z",
};
const examples: [string, string, string, unknown][] = [
  ["", "v1", "ConfigMap", { apiVersion: "v1", kind: "ConfigMap", metadata: meta, data: { k: "v" }, binaryData: { b: "AA==" }, immutable: true }],
  ["", "v1", "Secret", { apiVersion: "v1", kind: "Secret", metadata: meta, data: { k: "dg==" }, type: "Opaque" }],
  [
    "",
    "v1",
    "Namespace",
    {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "x" },
      spec: { finalizers: ["orch"] },
      status: { phase: "Active", conditions: [{ type: "A", status: "True" }] },
    },
  ],
  [
    "",
    "v1",
    "Event",
    {
      apiVersion: "v1",
      kind: "Event",
      metadata: meta,
      involvedObject: { kind: "Pod", name: "p" },
      reason: "R",
      count: 2,
      type: "Normal",
      series: { count: 2, lastObservedTime: "2026-01-01T00:00:00.000000Z" },
      source: { component: "c" },
    },
  ],
  [
    "coordination.orch.io",
    "v1",
    "Lease",
    {
      apiVersion: "coordination.orch.io/v1",
      kind: "Lease",
      metadata: meta,
      spec: { holderIdentity: "h", leaseDurationSeconds: 15, renewTime: "2026-01-01T00:00:00.000000Z" },
    },
  ],
];

describe("OpenAPI v3", () => {
  const registry = new ResourceRegistry(builtinResources);
  const kube = new ResourceRegistry(builtinResources, "k8s.io");

  it("indexes every group version with a hash that follows the document", () => {
    const index = openAPIIndex(registry);
    expect(Object.keys(index.paths)).toEqual(["api/v1", "apis/coordination.orch.io/v1"]);
    expect(index.paths["api/v1"]?.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{16}$/);
    expect(openAPIIndex(kube).paths["api/v1"]?.serverRelativeURL).not.toBe(index.paths["api/v1"]?.serverRelativeURL);
    expect(openAPIDocument(registry, "apps", "v1")).toBeUndefined();
  });

  it.each([
    ["orch.io", "io.orch"],
    ["k8s.io", "io.k8s"],
  ])("names components in reverse-domain style for %s", (domain, prefix) => {
    expect(componentPrefix(domain)).toBe(prefix);
    const doc = openAPIDocument(new ResourceRegistry(builtinResources, domain), "", "v1");
    expect(Object.keys(doc?.components.schemas ?? {})).toEqual(
      expect.arrayContaining([
        `${prefix}.api.core.v1.ConfigMap`,
        `${prefix}.api.core.v1.ConfigMapList`,
        `${prefix}.apimachinery.pkg.apis.meta.v1.ObjectMeta`,
        `${prefix}.apimachinery.pkg.apis.meta.v1.DeleteOptions`,
        `${prefix}.apimachinery.pkg.apis.meta.v1.Status`,
        `${prefix}.apimachinery.pkg.apis.meta.v1.WatchEvent`,
      ]),
    );
  });

  it("tags kinds with x-kubernetes-group-version-kind for k8s.io and x-orch-group-version-kind otherwise", () => {
    const lease = openAPIDocument(kube, "coordination.k8s.io", "v1")?.components.schemas["io.k8s.api.coordination.v1.Lease"];
    expect(lease?.["x-kubernetes-group-version-kind"]).toEqual([{ group: "coordination.k8s.io", kind: "Lease", version: "v1" }]);
    expect(lease).not.toHaveProperty("x-orch-group-version-kind");
    const cm = openAPIDocument(registry, "", "v1")?.components.schemas["io.orch.api.core.v1.ConfigMap"];
    expect(cm?.["x-orch-group-version-kind"]).toEqual([{ group: "", kind: "ConfigMap", version: "v1" }]);
  });

  it("tags every kind's schema with x-kubernetes-group-version-kind under any domain, where kubectl explain looks for it", () => {
    for (const r of [new ResourceRegistry(catalog), new ResourceRegistry(catalog, "k8s.io")]) {
      for (const { group, version } of r.groupVersions()) {
        const doc = openAPIDocument(r, group, version) as OpenAPIDocument;
        for (const { type } of r.resourcesIn(group, version)) {
          for (const kind of [type.kind, `${type.kind}List`]) {
            const schema = doc.components.schemas[kindComponentName(r.domain, group, version, kind)];
            expect(schema?.["x-kubernetes-group-version-kind"], `${kind} in ${group}/${version} under ${r.domain}`).toEqual([{ group, kind, version }]);
          }
        }
      }
    }
    const status = openAPIDocument(registry, "", "v1")?.components.schemas["io.orch.apimachinery.pkg.apis.meta.v1.Status"];
    expect(status?.["x-kubernetes-group-version-kind"]).toEqual([{ group: "", kind: "Status", version: "v1" }]);
  });

  it("repeats the patch markers under x-kubernetes-* for orch.io, as kubectl's client-side apply reads only those", () => {
    const doc = openAPIDocument(registry, "", "v1") as OpenAPIDocument;
    const props = doc.components.schemas["io.orch.apimachinery.pkg.apis.meta.v1.ObjectMeta"]?.["properties"] as Record<string, OpenAPINode>;
    expect(props["ownerReferences"]).toMatchObject({
      "x-orch-list-type": "map",
      "x-orch-patch-strategy": "merge",
      "x-orch-patch-merge-key": "uid",
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "uid",
    });
    expect(props["ownerReferences"]).not.toHaveProperty("x-kubernetes-list-type");
    expect(props["managedFields"]).not.toHaveProperty("x-kubernetes-patch-strategy");
  });

  describe("an embedder's own group", () => {
    const widgetType: ResourceType = {
      group: "example.com",
      resource: "widgets",
      singular: "widget",
      kind: "Widget",
      scope: "Namespaced",
      versions: [{ name: "v1", schema: kindSchema({ size: int32().optional() }, "A widget."), storage: true }],
      subresources: ["status"],
    };

    it.each([["orch.io"], ["k8s.io"]])("names its kinds by the reversed group, as the reference names a custom resource's (%s)", (domain) => {
      const r = new ResourceRegistry([...builtinResources, widgetType, { ...widgetType, group: "example.{domain}" }], domain);
      expect(kindComponentName(domain, "example.com", "v1", "Widget")).toBe("com.example.v1.Widget");
      const doc = openAPIDocument(r, "example.com", "v1") as OpenAPIDocument;
      expect(doc.components.schemas["com.example.v1.Widget"]).toMatchObject({
        description: "A widget.",
        "x-kubernetes-group-version-kind": [{ group: "example.com", kind: "Widget", version: "v1" }],
      });
      expect(doc.components.schemas["com.example.v1.WidgetList"]?.["x-kubernetes-group-version-kind"]).toEqual([
        { group: "example.com", kind: "WidgetList", version: "v1" },
      ]);
      const item = doc.paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"] as Record<string, OpenAPINode>;
      expect(JSON.stringify(item["get"])).toContain('"#/components/schemas/com.example.v1.Widget"');
      // A group under the domain is the embedder's too: `io.orch.example.v1.Widget`.
      expect(Object.keys(openAPIDocument(r, `example.${domain}`, "v1")?.components.schemas ?? {})).toContain(`${componentPrefix(domain)}.example.v1.Widget`);
    });

    it("leaves the built-in groups their names", () => {
      expect(kindComponentName("orch.io", "", "v1", "ConfigMap")).toBe("io.orch.api.core.v1.ConfigMap");
      expect(kindComponentName("orch.io", "apps", "v1", "Deployment")).toBe("io.orch.api.apps.v1.Deployment");
      expect(kindComponentName("k8s.io", "coordination.k8s.io", "v1", "Lease")).toBe("io.k8s.api.coordination.v1.Lease");
      expect(kindComponentName("orch.io", "policy", "v1", "Eviction")).toBe("io.orch.api.policy.v1.Eviction");
    });
  });

  it("carries the merge markers of ObjectMeta and Namespace status", () => {
    const doc = openAPIDocument(kube, "", "v1") as OpenAPIDocument;
    const props = doc.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]?.["properties"] as Record<string, OpenAPINode>;
    expect(props["ownerReferences"]).toMatchObject({
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["uid"],
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "uid",
    });
    expect(props["finalizers"]).toMatchObject({ "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge" });
    expect(props["managedFields"]).toMatchObject({ "x-kubernetes-list-type": "atomic" });
    const status = doc.components.schemas["io.k8s.api.core.v1.NamespaceStatus"]?.["properties"] as Record<string, OpenAPINode>;
    expect(status["conditions"]).toMatchObject({ "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] });
    expect(doc.components.schemas["io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"]).toMatchObject({ "x-kubernetes-map-type": "atomic" });
  });

  it("lists every operation with its action, GVK and query parameters", () => {
    const doc = openAPIDocument(kube, "", "v1") as OpenAPIDocument;
    const item = doc.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"] as Record<string, OpenAPINode>;
    expect(Object.keys(item).sort()).toEqual(["delete", "get", "patch", "put"]);
    const patch = item["patch"] as OpenAPINode;
    expect(patch["operationId"]).toBe("patchCoreV1NamespacedConfigMap");
    expect(patch["x-kubernetes-action"]).toBe("patch");
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "", kind: "ConfigMap", version: "v1" });
    const queryNames = (op: OpenAPINode) => (op["parameters"] as { name: string; in: string }[]).filter((p) => p.in === "query").map((p) => p.name);
    expect(queryNames(patch)).toEqual(expect.arrayContaining(["dryRun", "fieldManager", "fieldValidation", "force", "pretty"]));
    expect(Object.keys((patch["requestBody"] as { content: object }).content).sort()).toEqual([
      "application/apply-patch+yaml",
      "application/json-patch+json",
      "application/merge-patch+json",
      "application/strategic-merge-patch+json",
    ]);
    const collection = doc.paths["/api/v1/namespaces/{namespace}/configmaps"] as Record<string, OpenAPINode>;
    expect(Object.keys(collection).sort()).toEqual(["delete", "get", "post"]);
    expect(queryNames(collection["get"] as OpenAPINode)).toEqual(
      expect.arrayContaining([
        "labelSelector",
        "fieldSelector",
        "limit",
        "continue",
        "resourceVersion",
        "resourceVersionMatch",
        "timeoutSeconds",
        "watch",
        "allowWatchBookmarks",
      ]),
    );
    expect((collection["delete"] as OpenAPINode)["x-kubernetes-action"]).toBe("deletecollection");
    expect((doc.paths["/api/v1/configmaps"] as Record<string, OpenAPINode>)["get"]?.["operationId"]).toBe("listCoreV1ConfigMapForAllNamespaces");
    expect(doc.paths["/api/v1/namespaces/{name}/finalize"]).toHaveProperty("put");
    expect(Object.keys(doc.paths["/api/v1/namespaces/{name}/status"] ?? {}).sort()).toEqual(["get", "patch", "put"]);
    expect(doc.paths["/api/v1/namespaces"]).not.toHaveProperty("delete");
  });

  it("tags operations with x-kubernetes-group-version-kind under any domain, where kubectl looks for it", () => {
    const item = openAPIDocument(registry, "", "v1")?.paths["/api/v1/namespaces/{namespace}/configmaps/{name}"] as Record<string, OpenAPINode>;
    const patch = item["patch"] as OpenAPINode;
    expect(patch["x-orch-group-version-kind"]).toEqual({ group: "", kind: "ConfigMap", version: "v1" });
    expect(patch["x-kubernetes-group-version-kind"]).toEqual({ group: "", kind: "ConfigMap", version: "v1" });
  });

  it("gives every PATCH of a kind the fieldValidation parameter kubectl looks for", () => {
    for (const r of [registry, kube]) {
      for (const { group, version } of r.groupVersions()) {
        const doc = openAPIDocument(r, group, version) as OpenAPIDocument;
        for (const item of Object.values(doc.paths)) {
          const patch = item["patch"] as OpenAPINode | undefined;
          if (!patch) continue;
          expect((patch["parameters"] as { name: string; in: string }[]).some((p) => p.name === "fieldValidation" && p.in === "query")).toBe(true);
        }
      }
    }
  });

  it("resolves every $ref", () => {
    const doc = openAPIDocument(registry, "", "v1") as OpenAPIDocument;
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) expect(Object.keys(doc.components.schemas)).toContain(ref.slice('"$ref":"#/components/schemas/'.length, -1));
  });

  it.each(examples)("validates an example %s/%s %s against its generated schema", (group, version, kind, example) => {
    const doc = openAPIDocument(registry, group, version) as OpenAPIDocument;
    const schema = doc.components.schemas[kindComponentName("orch.io", group, version, kind)] as OpenAPINode;
    expect(check(example, schema, doc)).toEqual([]);
    const list = doc.components.schemas[kindComponentName("orch.io", group, version, `${kind}List`)] as OpenAPINode;
    expect(check({ apiVersion: "v1", kind: `${kind}List`, metadata: { resourceVersion: "1" }, items: [example] }, list, doc)).toEqual([]);
    expect(check({ ...(example as object), bogus: 1 }, schema, doc)).toEqual([".bogus: unknown"]);
  });
});
