/**
 * RoleBinding (`rbac.authorization.{domain}/v1`, namespaced, no short name): grants the rules
 * of a Role of its namespace, or of a ClusterRole, to subjects (users, groups, service
 * accounts) in its namespace. `roleRef` cannot change; a create or update must not grant rules
 * the caller does not hold, unless the caller may `bind` the role. The subject and role
 * reference schemas, defaults, validation, access check and Table columns here serve
 * ClusterRoleBinding as well.
 * @module
 */
import {
  FieldPath,
  invalidField,
  pathSegmentNameMessages,
  listType,
  notSupportedField,
  requiredField,
  structType,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { dns1123SubdomainProblems } from "./internal/access-rules.js";
import { jsonEqual, record, records, str } from "./internal/rules.js";
import { ageColumn, nameColumn } from "./internal/table-columns.js";
import { confirmNoEscalation, escalationAllowed, isOnlyMutatingGCFields, policyRulesOf, rbacGroup, rbacGroupPattern } from "./policy-rule.js";
import type { AccessPolicyRule, ResourceType, StrategyContext, TableColumn } from "./resource-type.js";
import { named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** The subject kinds a binding accepts, in the reference's order. */
export const subjectKinds = ["ServiceAccount", "User", "Group"] as const;

/** `Subject`: a user, a group or a service account a binding applies to (atomic as a struct). */
export const subjectSchema = named(
  structType(
    z
      .object({
        apiGroup: z
          .string()
          .optional()
          .describe(
            'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
          ),
        kind: z
          .string()
          .optional()
          .describe(
            'Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount". If the Authorizer does not recognized the kind value, the Authorizer should report an error.',
          ),
        name: z.string().optional().describe("Name of the object being referenced."),
        namespace: z
          .string()
          .optional()
          .describe(
            'Namespace of the referenced object.  If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.',
          ),
      })
      .meta({
        description:
          "Subject contains a reference to the object or user identities a role binding applies to.  This can either hold a direct API object reference, or a value for non-objects such as user and group names.",
        required: ["kind", "name"],
      }),
    "atomic",
  ),
  "api.rbac.v1.Subject",
);

/** `RoleRef`: the role a binding grants (atomic as a struct). */
export const roleRefSchema = named(
  structType(
    z
      .object({
        apiGroup: z.string().optional().describe("APIGroup is the group for the resource being referenced"),
        kind: z.string().optional().describe("Kind is the type of resource being referenced"),
        name: z.string().optional().describe("Name is the name of resource being referenced"),
      })
      .meta({ description: "RoleRef contains information that points to the role being used", required: ["apiGroup", "kind", "name"] }),
    "atomic",
  ),
  "api.rbac.v1.RoleRef",
);

/** The zod schema of a RoleBinding in `v1`. */
export const roleBindingV1Schema = kindSchema({
  roleRef: roleRefSchema
    .optional()
    .describe(
      "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
    ),
  subjects: listType(z.array(subjectSchema), "atomic").optional().describe("Subjects holds references to the objects the role applies to."),
}).meta({
  description:
    "RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in.  RoleBindings in a given namespace only have effect in that namespace.",
  required: ["roleRef"],
});

/**
 * The defaults of a binding in `v1` (RoleBinding and ClusterRoleBinding), as the reference's:
 * an empty `roleRef.apiGroup` is the RBAC group; an empty subject `apiGroup` is the RBAC group
 * for `User` and `Group`, and left out for `ServiceAccount` (as the reference's JSON leaves the
 * empty string out).
 */
export function defaultRBACBinding(object: APIObject, ctx: Pick<StrategyContext, "domain">): void {
  const group = rbacGroup(ctx.domain);
  const roleRef = record(object["roleRef"]);
  if (roleRef && !roleRef["apiGroup"]) roleRef["apiGroup"] = group;
  for (const subject of Array.isArray(object["subjects"]) ? object["subjects"] : []) {
    const s = record(subject);
    if (!s || s["apiGroup"]) continue;
    // An empty apiGroup is the Go zero value, which the reference's JSON leaves out.
    delete s["apiGroup"];
    if (s["kind"] === "User" || s["kind"] === "Group") s["apiGroup"] = group;
  }
}

/**
 * The reference's `validateRoleBindingSubject` for the subject at `path`: `name` required;
 * `kind` one of {@link subjectKinds} (NotSupported); a ServiceAccount with a DNS-subdomain name,
 * no `apiGroup`, and (in a ClusterRoleBinding, `isNamespaced` false) a `namespace`; a User or
 * Group with the RBAC group as `apiGroup`.
 */
export function validateSubject(subject: Record<string, unknown>, isNamespaced: boolean, path: FieldPath, domain: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = str(subject["name"]);
  const kind = str(subject["kind"]);
  const apiGroup = str(subject["apiGroup"]);
  const group = rbacGroup(domain);
  if (name === "") errors.push(requiredField(path.child("name")));
  switch (kind) {
    case "ServiceAccount":
      if (name !== "") for (const problem of dns1123SubdomainProblems(name)) errors.push(invalidField(path.child("name"), name, problem));
      if (apiGroup !== "") errors.push(notSupportedField(path.child("apiGroup"), apiGroup, [""]));
      if (!isNamespaced && str(subject["namespace"]) === "") errors.push(requiredField(path.child("namespace")));
      break;
    case "User":
    case "Group":
      if (name === "") errors.push(invalidField(path.child("name"), name, `${kind.toLowerCase()} name cannot be empty`));
      if (apiGroup !== group) errors.push(notSupportedField(path.child("apiGroup"), apiGroup, [group]));
      break;
    default:
      errors.push(notSupportedField(path.child("kind"), kind, subjectKinds));
  }
  return errors;
}

/**
 * The rules of a binding beyond metadata (the reference's `ValidateRoleBinding` and
 * `ValidateClusterRoleBinding`), for create and update alike: `roleRef.apiGroup` the RBAC group
 * (NotSupported), `roleRef.kind` `Role` or `ClusterRole` (only `ClusterRole` for a
 * ClusterRoleBinding, `isNamespaced` false), `roleRef.name` required and a path segment name,
 * and every subject as {@link validateSubject}.
 */
export function validateRBACBinding(object: APIObject, isNamespaced: boolean, domain: string): FieldError[] {
  const errors: FieldError[] = [];
  const roleRef = record(object["roleRef"]) ?? {};
  const path = FieldPath.root("roleRef");
  const group = rbacGroup(domain);
  const apiGroup = str(roleRef["apiGroup"]);
  if (apiGroup !== group) errors.push(notSupportedField(path.child("apiGroup"), apiGroup, [group]));
  const kinds = isNamespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  const kind = str(roleRef["kind"]);
  if (!kinds.includes(kind)) errors.push(notSupportedField(path.child("kind"), kind, kinds));
  const name = str(roleRef["name"]);
  if (name === "") errors.push(requiredField(path.child("name")));
  else for (const problem of pathSegmentNameMessages(name)) errors.push(invalidField(path.child("name"), name, problem));
  records(object["subjects"]).forEach((subject, i) => errors.push(...validateSubject(subject, isNamespaced, FieldPath.root("subjects").index(i), domain)));
  return errors;
}

/** The rule an update of a binding adds: `roleRef` cannot change (`roleRef`: Invalid "cannot change roleRef"). */
export function validateRBACBindingUpdate(object: APIObject, old: APIObject): FieldError[] {
  if (jsonEqual(object["roleRef"] ?? {}, old["roleRef"] ?? {})) return [];
  return [invalidField("roleRef", object["roleRef"] ?? {}, "cannot change roleRef")];
}

/** The RoleBinding rules beyond metadata: {@link validateRBACBinding} of a namespaced binding. */
export function validateRoleBinding(object: APIObject, ctx: Pick<StrategyContext, "domain">): FieldError[] {
  return validateRBACBinding(object, true, ctx.domain);
}

/**
 * The reference's `BindingAuthorized`: whether `ctx.authorize` allows the caller to `bind` the
 * role `roleRef` names (`roles` or `clusterroles` of its `apiGroup`) in `namespace`, the
 * binding's (`""` for a ClusterRoleBinding). False without an authorizer or a user.
 */
export async function bindAuthorized(ctx: StrategyContext, roleRef: Record<string, unknown>, namespace: string): Promise<boolean> {
  if (!ctx.authorize || !ctx.user) return false;
  const kind = str(roleRef["kind"]);
  if (kind !== "Role" && kind !== "ClusterRole") return false;
  const decision = await ctx.authorize({
    user: ctx.user,
    verb: "bind",
    resourceRequest: true,
    apiGroup: str(roleRef["apiGroup"]),
    resource: kind === "Role" ? "roles" : "clusterroles",
    subresource: "",
    namespace,
    name: str(roleRef["name"]),
  });
  return decision.decision === "allow";
}

/**
 * The rules of the role `roleRef` names (the reference's `GetRoleReferenceRules`): a Role of
 * `namespace` or a ClusterRole, read with `ctx.get`; none without `ctx.get`.
 * @throws StatusError 404 NotFound when the role does not exist, as the reference answers.
 */
export async function roleReferenceRules(ctx: StrategyContext, roleRef: Record<string, unknown>, namespace: string): Promise<AccessPolicyRule[]> {
  const kind = str(roleRef["kind"]);
  if (!ctx.get || (kind !== "Role" && kind !== "ClusterRole")) return [];
  const role = await ctx.get(rbacGroup(ctx.domain), kind === "Role" ? "roles" : "clusterroles", kind === "Role" ? namespace : "", str(roleRef["name"]));
  return policyRulesOf(role["rules"]);
}

/**
 * The access check of a write of a RoleBinding or ClusterRoleBinding (`resource`), as the
 * reference's policy-based storage: passes without a user, for `system:masters`, for an update
 * that changes only garbage-collection fields, and when the caller may `bind` the role;
 * otherwise the caller must hold every rule of the referenced role.
 * @throws StatusError 403 Forbidden (`rolebindings.rbac.authorization.k8s.io "x" is forbidden:
 *   user "alice" (groups=[...]) is attempting to grant RBAC permissions not currently held: ...`),
 *   404 when the referenced role does not exist.
 */
export async function checkBindingWriteAccess(
  resource: "rolebindings" | "clusterrolebindings",
  object: APIObject,
  old: APIObject | undefined,
  ctx: StrategyContext,
): Promise<void> {
  if (escalationAllowed(ctx)) return;
  if (old && isOnlyMutatingGCFields(object, old)) return;
  const namespace = resource === "rolebindings" ? (object.metadata?.namespace ?? "") : "";
  const roleRef = record(object["roleRef"]) ?? {};
  if (await bindAuthorized(ctx, roleRef, namespace)) return;
  if (!ctx.uncoveredRules) return;
  const rules = await roleReferenceRules(ctx, roleRef, namespace);
  await confirmNoEscalation(ctx, resource, object.metadata?.name ?? "", namespace, rules);
}

/** The users, groups and service accounts (`namespace/name`) of a binding, as the reference's `SubjectsStrings`. */
export function subjectsStrings(object: APIObject): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of records(object["subjects"])) {
    if (s["kind"] === "ServiceAccount") out.serviceAccounts.push(`${str(s["namespace"])}/${str(s["name"])}`);
    else if (s["kind"] === "User") out.users.push(str(s["name"]));
    else if (s["kind"] === "Group") out.groups.push(str(s["name"]));
  }
  return out;
}

