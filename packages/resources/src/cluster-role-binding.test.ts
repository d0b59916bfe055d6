import { type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { clusterRoleBindingType, validateClusterRoleBinding } from "./cluster-role-binding.js";
import { bindingTableColumns } from "./role-binding.js";

const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const ctx = { domain: "orch.io", now: 0 };
const group = "rbac.authorization.orch.io";
const crb = (fields: Record<string, unknown>): APIObject => ({ apiVersion: `${group}/v1`, kind: "ClusterRoleBinding", metadata: { name: "ops" }, ...fields });
const roleRef = { apiGroup: group, kind: "ClusterRole", name: "admin" };

describe("ClusterRoleBinding", () => {
  it("is a cluster-scoped kind with RoleBinding's Table and defaults", () => {
    expect(clusterRoleBindingType).toMatchObject({ group: "rbac.authorization.{domain}", resource: "clusterrolebindings", scope: "Cluster" });
    expect(clusterRoleBindingType.shortNames).toBeUndefined();
    expect(clusterRoleBindingType.strategy?.tableColumns).toBe(bindingTableColumns);
    const object = crb({ roleRef: { kind: "ClusterRole", name: "admin" }, subjects: [{ kind: "Group", name: "ops" }] });
    clusterRoleBindingType.strategy?.defaults?.(object, ctx);
    expect(object).toMatchObject({ roleRef, subjects: [{ kind: "Group", name: "ops", apiGroup: group }] });
  });

  it("accepts a ClusterRole bound to users, groups and namespaced service accounts", () => {
    const subjects = [
      { kind: "User", name: "jane", apiGroup: group },
      { kind: "ServiceAccount", name: "sa", namespace: "ci" },
    ];
    expect(validateClusterRoleBinding(crb({ roleRef, subjects }), ctx)).toEqual([]);
  });

  it.each([
    ["a Role", { roleRef: { ...roleRef, kind: "Role" } }, [["roleRef.kind", "FieldValueNotSupported", 'supported values: "ClusterRole"']]],
    [
      "a service account without namespace",
      { roleRef, subjects: [{ kind: "ServiceAccount", name: "sa" }] },
      [["subjects[0].namespace", "FieldValueRequired", ""]],
    ],
    [
      "a role of the reference's domain on an orch.io server",
      { roleRef: { ...roleRef, apiGroup: "rbac.authorization.k8s.io" } },
      [["roleRef.apiGroup", "FieldValueNotSupported", `supported values: "${group}"`]],
    ],
  ])("refuses %s", (_what, fields, expected) => {
    expect(errorsOf(validateClusterRoleBinding(crb(fields), ctx))).toEqual(expected);
  });

  it("refuses a change of roleRef", () => {
    const errors = clusterRoleBindingType.strategy?.validateUpdate?.(crb({ roleRef: { ...roleRef, name: "view" } }), crb({ roleRef }), ctx) ?? [];
    expect(errorsOf(errors)).toEqual([["roleRef", "FieldValueInvalid", "cannot change roleRef"]]);
  });
});
