/**
 * FlowSchema (`flowcontrol.apiserver.{domain}/v1beta2`, cluster-scoped, sub-resource `status`):
 * classifies requests into priority levels. `matchingPrecedence` is 1 to 10000 (default 1000;
 * 1 only for the schema named `exempt`); each rule needs subjects and at least one resource or
 * non-resource rule, with `*` allowed only alone.
 * @module
 */
import {
  FieldPath,
  forbiddenField,
  invalidField,
  listType,
  notSupportedField,
  requiredField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { child, findCondition, flowControlStatusSchemas, statusHooks, validateConditionTypes } from "./internal/cluster-rules.js";
import { record, str, strings } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { int32, named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

const setOf = (description: string) => listType(z.array(z.string()), "set").optional().describe(description);

/** `UserSubject`. */
export const userSubjectSchema = named(
  z.object({ name: z.string().optional().describe("The user name that matches, or `*` to match all usernames.") }).meta({
    description: "UserSubject holds detailed information for user-kind subject.",
    required: ["name"],
  }),
  "api.flowcontrol.v1beta2.UserSubject",
);

/** `GroupSubject`. */
export const groupSubjectSchema = named(
  z.object({ name: z.string().optional().describe("The user group that matches, or `*` to match all user groups.") }).meta({
    description: "GroupSubject holds detailed information for group-kind subject.",
    required: ["name"],
  }),
  "api.flowcontrol.v1beta2.GroupSubject",
);

/** `ServiceAccountSubject`. */
export const serviceAccountSubjectSchema = named(
  z
    .object({
      name: z.string().optional().describe("The name of matching ServiceAccount objects, or `*` to match regardless of name."),
      namespace: z.string().optional().describe("The namespace of matching ServiceAccount objects. Required."),
    })
    .meta({ description: "ServiceAccountSubject holds detailed information for service-account-kind subject.", required: ["namespace", "name"] }),
  "api.flowcontrol.v1beta2.ServiceAccountSubject",
);

/** `Subject`: a user, group or service account, by `kind`. */
export const flowSchemaSubjectSchema = named(
  z
    .object({
      group: groupSubjectSchema.optional().describe("group matches based on user group name."),
      kind: z.string().optional().describe("kind indicates which one of the other fields is non-empty: User, Group or ServiceAccount."),
      serviceAccount: serviceAccountSubjectSchema.optional().describe("serviceAccount matches ServiceAccounts."),
      user: userSubjectSchema.optional().describe("user matches based on username."),
    })
    .meta({ description: "Subject matches the originator of a request, as identified by the request authentication system.", required: ["kind"] }),
  "api.flowcontrol.v1beta2.Subject",
);

/** `ResourcePolicyRule`. */
export const resourcePolicyRuleSchema = named(
  z
    .object({
      apiGroups: setOf("The API groups that match, or `*` alone to match all."),
      clusterScope: z.boolean().optional().describe("Whether the rule matches requests that do not specify a namespace."),
      namespaces: setOf("The target namespaces that match; `*` alone matches any specified namespace but not an unspecified one."),
      resources: setOf("The matching resources (lowercase plural, optionally with a sub-resource), or `*` alone."),
      verbs: setOf("The matching verbs, or `*` alone to match all verbs."),
    })
    .meta({
      description: "ResourcePolicyRule is a predicate that matches some resource requests.",
      required: ["verbs", "apiGroups", "resources"],
    }),
  "api.flowcontrol.v1beta2.ResourcePolicyRule",
);

/** `NonResourcePolicyRule`. */
export const nonResourcePolicyRuleSchema = named(
  z
    .object({
      nonResourceURLs: setOf("The URL paths (prefix globs such as `/healthz/*`) that match, or `*` alone."),
      verbs: setOf("The matching verbs, or `*` alone to match all verbs."),
    })
    .meta({ description: "NonResourcePolicyRule is a predicate that matches non-resource requests.", required: ["verbs", "nonResourceURLs"] }),
  "api.flowcontrol.v1beta2.NonResourcePolicyRule",
);

/** `PolicyRulesWithSubjects`: one rule of a FlowSchema. */
export const policyRulesWithSubjectsSchema = named(
  z
    .object({
      nonResourceRules: listType(z.array(nonResourcePolicyRuleSchema), "atomic").optional().describe("Non-resource URLs the rule matches."),
      resourceRules: listType(z.array(resourcePolicyRuleSchema), "atomic").optional().describe("Resource requests the rule matches."),
      subjects: listType(z.array(flowSchemaSubjectSchema), "atomic")
        .optional()
        .describe("The normal user, serviceaccount or group this rule cares about; at least one."),
    })
    .meta({ description: "PolicyRulesWithSubjects prescribes a test that applies to a request to an apiserver.", required: ["subjects"] }),
  "api.flowcontrol.v1beta2.PolicyRulesWithSubjects",
);

/** `FlowSchemaSpec`. */
export const flowSchemaSpecSchema = named(
  z
    .object({
      distinguisherMethod: z
        .object({ type: z.string().optional().describe("ByUser or ByNamespace. Required.") })
        .meta({ description: "FlowDistinguisherMethod specifies the method of a flow distinguisher.", required: ["type"] })
        .optional()
        .describe("How to compute the flow distinguisher; nil disables it."),
      matchingPrecedence: int32().optional().describe("1 to 10000, default 1000; the matching schema with the smallest number wins."),
      priorityLevelConfiguration: z
        .object({ name: z.string().optional().describe("The name of the priority level configuration being referenced. Required.") })
        .meta({ description: "PriorityLevelConfigurationReference contains information that points to the priority-level being used.", required: ["name"] })
        .optional()
        .describe("The priority level configuration the matching requests go to."),
      rules: listType(z.array(policyRulesWithSubjectsSchema), "atomic").optional().describe("The rules of the schema; empty matches nothing."),
    })
    .meta({ description: "FlowSchemaSpec describes how the FlowSchema's specification looks like.", required: ["priorityLevelConfiguration"] }),
  "api.flowcontrol.v1beta2.FlowSchemaSpec",
);

const flowSchemaStatusSchemas = flowControlStatusSchemas("FlowSchema", {
  condition: "FlowSchemaCondition describes conditions for a FlowSchema.",
  conditionType: "The type of the condition (Dangling).",
  status: "FlowSchemaStatus represents the current state of a FlowSchema.",
  conditions: "The current states of the FlowSchema.",
});
/** `FlowSchemaCondition`. */
export const flowSchemaConditionSchema = flowSchemaStatusSchemas.condition;
/** `FlowSchemaStatus`. */
export const flowSchemaStatusSchema = flowSchemaStatusSchemas.status;

/** The zod schema of a FlowSchema in `v1beta2`. */
export const flowSchemaV1beta2Schema = kindSchema(
  {
    spec: flowSchemaSpecSchema.optional().describe("The specification of the FlowSchema."),
    status: flowSchemaStatusSchema.optional().describe("The current status of the FlowSchema."),
  },
  "FlowSchema defines the schema of a group of flows.",
);

/** The most `spec.matchingPrecedence` may be. */
export const flowSchemaMaxMatchingPrecedence = 10000;
/** The verbs a rule may name (sorted, as the reference lists them). */
export const flowSchemaVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"] as const;
/** The subject kinds (sorted). */
export const flowSchemaSubjectKinds = ["Group", "ServiceAccount", "User"] as const;
/** The distinguisher methods (sorted). */
export const flowDistinguisherMethods = ["ByNamespace", "ByUser"] as const;

/** The defaults of `v1beta2`: `spec.matchingPrecedence` 1000 when unset or 0. */
export function defaultFlowSchema(object: APIObject): void {
  const spec = child(object, "spec");
  if (spec["matchingPrecedence"] === undefined || spec["matchingPrecedence"] === 0) spec["matchingPrecedence"] = 1000;
}

function validateVerbs(verbs: string[], path: FieldPath): FieldError[] {
  if (verbs.length === 0) return [requiredField(path, "verbs must contain at least one value")];
  if (verbs.includes("*")) return verbs.length > 1 ? [invalidField(path, verbs, "if '*' is present, must not specify other verbs")] : [];
  if (!verbs.every((v) => (flowSchemaVerbs as readonly string[]).includes(v))) return [notSupportedField(path, verbs, flowSchemaVerbs)];
  return [];
}

function nonResourceURLError(url: string, path: FieldPath): FieldError[] {
  const bad = (msg: string) => [invalidField(path, url, msg)];
  if (url === "") return bad("must not be empty");
  if (url === "/") return [];
  if (!url.startsWith("/")) return bad("must start with slash");
  if (url.includes(" ")) return bad("must not contain white-space");
  if (url.includes("//")) return bad("must not contain double slash");
  const wildcards = url.split("*").length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith("/*"))) return bad("wildcard can only do suffix glob matching");
  return [];
}