/**
 * The Table of a binding, as the reference's printer: Name, Role (`Role/name` or
 * `ClusterRole/name`), Age, and with `-o wide` Users, Groups and ServiceAccounts (joined by `, `).
 */
export const bindingTableColumns: readonly TableColumn[] = [
  nameColumn,
  {
    name: "Role",
    type: "string",
    description:
      "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
    priority: 0,
    cell: (o) => {
      const roleRef = record(o["roleRef"]) ?? {};
      return `${str(roleRef["kind"])}/${str(roleRef["name"])}`;
    },
  },
  ageColumn,
  { name: "Users", type: "string", description: "Users in the roleBinding", priority: 1, cell: (o) => subjectsStrings(o).users.join(", ") },
  { name: "Groups", type: "string", description: "Groups in the roleBinding", priority: 1, cell: (o) => subjectsStrings(o).groups.join(", ") },
  {
    name: "ServiceAccounts",
    type: "string",
    description: "ServiceAccounts in the roleBinding",
    priority: 1,
    cell: (o) => subjectsStrings(o).serviceAccounts.join(", "),
  },
];

/** The RoleBinding resource type. */
export const roleBindingType: ResourceType = {
  group: rbacGroupPattern,
  resource: "rolebindings",
  singular: "rolebinding",
  kind: "RoleBinding",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: roleBindingV1Schema, storage: true }],
  strategy: {
    nameIsPathSegment: true,
    defaults: (object, ctx) => defaultRBACBinding(object, ctx),
    validate: (object, ctx) => validateRoleBinding(object, ctx),
    validateUpdate: (object, old) => validateRBACBindingUpdate(object, old),
    checkWriteAccess: async (object, old, subresource, ctx) => {
      if (subresource === "") await checkBindingWriteAccess("rolebindings", object, old, ctx);
    },
    tableColumnsComplete: true,
    tableColumns: bindingTableColumns,
  },
};
