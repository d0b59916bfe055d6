/**
 * ClusterRoleBinding (`rbac.authorization.{domain}/v1`, cluster-scoped, no short name): grants
 * the rules of a ClusterRole to subjects across the cluster. Schemas, defaults, validation,
 * access check and Table are RoleBinding's, for a cluster binding: `roleRef.kind` only
 * `ClusterRole`, a ServiceAccount subject needs its `namespace`.
 * @module
 */
import { listType, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { rbacGroupPattern } from "./policy-rule.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import {
  bindingTableColumns,
  checkBindingWriteAccess,
  defaultRBACBinding,
  roleRefSchema,
  subjectSchema,
  validateRBACBinding,
  validateRBACBindingUpdate,
} from "./role-binding.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a ClusterRoleBinding in `v1`. */
export const clusterRoleBindingV1Schema = kindSchema({
  roleRef: roleRefSchema
    .optional()
    .describe(
      "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
    ),
  subjects: listType(z.array(subjectSchema), "atomic").optional().describe("Subjects holds references to the objects the role applies to."),
}).meta({
  description:
    "ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.",
  required: ["roleRef"],
});

/**
 * The ClusterRoleBinding rules beyond metadata: RoleBinding's for a cluster binding
 * (`roleRef.kind`: Unsupported value unless `ClusterRole`; `subjects[i].namespace` required for
 * a ServiceAccount).
 */
export function validateClusterRoleBinding(object: APIObject, ctx: Pick<StrategyContext, "domain">): FieldError[] {
  return validateRBACBinding(object, false, ctx.domain);
}

/** The ClusterRoleBinding resource type. */
export const clusterRoleBindingType: ResourceType = {
  group: rbacGroupPattern,
  resource: "clusterrolebindings",
  singular: "clusterrolebinding",
  kind: "ClusterRoleBinding",
  scope: "Cluster",
  versions: [{ name: "v1", schema: clusterRoleBindingV1Schema, storage: true }],
  strategy: {
    nameIsPathSegment: true,
    defaults: (object, ctx) => defaultRBACBinding(object, ctx),
    validate: (object, ctx) => validateClusterRoleBinding(object, ctx),
    validateUpdate: (object, old) => validateRBACBindingUpdate(object, old),
    checkWriteAccess: async (object, old, subresource, ctx) => {
      if (subresource === "") await checkBindingWriteAccess("clusterrolebindings", object, old, ctx);
    },
    tableColumnsComplete: true,
    tableColumns: bindingTableColumns,
  },
};