function validateSubject(subject: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const kind = str(subject["kind"]);
  const forbid = (field: "user" | "group" | "serviceAccount", kindName: string) => {
    if (subject[field] !== undefined) errors.push(forbiddenField(path.child(field), `${field} is forbidden when subject kind is not '${kindName}'`));
  };
  switch (kind) {
    case "ServiceAccount": {
      const sa = record(subject["serviceAccount"]);
      const at = path.child("serviceAccount");
      if (!sa) errors.push(requiredField(at, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = str(sa["name"]);
        if (name === "") errors.push(requiredField(at.child("name")));
        else if (name !== "*") errors.push(...validateDNS1123Subdomain(name, at.child("name")));
        const namespace = str(sa["namespace"]);
        if (namespace === "") errors.push(requiredField(at.child("namespace"), "must specify namespace for service account"));
        else errors.push(...validateDNS1123Label(namespace, at.child("namespace")));
      }
      forbid("user", "User");
      forbid("group", "Group");
      break;
    }
    case "User":
    case "Group": {
      const field = kind === "User" ? "user" : "group";
      const named = record(subject[field]);
      if (!named) errors.push(requiredField(path.child(field), `${field} is required when subject kind is '${kind}'`));
      else if (str(named["name"]) === "") errors.push(requiredField(path.child(field).child("name")));
      forbid("serviceAccount", "ServiceAccount");
      forbid(kind === "User" ? "group" : "user", kind === "User" ? "Group" : "User");
      break;
    }
    default:
      errors.push(notSupportedField(path.child("kind"), kind, flowSchemaSubjectKinds));
  }
  return errors;
}

function validateResourceRule(rule: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors = validateVerbs(strings(rule["verbs"]), path.child("verbs"));
  const onlyStar = (key: string, what: string, requiredMsg: string) => {
    const list = strings(rule[key]);
    if (list.length === 0) errors.push(requiredField(path.child(key), requiredMsg));
    else if (list.length > 1 && list.includes("*")) errors.push(invalidField(path.child(key), list, `if '*' is present, must not specify other ${what}`));
  };
  onlyStar("apiGroups", "api groups", "resource rules must supply at least one api group");
  onlyStar("resources", "resources", "resource rules must supply at least one resource");
  const namespaces = strings(rule["namespaces"]);
  const nsPath = path.child("namespaces");
  if (namespaces.length === 0 && rule["clusterScope"] !== true) {
    errors.push(requiredField(nsPath, "resource rules that are not cluster scoped must supply at least one namespace"));
  } else if (namespaces.includes("*")) {
    if (namespaces.length > 1) errors.push(invalidField(nsPath, namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const e of validateDNS1123Label(ns, nsPath.index(i))) {
        errors.push(invalidField(nsPath.index(i), ns, `each member of this list must be '*' or a DNS-1123 label; ${e.detail}`));
      }
    });
  }
  return errors;
}

