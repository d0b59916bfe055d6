/**
 * What MutatingWebhookConfiguration and ValidatingWebhookConfiguration share: the schemas of a
 * webhook per version (`v1`, `v1beta1`), the reference's validation of webhooks, the defaults of
 * each version, and the conversion between the versions.
 * @module
 */
import {
  duplicateField,
  FieldPath,
  invalidField,
  listType,
  notSupportedField,
  patchStrategy,
  requiredField,
  structType,
  tooManyField,
  validateQualifiedName,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import type { ResourceType, ResourceVersion, TableColumn } from "../resource-type.js";
import { atomicStrings, bytes, int32, named, stringMap } from "../schema/fields.js";
import { kindSchema } from "../schema/object-meta.js";
import {
  dns1035LabelProblems,
  list,
  strings,
  validateFullyQualifiedName,
  validateSelector,
  validateWebhookService,
  validateWebhookURL,
} from "./access-rules.js";
import { record } from "./rules.js";

/** The two served versions of admissionregistration. */
export type WebhookAPIVersion = "v1" | "v1beta1";

/** Which of the two webhook kinds. */
export type WebhookKind = "Mutating" | "Validating";

const labelSelectorRequirementSchema = named(
  z
    .object({
      key: z.string().optional().describe("key is the label key that the selector applies to."),
      operator: z.string().optional().describe("operator represents a key's relationship to a set of values: In, NotIn, Exists and DoesNotExist."),
      values: atomicStrings().optional().describe("values is an array of string values."),
    })
    .meta({ description: "A label selector requirement is a selector that contains values, a key, and an operator.", required: ["key", "operator"] }),
  "apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
);

/** `metav1.LabelSelector`, atomic as a struct, as the reference marks it. */
export const webhookLabelSelectorSchema = named(
  structType(
    z
      .object({
        matchExpressions: listType(z.array(labelSelectorRequirementSchema), "atomic")
          .optional()
          .describe("matchExpressions is a list of label selector requirements. The requirements are ANDed."),
        matchLabels: stringMap().optional().describe("matchLabels is a map of {key,value} pairs."),
      })
      .meta({ description: "A label selector is a label query over a set of resources." }),
    "atomic",
  ),
  "apimachinery.pkg.apis.meta.v1.LabelSelector",
);

function schemasOf(version: WebhookAPIVersion) {
  const prefix = `api.admissionregistration.${version}`;
  const serviceReference = named(
    z
      .object({
        name: z.string().optional().describe("`name` is the name of the service. Required"),
        namespace: z.string().optional().describe("`namespace` is the namespace of the service. Required"),
        path: z.string().optional().describe("`path` is an optional URL path which will be sent in any request to this service."),
        port: int32()
          .optional()
          .describe("If specified, the port on the service that hosting webhook. Default to 443. `port` should be a valid port number (1-65535, inclusive)."),
      })
      .meta({ description: "ServiceReference holds a reference to Service.legacy.k8s.io", required: ["namespace", "name"] }),
    `${prefix}.ServiceReference`,
  );
  const clientConfig = named(
    z
      .object({
        caBundle: bytes().optional().describe("`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate."),
        service: serviceReference.optional().describe("`service` is a reference to the service for this webhook. Either `service` or `url` must be specified."),
        url: z.string().optional().describe("`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`); https only."),
      })
      .meta({ description: "WebhookClientConfig contains the information to make a TLS connection with the webhook" }),
    `${prefix}.WebhookClientConfig`,
  );
  const rule = named(
    z
      .object({
        apiGroups: atomicStrings().optional().describe("APIGroups is the API groups the resources belong to. '*' is all groups."),
        apiVersions: atomicStrings().optional().describe("APIVersions is the API versions the resources belong to. '*' is all versions."),
        operations: atomicStrings()
          .optional()
          .describe("Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations."),
        resources: atomicStrings().optional().describe("Resources is a list of resources this rule applies to ('pods', 'pods/status', '*', '*/scale')."),
        scope: z.string().optional().describe('scope specifies the scope of this rule: "Cluster", "Namespaced" or "*" (the default).'),
      })
      .meta({ description: "RuleWithOperations is a tuple of Operations and Resources." }),
    `${prefix}.RuleWithOperations`,
  );
  const matchCondition = named(
    z
      .object({
        expression: z.string().optional().describe("Expression represents the expression which will be evaluated by CEL. Must evaluate to bool."),
        name: z.string().optional().describe("Name is an identifier for this match condition, used for strategic merging of MatchConditions."),
      })
      .meta({
        description: "MatchCondition represents a condition which must by fulfilled for a request to be sent to a webhook.",
        required: ["name", "expression"],
      }),
    `${prefix}.MatchCondition`,
  );
  return { clientConfig, rule, matchCondition };
}

const schemas = { v1: schemasOf("v1"), v1beta1: schemasOf("v1beta1") };

function webhookShape(version: WebhookAPIVersion, kind: WebhookKind) {
  const s = schemas[version];
  return {
    admissionReviewVersions: atomicStrings()
      .optional()
      .describe(
        version === "v1"
          ? "AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects. Required."
          : "AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects. Default to `['v1beta1']`.",
      ),
    clientConfig: s.clientConfig.optional().describe("ClientConfig defines how to communicate with the hook. Required"),
    failurePolicy: z
      .string()
      .optional()
      .describe(
        `FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail. Defaults to ${version === "v1" ? "Fail" : "Ignore"}.`,
      ),
    matchPolicy: z
      .string()
      .optional()
      .describe(
        `matchPolicy defines how the "rules" list is used to match incoming requests: "Exact" or "Equivalent". Defaults to "${version === "v1" ? "Equivalent" : "Exact"}".`,
      ),
    name: z.string().optional().describe('The name of the admission webhook, fully qualified ("imagepolicy.example.com"). Required.'),
    namespaceSelector: webhookLabelSelectorSchema
      .optional()
      .describe("NamespaceSelector decides whether to run the webhook on an object based on whether the namespace for that object matches the selector."),
    objectSelector: webhookLabelSelectorSchema
      .optional()
      .describe("ObjectSelector decides whether to run the webhook based on if the object has matching labels."),
    ...(kind === "Mutating"
      ? {
          reinvocationPolicy: z
            .string()
            .optional()
            .describe(
              'reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single admission evaluation: "Never" (the default) or "IfNeeded".',
            ),
        }
      : {}),
    rules: listType(z.array(s.rule), "atomic").optional().describe("Rules describes what operations on what resources/subresources the webhook cares about."),
    sideEffects: z
      .string()
      .optional()
      .describe(
        version === "v1"
          ? "SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun."
          : "SideEffects states whether this webhook has side effects. Acceptable values are: Unknown, None, Some, NoneOnDryRun. Defaults to Unknown.",
      ),
    timeoutSeconds: int32()
      .optional()
      .describe(`TimeoutSeconds specifies the timeout for this webhook (1 to 30 seconds). Default to ${version === "v1" ? 10 : 30} seconds.`),
    ...(version === "v1"
      ? {
          matchConditions: patchStrategy(listType(z.array(s.matchCondition), "map", ["name"]), "merge", "name")
            .optional()
            .describe("MatchConditions is a list of conditions that must be met for a request to be sent to this webhook (at most 64)."),
        }
      : {}),
  };
}

/** The schema of one webhook of `kind` in `version`. */
export function webhookSchema(version: WebhookAPIVersion, kind: WebhookKind) {
  return named(
    z.object(webhookShape(version, kind)).meta({
      description: `${kind}Webhook describes an admission webhook and the resources and operations it applies to.`,
      required: ["name", "clientConfig"],
    }),
    `api.admissionregistration.${version}.${kind}Webhook`,
  );
}

/** The object schema of `<kind>WebhookConfiguration` in `version`: `webhooks` a map list keyed by `name`. */
export function webhookConfigurationSchema(version: WebhookAPIVersion, kind: WebhookKind) {
  return kindSchema(
    {
      webhooks: patchStrategy(listType(z.array(webhookSchema(version, kind)), "map", ["name"]), "merge", "name")
        .optional()
        .describe(`Webhooks is a list of webhooks and the affected resources and operations.`),
    },
    `${kind}WebhookConfiguration describes the configuration of and admission webhook that ${kind === "Mutating" ? "accept or reject and may change" : "accept or reject"} the object.`,
  );
}

// ---------------------------------------------------------------------------------------------
// Defaults

/**
 * The defaults of one version (the reference's `SetDefaults_*Webhook`, `SetDefaults_Rule`,
 * `SetDefaults_ServiceReference`). `v1`: failurePolicy `Fail`, matchPolicy `Equivalent`,
 * timeoutSeconds 10. `v1beta1`: failurePolicy `Ignore`, matchPolicy `Exact`, sideEffects
 * `Unknown`, timeoutSeconds 30, admissionReviewVersions `["v1beta1"]`. Both: empty selectors,
 * rule scope `*`, service port 443, reinvocationPolicy `Never` for mutating webhooks.
 */
export function defaultWebhooks(object: APIObject, version: WebhookAPIVersion, kind: WebhookKind): void {
  for (const item of list(object["webhooks"])) {
    const hook = record(item);
    if (!hook) continue;
    hook["failurePolicy"] ??= version === "v1" ? "Fail" : "Ignore";
    hook["matchPolicy"] ??= version === "v1" ? "Equivalent" : "Exact";
    hook["namespaceSelector"] ??= {};
    hook["objectSelector"] ??= {};
    hook["timeoutSeconds"] ??= version === "v1" ? 10 : 30;
    if (version === "v1beta1") {
      hook["sideEffects"] ??= "Unknown";
      if (list(hook["admissionReviewVersions"]).length === 0) hook["admissionReviewVersions"] = ["v1beta1"];
    }
    if (kind === "Mutating") hook["reinvocationPolicy"] ??= "Never";
    for (const r of list(hook["rules"])) {
      const rule = record(r);
      if (rule) rule["scope"] ??= "*";
    }
    const service = record(record(hook["clientConfig"])?.["service"]);
    if (service) service["port"] ??= 443;
  }
}

// ---------------------------------------------------------------------------------------------
// Conversion

/**
 * The annotation that carries, on a `v1beta1` object, the `v1`-only `matchConditions` of each
 * webhook (JSON: webhook name to its conditions), so a round trip through `v1beta1` loses none.
 */
export function matchConditionsAnnotation(domain: string): string {
  return `admissionregistration.${domain}/v1-match-conditions`;
}

// The product domain of an object's apiVersion (`admissionregistration.k8s.io/v1` -> `k8s.io`).
function domainOf(object: APIObject): string {
  const group = (object.apiVersion ?? "").split("/")[0] ?? "";
  return group.startsWith("admissionregistration.") ? group.slice("admissionregistration.".length) : "orch.io";
}

function withAPIVersion(object: APIObject, version: WebhookAPIVersion): APIObject {
  const copy = structuredClone(object);
  copy.apiVersion = `admissionregistration.${domainOf(object)}/${version}`;
  return copy;
}

/** Objects the `v1beta1` conversion produced: their create is validated by `v1beta1`'s rules. */
const throughV1beta1 = new WeakSet<object>();

/**
 * Converts a `v1beta1` object to `v1` (storage): the shapes are the same but for `v1`'s
 * `matchConditions`, restored from {@link matchConditionsAnnotation}. The result is remembered
 * as written through `v1beta1`, so its create is validated by that version's looser rules.
 */
export function webhooksToStorage(object: APIObject): APIObject {
  const out = withAPIVersion(object, "v1");
  const key = matchConditionsAnnotation(domainOf(object));
  const annotations = out.metadata?.annotations;
  const carried = annotations?.[key];
  if (annotations && carried !== undefined) {
    delete annotations[key];
    if (Object.keys(annotations).length === 0) delete out.metadata.annotations;
    let byName: Record<string, unknown>;
    try {
      byName = record(JSON.parse(carried)) ?? {};
    } catch {
      byName = {};
    }
    for (const item of list(out["webhooks"])) {
      const hook = record(item);
      const name = hook?.["name"];
      if (hook && typeof name === "string" && Array.isArray(byName[name])) hook["matchConditions"] = byName[name];
    }
  }
  throughV1beta1.add(out);
  return out;
}

/** Converts a stored `v1` object to `v1beta1`, moving `matchConditions` into {@link matchConditionsAnnotation}. */
export function webhooksFromStorage(object: APIObject): APIObject {
  const out = withAPIVersion(object, "v1beta1");
  const carried: Record<string, unknown> = {};
  for (const item of list(out["webhooks"])) {
    const hook = record(item);
    if (!hook || hook["matchConditions"] === undefined) continue;
    if (typeof hook["name"] === "string") carried[hook["name"]] = hook["matchConditions"];
    delete hook["matchConditions"];
  }
  if (Object.keys(carried).length) {
    out.metadata = { ...(out.metadata ?? {}) };
    out.metadata.annotations = { ...(out.metadata.annotations ?? {}), [matchConditionsAnnotation(domainOf(object))]: JSON.stringify(carried) };
  }
  return out;
}

/** True when `object` came from {@link webhooksToStorage} (a write through `v1beta1`). */
export function writtenThroughV1beta1(object: APIObject): boolean {
  return throughV1beta1.has(object);
}

// ---------------------------------------------------------------------------------------------
// Validation

/** The AdmissionReview versions this server understands. */
export const acceptedAdmissionReviewVersions = ["v1", "v1beta1"] as const;

const supportedOperations = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const supportedScopes = ["*", "Cluster", "Namespaced"];
const supportedFailurePolicies = ["Fail", "Ignore"];
const supportedMatchPolicies = ["Equivalent", "Exact"];
const supportedSideEffects = ["None", "NoneOnDryRun", "Some", "Unknown"];
const noSideEffects = ["None", "NoneOnDryRun"];
const supportedReinvocationPolicies = ["IfNeeded", "Never"];
/** The most match conditions one webhook may have. */
export const maxMatchConditions = 64;

/** Which of the reference's rules apply to one write (they relax for objects that predate them). */
export interface WebhookValidationOptions {
  /** sideEffects must be `None` or `NoneOnDryRun` (`v1` writes). */
  requireNoSideEffects: boolean;
  /** admissionReviewVersions must name one this server understands. */
  requireRecognizedAdmissionReviewVersion: boolean;
  /** Webhook names must be unique (`v1` writes). */
  requireUniqueWebhookNames: boolean;
}

/** The options of a create: `v1` rules, or `v1beta1`'s for an object written through `v1beta1`. */
export function createOptions(object: APIObject): WebhookValidationOptions {
  const v1 = !writtenThroughV1beta1(object);
  return { requireNoSideEffects: v1, requireRecognizedAdmissionReviewVersion: true, requireUniqueWebhookNames: v1 };
}

/**
 * The options of an update, as the reference relaxes them: the side-effect and unique-name rules
 * hold only when the old object already kept them, and the review-version rule only when every
 * old webhook named a recognized version.
 */
export function updateOptions(object: APIObject, old: APIObject): WebhookValidationOptions {
  const v1 = !writtenThroughV1beta1(object);
  const oldHooks = list(old["webhooks"]).map((h) => record(h) ?? {});
  const names = oldHooks.map((h) => h["name"]);
  return {
    requireNoSideEffects: v1 && oldHooks.every((h) => noSideEffects.includes(String(h["sideEffects"]))),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) =>
      strings(h["admissionReviewVersions"]).some((v) => (acceptedAdmissionReviewVersions as readonly string[]).includes(v)),
    ),
    requireUniqueWebhookNames: v1 && new Set(names).size === names.length,
  };
}

