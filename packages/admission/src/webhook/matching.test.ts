import { isNotFound, type APIObject, type StatusError } from "@orch/meta";
import { configMapType, namespaceType, nodeType, podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import type { AdmissionAttributes, Operation } from "../attributes.js";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { webhookConfigMap, webhookConfiguration, widget, widgetType, type WebhookSpec } from "../internal/webhook-testing.js";
import { invocationByRules, isExemptFromWebhooks, namespaceLabelsOf, shouldCallHook } from "./matching.js";
import { compileWebhooks, type CompiledWebhook } from "./webhooks.js";

function hook(spec: Partial<WebhookSpec> = {}): CompiledWebhook {
  const [compiled] = compileWebhooks([webhookConfiguration("Validating", "config", [{ name: "hook.example.com", ...spec }])]);
  return compiled as CompiledWebhook;
}

function rule(rule: Record<string, unknown>): Partial<WebhookSpec> {
  return { rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], ...rule }] };
}

function configMapWrite(operation: Operation = "CREATE", extra: Partial<Parameters<typeof attributesFor>[0]> = {}): AdmissionAttributes {
  return attributesFor({ operation, type: configMapType, object: webhookConfigMap(), ...extra });
}

function widgetWriteThrough(version: string): AdmissionAttributes {
  const attrs = attributesFor({ operation: "CREATE", type: widgetType, object: widget() });
  attrs.requestResource = { ...attrs.resource, version };
  attrs.requestKind = { ...attrs.kind, version };
  return attrs;
}

describe("rules", () => {
  it("match operations by name or '*'", () => {
    expect(invocationByRules(hook(rule({ operations: ["CREATE"] })), configMapWrite("CREATE"))).toBeDefined();
    expect(invocationByRules(hook(rule({ operations: ["CREATE"] })), configMapWrite("UPDATE", { oldObject: webhookConfigMap() }))).toBeUndefined();
    expect(
      invocationByRules(
        hook(rule({ operations: ["UPDATE", "DELETE"] })),
        attributesFor({ operation: "DELETE", type: configMapType, oldObject: webhookConfigMap() }),
      ),
    ).toBeDefined();
    expect(invocationByRules(hook(rule({ operations: ["*"] })), configMapWrite("CONNECT"))).toBeDefined();
  });

  it("match API groups ('' is core) and versions, or '*'", () => {
    expect(invocationByRules(hook(rule({ apiGroups: [""] })), configMapWrite())).toBeDefined();
    expect(invocationByRules(hook(rule({ apiGroups: ["apps"] })), configMapWrite())).toBeUndefined();
    expect(invocationByRules(hook(rule({ apiVersions: ["v1"] })), configMapWrite())).toBeDefined();
    expect(invocationByRules(hook(rule({ apiVersions: ["v2"], apiGroups: [""] })), configMapWrite())).toBeUndefined();
  });

  it("match resources: a name, '*' (no sub-resources), '*/*', 'pods/*', '*/status'", () => {
    const status = attributesFor({
      operation: "UPDATE",
      type: podType,
      subresource: "status",
      object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "team" } },
    });
    const pod = attributesFor({ operation: "CREATE", type: podType, object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "team" } } });
    const cases: [string[], AdmissionAttributes, boolean][] = [
      [["configmaps"], configMapWrite(), true],
      [["secrets"], configMapWrite(), false],
      [["*"], configMapWrite(), true],
      [["*"], status, false],
      [["*/*"], status, true],
      [["*/*"], pod, true],
      [["pods/*"], status, true],
      // As the reference matches it: the sub-resource wildcard also matches no sub-resource.
      [["pods/*"], pod, true],
      [["pods"], status, false],
      [["*/status"], status, true],
      [["*/status"], pod, false],
      [["pods/status"], status, true],
      [["pods/binding"], status, false],
    ];
    for (const [resources, attrs, expected] of cases) {
      expect(
        invocationByRules(hook(rule({ resources })), attrs) !== undefined,
        `${resources.join(",")} on ${attrs.resource.resource}/${attrs.subresource}`,
      ).toBe(expected);
    }
  });

  it("match scope: Namespaced, Cluster or '*'; a Namespace is cluster-scoped; a sub-resource takes its parent's scope", () => {
    const ns = attributesFor({ operation: "CREATE", type: namespaceType, object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } } });
    const nodeStatus = attributesFor({
      operation: "UPDATE",
      type: nodeType,
      subresource: "status",
      object: { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } },
    });
    const podStatus = attributesFor({
      operation: "UPDATE",
      type: podType,
      subresource: "status",
      object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "team" } },
    });
    const cases: [string, AdmissionAttributes, boolean][] = [
      ["Namespaced", configMapWrite(), true],
      ["Cluster", configMapWrite(), false],
      ["*", configMapWrite(), true],
      ["Namespaced", ns, false],
      ["Cluster", ns, true],
      ["Cluster", nodeStatus, true],
      ["Namespaced", nodeStatus, false],
      ["Namespaced", podStatus, true],
      ["Cluster", podStatus, false],
    ];
    for (const [scope, attrs, expected] of cases) {
      expect(invocationByRules(hook(rule({ scope, resources: ["*/*"] })), attrs) !== undefined, `${scope} on ${attrs.resource.resource}`).toBe(expected);
    }
  });
});