function validateNonResourceRule(rule: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors = validateVerbs(strings(rule["verbs"]), path.child("verbs"));
  const urls = strings(rule["nonResourceURLs"]);
  const urlPath = path.child("nonResourceURLs");
  if (urls.length === 0) errors.push(requiredField(urlPath, "nonResourceURLs must contain at least one value"));
  else if (urls.includes("*")) {
    if (urls.length > 1) errors.push(invalidField(urlPath, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else urls.forEach((url, i) => errors.push(...nonResourceURLError(url, urlPath.index(i))));
  return errors;
}

function validateRule(rule: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const subjects = Array.isArray(rule["subjects"]) ? rule["subjects"] : [];
  if (subjects.length === 0) errors.push(requiredField(path.child("subjects"), "subjects must contain at least one value"));
  subjects.forEach((s, i) => errors.push(...validateSubject(record(s) ?? {}, path.child("subjects").index(i))));
  const resourceRules = Array.isArray(rule["resourceRules"]) ? rule["resourceRules"] : [];
  const nonResourceRules = Array.isArray(rule["nonResourceRules"]) ? rule["nonResourceRules"] : [];
  if (resourceRules.length === 0 && nonResourceRules.length === 0) {
    errors.push(requiredField(path, "at least one of resourceRules and nonResourceRules has to be non-empty"));
  }
  resourceRules.forEach((r, i) => errors.push(...validateResourceRule(record(r) ?? {}, path.child("resourceRules").index(i))));
  nonResourceRules.forEach((r, i) => errors.push(...validateNonResourceRule(record(r) ?? {}, path.child("nonResourceRules").index(i))));
  return errors;
}

/**
 * The FlowSchema rules beyond metadata, for create, update and status writes alike:
 * `spec.matchingPrecedence` 1 to 10000 (1 only for `exempt`), `spec.distinguisherMethod.type`
 * supported, `spec.priorityLevelConfiguration.name` required and a DNS subdomain, every rule's
 * subjects and resource/non-resource rules, and unique non-empty `status.conditions[].type`.
 */
export function validateFlowSchema(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const precedence = typeof spec["matchingPrecedence"] === "number" ? spec["matchingPrecedence"] : 0;
  const precedencePath = path.child("matchingPrecedence");
  if (precedence <= 0) errors.push(invalidField(precedencePath, precedence, "must be a positive value"));
  if (precedence > flowSchemaMaxMatchingPrecedence)
    errors.push(invalidField(precedencePath, precedence, `must not be greater than ${flowSchemaMaxMatchingPrecedence}`));
  if (precedence === 1 && object.metadata?.name !== "exempt") {
    errors.push(invalidField(precedencePath, precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  }
  const distinguisher = record(spec["distinguisherMethod"]);
  if (distinguisher) {
    const type = str(distinguisher["type"]);
    if (!(flowDistinguisherMethods as readonly string[]).includes(type)) {
      errors.push(notSupportedField(path.child("distinguisherMethod").child("type"), type, flowDistinguisherMethods));
    }
  }
  const plName = str(record(spec["priorityLevelConfiguration"])?.["name"]);
  const plPath = path.child("priorityLevelConfiguration").child("name");
  if (plName === "") errors.push(requiredField(plPath, "must reference a priority level"));
  else errors.push(...validateDNS1123Subdomain(plName, plPath));
  const rules = Array.isArray(spec["rules"]) ? spec["rules"] : [];
  rules.forEach((r, i) => errors.push(...validateRule(record(r) ?? {}, path.child("rules").index(i))));
  errors.push(...validateConditionTypes(object));
  return errors;
}

const hooks = statusHooks(() => ({}));

/** The FlowSchema resource type. */
export const flowSchemaType: ResourceType = {
  group: "flowcontrol.apiserver.{domain}",
  resource: "flowschemas",
  singular: "flowschema",
  kind: "FlowSchema",
  scope: "Cluster",
  versions: [{ name: "v1beta2", schema: flowSchemaV1beta2Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    defaults: (object) => defaultFlowSchema(object),
    prepareForCreate: hooks.prepareForCreate,
    prepareForUpdate: hooks.prepareForUpdate,
    validate: (object) => validateFlowSchema(object),
    tableColumns: [
      {
        name: "PriorityLevel",
        type: "string",
        description: "The priority level configuration the matching requests go to.",
        priority: 0,
        cell: (object) => str(record(record(object["spec"])?.["priorityLevelConfiguration"])?.["name"]),
      },
      {
        name: "MatchingPrecedence",
        type: "string",
        description: "The precedence of this schema among the matching ones; the smallest wins.",
        priority: 0,
        cell: (object) => String(record(object["spec"])?.["matchingPrecedence"] ?? ""),
      },
      {
        name: "DistinguisherMethod",
        type: "string",
        description: "How flows are distinguished.",
        priority: 0,
        cell: (object) => str(record(record(object["spec"])?.["distinguisherMethod"])?.["type"]) || "<none>",
      },
      {
        name: "MissingPL",
        type: "string",
        description: "Whether the referenced priority level is missing (the Dangling condition).",
        priority: 0,
        cell: (object) => str(findCondition(object, "Dangling")?.["status"]) || "?",
      },
    ],
  },
};