function validateResources(resources: string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(requiredField(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === "") {
      errors.push(requiredField(path.index(i)));
      return;
    }
    if (resSub === "*/*") doubleWildcard = true;
    if (resSub === "*") singleWildcard = true;
    const slash = resSub.indexOf("/");
    if (slash < 0) {
      withoutSub = resSub !== "*";
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errors.push(invalidField(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errors.push(invalidField(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === "*") withWildcardSub.add(res);
    if (res === "*") subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errors.push(invalidField(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errors.push(invalidField(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errors;
}

/** The reference's `validateRuleWithOperations` for the rule at `path`. */
export function validateRule(rule: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const operations = strings(rule["operations"]);
  if (operations.length === 0) errors.push(requiredField(path.child("operations")));
  if (operations.length > 1 && operations.includes("*")) {
    errors.push(invalidField(path.child("operations"), operations, "if '*' is present, must not specify other operations"));
  }
  operations.forEach((op, i) => {
    if (!supportedOperations.includes(op)) errors.push(notSupportedField(path.child("operations").index(i), op, supportedOperations));
  });
  const groups = strings(rule["apiGroups"]);
  if (groups.length === 0) errors.push(requiredField(path.child("apiGroups")));
  if (groups.length > 1 && groups.includes("*"))
    errors.push(invalidField(path.child("apiGroups"), groups, "if '*' is present, must not specify other API groups"));
  const versions = strings(rule["apiVersions"]);
  if (versions.length === 0) errors.push(requiredField(path.child("apiVersions")));
  if (versions.length > 1 && versions.includes("*"))
    errors.push(invalidField(path.child("apiVersions"), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === "") errors.push(requiredField(path.child("apiVersions").index(i)));
  });
  errors.push(...validateResources(strings(rule["resources"]), path.child("resources")));
  const scope = rule["scope"];
  if (typeof scope === "string" && !supportedScopes.includes(scope)) errors.push(notSupportedField(path.child("scope"), scope, supportedScopes));
  return errors;
}

function validateAdmissionReviewVersions(versions: string[], requireRecognized: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (versions.length === 0) {
    errors.push(requiredField(path, `must specify one of ${acceptedAdmissionReviewVersions.join(", ")}`));
    return errors;
  }
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errors.push(invalidField(path.index(i), v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const problem of dns1035LabelProblems(v)) errors.push(invalidField(path.index(i), v, problem));
    if ((acceptedAdmissionReviewVersions as readonly string[]).includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) {
    errors.push(invalidField(path, versions, `must include at least one of ${acceptedAdmissionReviewVersions.join(", ")}`));
  }
  return errors;
}

function validateMatchConditions(conditions: unknown[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > maxMatchConditions) errors.push(tooManyField(path, conditions.length, maxMatchConditions));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const condition = record(c) ?? {};
    const at = path.index(i);
    const name = typeof condition["name"] === "string" ? condition["name"] : "";
    if (name === "") errors.push(requiredField(at.child("name")));
    else {
      errors.push(...validateQualifiedName(name, at.child("name")));
      if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
      names.add(name);
    }
    const expression = typeof condition["expression"] === "string" ? condition["expression"] : "";
    if (expression.trim() === "") errors.push(requiredField(at.child("expression")));
  });
  return errors;
}

function validateWebhook(hook: Record<string, unknown>, kind: WebhookKind, opts: WebhookValidationOptions, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  errors.push(...validateFullyQualifiedName(typeof hook["name"] === "string" ? hook["name"] : "", path.child("name")));
  list(hook["rules"]).forEach((r, i) => errors.push(...validateRule(record(r) ?? {}, path.child("rules").index(i))));
  const failurePolicy = hook["failurePolicy"];
  if (typeof failurePolicy === "string" && !supportedFailurePolicies.includes(failurePolicy)) {
    errors.push(notSupportedField(path.child("failurePolicy"), failurePolicy, supportedFailurePolicies));
  }
  const matchPolicy = hook["matchPolicy"];
  if (typeof matchPolicy === "string" && !supportedMatchPolicies.includes(matchPolicy)) {
    errors.push(notSupportedField(path.child("matchPolicy"), matchPolicy, supportedMatchPolicies));
  }
  const allowedSideEffects = opts.requireNoSideEffects ? noSideEffects : supportedSideEffects;
  const sideEffects = hook["sideEffects"];
  if (typeof sideEffects !== "string") {
    errors.push(requiredField(path.child("sideEffects"), `must specify one of ${allowedSideEffects.join(", ")}`));
  } else if (!allowedSideEffects.includes(sideEffects)) {
    errors.push(notSupportedField(path.child("sideEffects"), sideEffects, allowedSideEffects));
  }
  const timeout = hook["timeoutSeconds"];
  if (typeof timeout === "number" && (timeout > 30 || timeout < 1)) {
    errors.push(invalidField(path.child("timeoutSeconds"), timeout, "the timeout value must be between 1 and 30 seconds"));
  }
  if (kind === "Mutating") {
    const policy = hook["reinvocationPolicy"];
    if (typeof policy === "string" && !supportedReinvocationPolicies.includes(policy)) {
      errors.push(notSupportedField(path.child("reinvocationPolicy"), policy, supportedReinvocationPolicies));
    }
  }
  errors.push(...validateSelector(hook["namespaceSelector"], path.child("namespaceSelector")));
  errors.push(...validateSelector(hook["objectSelector"], path.child("objectSelector")));
  const cc = record(hook["clientConfig"]) ?? {};
  const url = cc["url"];
  const service = record(cc["service"]);
  const ccPath = path.child("clientConfig");
  if ((typeof url === "string") === (service !== undefined)) errors.push(requiredField(ccPath, "exactly one of url or service is required"));
  else if (typeof url === "string") errors.push(...validateWebhookURL(ccPath.child("url"), url, true));
  else if (service) errors.push(...validateWebhookService(ccPath.child("service"), service));
  if (hook["matchConditions"] !== undefined) errors.push(...validateMatchConditions(list(hook["matchConditions"]), path.child("matchConditions")));
  return errors;
}

/**
 * The reference's validation of a webhook configuration's `webhooks` (metadata is the
 * server's): each webhook's name, rules, policies, timeout, selectors, client config and match
 * conditions, its `admissionReviewVersions`, and (per `opts`) unique names.
 */
export function validateWebhookConfiguration(object: APIObject, kind: WebhookKind, opts: WebhookValidationOptions): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  const base = FieldPath.root("webhooks");
  list(object["webhooks"]).forEach((item, i) => {
    const hook = record(item) ?? {};
    const at = base.index(i);
    errors.push(...validateWebhook(hook, kind, opts, at));
    errors.push(
      ...validateAdmissionReviewVersions(
        strings(hook["admissionReviewVersions"]),
        opts.requireRecognizedAdmissionReviewVersion,
        at.child("admissionReviewVersions"),
      ),
    );
    const name = hook["name"];
    if (opts.requireUniqueWebhookNames && typeof name === "string" && name !== "") {
      if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
      else names.add(name);
    }
  });
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Versions and table

/** The two served versions of a webhook configuration kind: `v1` (storage) and `v1beta1` (deprecated). */
function webhookVersions(kind: WebhookKind, v1: z.ZodType, v1beta1: z.ZodType): ResourceVersion[] {
  return [
    { name: "v1", schema: v1, storage: true, defaults: (object: APIObject) => defaultWebhooks(object, "v1", kind) },
    {
      name: "v1beta1",
      schema: v1beta1,
      storage: false,
      deprecated: true,
      removedRelease: "1.22",
      defaults: (object: APIObject) => defaultWebhooks(object, "v1beta1", kind),
      toStorage: webhooksToStorage,
      fromStorage: webhooksFromStorage,
    },
  ];
}

/** The Table column the reference prints for both kinds: WEBHOOKS, the number of webhooks. */
const webhooksColumn: TableColumn = {
  name: "Webhooks",
  type: "integer",
  description: "Webhooks indicates the number of webhooks in the configuration.",
  priority: 0,
  cell: (object) => list(object["webhooks"]).length,
};

/**
 * The resource type of `<kind>WebhookConfiguration` (`admissionregistration.{domain}`,
 * cluster-scoped, category `api-extensions`): `v1` stored and `v1beta1` served with their own
 * defaults, the create rules of {@link createOptions} and the relaxed update rules of
 * {@link updateOptions}, and the WEBHOOKS column.
 */
export function webhookConfigurationType(kind: WebhookKind, v1: z.ZodType, v1beta1: z.ZodType): ResourceType {
  const singular = `${kind.toLowerCase()}webhookconfiguration`;
  return {
    group: "admissionregistration.{domain}",
    resource: `${singular}s`,
    singular,
    kind: `${kind}WebhookConfiguration`,
    categories: ["api-extensions"],
    scope: "Cluster",
    versions: webhookVersions(kind, v1, v1beta1),
    strategy: {
      // The server runs validate on updates too; there the relaxed rules of validateUpdate apply
      // instead (an object being updated carries the resourceVersion it was read at).
      validate: (object) => (object.metadata?.resourceVersion ? [] : validateWebhookConfiguration(object, kind, createOptions(object))),
      validateUpdate: (object, old) => validateWebhookConfiguration(object, kind, updateOptions(object, old)),
      tableColumns: [webhooksColumn],
    },
  };
}