describe("matchPolicy", () => {
  const v1Only = rule({ apiGroups: ["example.orch.io"], apiVersions: ["v1"], resources: ["widgets"] });

  it("Exact matches only the version of the request, and reports the request's resource and kind", () => {
    expect(invocationByRules(hook({ ...v1Only, matchPolicy: "Exact" }), widgetWriteThrough("v2"))).toBeUndefined();
    const invocation = invocationByRules(hook({ ...v1Only, matchPolicy: "Exact" }), widgetWriteThrough("v1"));
    expect(invocation?.resource).toEqual({ group: "example.orch.io", version: "v1", resource: "widgets" });
    expect(invocation?.kind).toEqual({ group: "example.orch.io", version: "v1", kind: "Widget" });
  });

  it("Equivalent matches another served version of the resource and names it as resource and kind", () => {
    const invocation = invocationByRules(hook({ ...v1Only, matchPolicy: "Equivalent" }), widgetWriteThrough("v2"));
    expect(invocation?.resource).toEqual({ group: "example.orch.io", version: "v1", resource: "widgets" });
    expect(invocation?.kind).toEqual({ group: "example.orch.io", version: "v1", kind: "Widget" });
  });

  it("Equivalent still prefers the request's own version when a rule lists it", () => {
    const both = rule({ apiGroups: ["example.orch.io"], apiVersions: ["v1", "v2"], resources: ["widgets"] });
    expect(invocationByRules(hook({ ...both, matchPolicy: "Equivalent" }), widgetWriteThrough("v2"))?.kind.version).toBe("v2");
  });

  it("Equivalent matches no other resource", () => {
    const secrets = rule({ apiGroups: ["example.orch.io"], apiVersions: ["v1"], resources: ["secrets"] });
    expect(invocationByRules(hook({ ...secrets, matchPolicy: "Equivalent" }), widgetWriteThrough("v2"))).toBeUndefined();
  });
});

describe("objectSelector", () => {
  const selector = { objectSelector: { matchLabels: { app: "web" } } };

  it("selects on the object's labels", async () => {
    expect(await shouldCallHook(hook(selector), configMapWrite("CREATE", { object: webhookConfigMap({ app: "web" }) }), undefined)).toBeDefined();
    expect(await shouldCallHook(hook(selector), configMapWrite("CREATE", { object: webhookConfigMap({ app: "db" }) }), undefined)).toBeUndefined();
  });

  it("selects on the old object's labels: a match on either counts", async () => {
    const update = configMapWrite("UPDATE", { object: webhookConfigMap({ app: "db" }), oldObject: webhookConfigMap({ app: "web" }) });
    expect(await shouldCallHook(hook(selector), update, undefined)).toBeDefined();
    const deletion = attributesFor({ operation: "DELETE", type: configMapType, oldObject: webhookConfigMap({ app: "web" }) });
    expect(await shouldCallHook(hook(selector), deletion, undefined)).toBeDefined();
  });

  it("matchExpressions apply to an object without labels; an object without metadata is never selected", async () => {
    const absent = { objectSelector: { matchExpressions: [{ key: "skip", operator: "DoesNotExist" }] } };
    expect(await shouldCallHook(hook(absent), configMapWrite("CREATE", { object: webhookConfigMap() }), undefined)).toBeDefined();
    const attrs = attributesFor({ operation: "CONNECT", type: configMapType, namespace: "team", name: "cm" });
    attrs.object = { apiVersion: "v1", kind: "PodExecOptions" } as APIObject;
    expect(await shouldCallHook(hook(absent), attrs, undefined)).toBeUndefined();
  });

  it("an unusable selector refuses the writes the rules match with a 500", async () => {
    const bad = hook({ objectSelector: { matchExpressions: [{ key: "a", operator: "Bogus" }] } });
    await expect(shouldCallHook(bad, configMapWrite(), undefined)).rejects.toMatchObject({ code: 500 });
    const other = hook({ ...rule({ resources: ["secrets"] }), objectSelector: { matchExpressions: [{ key: "a", operator: "Bogus" }] } });
    expect(await shouldCallHook(other, configMapWrite(), undefined)).toBeUndefined();
  });
});

