import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { resourceQuotaType, validateResourceQuota } from "./resource-quota.js";

const quota = (spec: Record<string, unknown>, status?: Record<string, unknown>): APIObject => ({
  metadata: { name: "q", namespace: "ns" },
  spec,
  ...(status ? { status } : {}),
});
const causes = (errors: FieldError[]) => errors.map((e) => ({ field: e.field, type: e.type }));
const ctx = { domain: "orch.io", now: 0 };

describe("ResourceQuota", () => {
  it("is a namespaced core v1 kind with short name quota and a status", () => {
    expect(resourceQuotaType).toMatchObject({
      group: "",
      resource: "resourcequotas",
      kind: "ResourceQuota",
      scope: "Namespaced",
      shortNames: ["quota"],
      subresources: ["status"],
    });
  });

  it("accepts hard limits, scopes and a scope selector", () => {
    expect(
      validateResourceQuota(
        quota({
          hard: { pods: "10", "requests.cpu": "4", "limits.memory": "8Gi", "count/deployments.apps": "3" },
          scopes: ["NotTerminating", "NotBestEffort"],
          scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["high"] }] },
        }),
      ),
    ).toEqual([]);
  });

  it.each<[string, APIObject, { field: string; type: string }[]]>([
    ["a bad resource name", quota({ hard: { gpus: "1" } }), [{ field: "spec.hard[gpus]", type: "FieldValueInvalid" }]],
    ["a negative quantity", quota({ hard: { cpu: "-1" } }), [{ field: "spec.hard[cpu]", type: "FieldValueInvalid" }]],
    ["a fractional count", quota({ hard: { pods: "1500m" } }), [{ field: "spec.hard[pods]", type: "FieldValueInvalid" }]],
    ["an unknown scope", quota({ hard: { pods: "1" }, scopes: ["Sometimes"] }), [{ field: "spec.scopes", type: "FieldValueInvalid" }]],
    ["conflicting scopes", quota({ hard: { pods: "1" }, scopes: ["BestEffort", "NotBestEffort"] }), [{ field: "spec.scopes", type: "FieldValueInvalid" }]],
    ["a scope not valid for a resource", quota({ hard: { cpu: "1" }, scopes: ["BestEffort"] }), [{ field: "spec.scopes", type: "FieldValueInvalid" }]],
    [
      "a bad selector operator",
      quota({ scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "Is" }] } }),
      [{ field: "spec.scopeSelector.matchExpressions[0].operator", type: "FieldValueNotSupported" }],
    ],
    [
      "In without values",
      quota({ scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In" }] } }),
      [{ field: "spec.scopeSelector.matchExpressions[0].values", type: "FieldValueRequired" }],
    ],
    ["a negative used", quota({}, { used: { pods: "-1" } }), [{ field: "status.used[pods]", type: "FieldValueInvalid" }]],
  ])("refuses %s", (_what, object, expected) => {
    expect(causes(validateResourceQuota(object))).toEqual(expected);
  });

  it("words scope errors as the reference", () => {
    expect(validateResourceQuota(quota({ scopes: ["Terminating", "NotTerminating"] })).map(formatFieldError)).toEqual([
      'spec.scopes: Invalid value: ["Terminating","NotTerminating"]: conflicting scopes',
    ]);
  });

  it("resets status on create and update, and spec on status writes", () => {
    const q = quota({ hard: { pods: "1" } }, { used: { pods: "1" } });
    resourceQuotaType.strategy?.prepareForCreate?.(q, ctx);
    expect(q["status"]).toBeUndefined();
    const old = quota({ hard: { pods: "1" } }, { hard: { pods: "1" }, used: { pods: "0" } });
    const next = quota({ hard: { pods: "2" } }, { used: { pods: "9" } });
    resourceQuotaType.strategy?.prepareForUpdate?.(next, old, ctx);
    expect(next["status"]).toEqual(old["status"]);
    const status = quota({ hard: { pods: "5" } }, { used: { pods: "1" } });
    resourceQuotaType.strategy?.prepareForStatusUpdate?.(status, old, ctx);
    expect(status["spec"]).toEqual(old["spec"]);
  });

  it("prints REQUEST and LIMIT as used over hard", () => {
    const q = quota({}, { hard: { pods: "10", "limits.cpu": "2" }, used: { pods: "1", "limits.cpu": "500m" } });
    const [request, limit] = resourceQuotaType.strategy?.tableColumns ?? [];
    expect(request?.cell(q)).toBe("pods: 1/10");
    expect(limit?.cell(q)).toBe("limits.cpu: 500m/2");
  });
});
