import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultNode, nodeRoles, nodeStatusCell, nodeType, validateNode, validateNodeUpdate } from "./node.js";

const node = (spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): APIObject => ({ metadata: { name: "n1" }, spec, ...extra });
const causes = (errors: FieldError[]) => errors.map((e) => ({ field: e.field, type: e.type }));

describe("Node", () => {
  it("is a cluster-scoped core v1 kind with short name no and a status", () => {
    expect(nodeType).toMatchObject({ group: "", resource: "nodes", kind: "Node", scope: "Cluster", shortNames: ["no"], subresources: ["status"] });
  });

  it("accepts pod CIDRs, taints and an unschedulable flag", () => {
    const n = node({
      podCIDR: "10.244.0.0/24",
      podCIDRs: ["10.244.0.0/24", "fd00::/64"],
      unschedulable: true,
      taints: [
        { key: "k", value: "v", effect: "NoSchedule" },
        { key: "k", effect: "NoExecute" },
      ],
    });
    expect(validateNode(n)).toEqual([]);
  });

  it("defaults podCIDRs from podCIDR and allocatable from capacity", () => {
    const n = node({ podCIDR: "10.244.0.0/24" }, { status: { capacity: { cpu: "4" } } });
    defaultNode(n);
    expect(n).toMatchObject({ spec: { podCIDRs: ["10.244.0.0/24"] }, status: { allocatable: { cpu: "4" } } });
  });

  it.each<[string, APIObject, { field: string; type: string }[]]>([
    ["a bad CIDR", node({ podCIDRs: ["10.0.0.0"] }), [{ field: "spec.podCIDRs[0]", type: "FieldValueInvalid" }]],
    ["two CIDRs of one family", node({ podCIDRs: ["10.0.0.0/24", "10.1.0.0/24"] }), [{ field: "spec.podCIDRs", type: "FieldValueInvalid" }]],
    ["a taint without effect", node({ taints: [{ key: "k" }] }), [{ field: "spec.taints[0].effect", type: "FieldValueRequired" }]],
    ["a taint with a bad effect", node({ taints: [{ key: "k", effect: "Never" }] }), [{ field: "spec.taints[0].effect", type: "FieldValueNotSupported" }]],
    ["a taint with a bad key", node({ taints: [{ key: "a b", effect: "NoSchedule" }] }), [{ field: "spec.taints[0].key", type: "FieldValueInvalid" }]],
    [
      "a taint with a bad value",
      node({ taints: [{ key: "k", value: "a b", effect: "NoSchedule" }] }),
      [{ field: "spec.taints[0].value", type: "FieldValueInvalid" }],
    ],
    [
      "a duplicate taint",
      node({
        taints: [
          { key: "k", effect: "NoSchedule" },
          { key: "k", value: "x", effect: "NoSchedule" },
        ],
      }),
      [{ field: "spec.taints[1]", type: "FieldValueDuplicate" }],
    ],
    ["a negative capacity", node({}, { status: { capacity: { cpu: "-1" } } }), [{ field: "status.capacity[cpu]", type: "FieldValueInvalid" }]],
  ])("refuses %s", (_what, object, expected) => {
    expect(causes(validateNode(object))).toEqual(expected);
  });

  it("lets podCIDRs and providerID be set once", () => {
    expect(validateNodeUpdate(node({ podCIDRs: ["10.0.0.0/24"], providerID: "p://1" }), node())).toEqual([]);
    expect(
      validateNodeUpdate(node({ podCIDRs: ["10.1.0.0/24"], providerID: "p://2" }), node({ podCIDRs: ["10.0.0.0/24"], providerID: "p://1" })).map(
        formatFieldError,
      ),
    ).toEqual([
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
  });

  it("keeps status on updates of the node and spec on status writes", () => {
    const old = node({ unschedulable: true }, { status: { phase: "Running" } });
    const next = node({}, { status: { phase: "Gone" } });
    nodeType.strategy?.prepareForUpdate?.(next, old, { domain: "orch.io", now: 0 });
    expect(next["status"]).toEqual({ phase: "Running" });
    const status = node({}, { status: { phase: "New" } });
    nodeType.strategy?.prepareForStatusUpdate?.(status, old, { domain: "orch.io", now: 0 });
    expect(status).toMatchObject({ spec: { unschedulable: true }, status: { phase: "New" } });
  });

  it("prints STATUS, ROLES and VERSION", () => {
    const n: APIObject = {
      metadata: { name: "n1", labels: { "node-role.orch.io/control-plane": "", "node-role.kubernetes.io/worker": "" } },
      spec: { unschedulable: true },
      status: { conditions: [{ type: "Ready", status: "True" }], nodeInfo: { kubeletVersion: "v1.30.0" } },
    };
    expect(nodeStatusCell(n)).toBe("Ready,SchedulingDisabled");
    expect(nodeStatusCell(node())).toBe("Unknown");
    expect(nodeRoles(n)).toBe("control-plane,worker");
    expect(nodeRoles(node())).toBe("<none>");
    const columns = nodeType.strategy?.tableColumns ?? [];
    expect(columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(["Status", "Roles", "Version"]);
    expect(columns[2]?.cell(n)).toBe("v1.30.0");
  });

  it("selects on spec.unschedulable", () => {
    expect(nodeType.strategy?.selectableFields?.(node({ unschedulable: true }))).toEqual({ "spec.unschedulable": "true" });
  });
});