describe("namespaceSelector", () => {
  const selector = { namespaceSelector: { matchLabels: { env: "prod" } } };

  function servicesWith(labels: Record<string, string>) {
    const services = fakeServices();
    services.put("", "namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels } });
    return services;
  }

  it("selects on the labels of the namespace of a namespaced write, read once per write", async () => {
    const services = servicesWith({ env: "prod" });
    let reads = 0;
    const get = services.get.bind(services);
    services.get = (...args) => {
      reads++;
      return get(...args);
    };
    const attrs = configMapWrite();
    const labels = namespaceLabelsOf(attrs, services);
    expect(await shouldCallHook(hook(selector), attrs, labels)).toBeDefined();
    expect(await shouldCallHook(hook(selector), attrs, labels)).toBeDefined();
    expect(reads).toBe(1);
    const staging = servicesWith({ env: "staging" });
    expect(await shouldCallHook(hook(selector), attrs, namespaceLabelsOf(attrs, staging))).toBeUndefined();
  });

  it("a Namespace being created or updated is selected by its own labels; a deleted one by its stored labels", async () => {
    const services = servicesWith({ env: "staging" });
    const create = attributesFor({
      operation: "CREATE",
      type: namespaceType,
      object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels: { env: "prod" } } },
    });
    expect(await shouldCallHook(hook(selector), create, namespaceLabelsOf(create, services))).toBeDefined();
    const deletion = attributesFor({
      operation: "DELETE",
      type: namespaceType,
      name: "team",
      oldObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels: { env: "prod" } } },
    });
    expect(await shouldCallHook(hook(selector), deletion, namespaceLabelsOf(deletion, services))).toBeUndefined();
  });

  it("has no effect on other cluster-scoped resources", async () => {
    const node = attributesFor({ operation: "CREATE", type: nodeType, object: { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } } });
    const labels = namespaceLabelsOf(node, fakeServices());
    expect(labels).toBeUndefined();
    expect(await shouldCallHook(hook(selector), node, labels)).toBeDefined();
  });

  it("a missing namespace is a 404 when the rules match", async () => {
    const attrs = configMapWrite();
    const error: unknown = await shouldCallHook(hook(selector), attrs, namespaceLabelsOf(attrs, fakeServices())).catch((e: unknown) => e);
    expect(isNotFound(error)).toBe(true);
    expect((error as StatusError).message).toBe('namespaces "team" not found');
  });
});

describe("exclusions", () => {
  it("writes of the webhook configurations themselves never call webhooks", () => {
    const attrs = configMapWrite();
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      attrs.kind = { group: "admissionregistration.orch.io", version: "v1", kind };
      expect(isExemptFromWebhooks(attrs, "orch.io")).toBe(true);
      attrs.kind = { group: "admissionregistration.k8s.io", version: "v1", kind };
      expect(isExemptFromWebhooks(attrs, "k8s.io")).toBe(true);
    }
    expect(isExemptFromWebhooks(configMapWrite(), "orch.io")).toBe(false);
  });
});

describe("compileWebhooks", () => {
  it("orders configurations by name, webhooks in list order, with unique uids for repeated names", () => {
    const hooks = compileWebhooks([
      webhookConfiguration("Mutating", "b", [{ name: "x.example.com" }, { name: "x.example.com" }]),
      webhookConfiguration("Mutating", "a", [{ name: "z.example.com" }, { name: "y.example.com" }]),
    ]);
    expect(hooks.map((h) => h.uid)).toEqual(["a/z.example.com/0", "a/y.example.com/0", "b/x.example.com/0", "b/x.example.com/1"]);
  });

  it("reads the review version, policies, endpoint and CA bundle of each webhook", () => {
    const [compiled] = compileWebhooks([
      webhookConfiguration("Mutating", "a", [
        {
          name: "x.example.com",
          admissionReviewVersions: ["v2", "v1beta1", "v1"],
          failurePolicy: "Ignore",
          sideEffects: "NoneOnDryRun",
          timeoutSeconds: 3,
          reinvocationPolicy: "IfNeeded",
          clientConfig: { service: { namespace: "ns", name: "svc", path: "hook" }, caBundle: btoa("PEM") },
        },
      ]),
    ]);
    expect(compiled).toMatchObject({
      reviewVersion: "v1beta1",
      ignoreFailures: true,
      dryRunSafe: true,
      timeoutMs: 3000,
      reinvokeIfNeeded: true,
      endpoint: { service: { namespace: "ns", name: "svc", port: 443 }, path: "/hook" },
      caBundle: "PEM",
      namespaceSelector: undefined,
    });
  });
});
