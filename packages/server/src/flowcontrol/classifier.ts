/**
 * The classifier of API Priority and Fairness: which FlowSchema a request matches (the one of
 * smallest `matchingPrecedence`, then name), the priority level it leads to, and the request's
 * flow distinguisher.
 * @module
 */
import type { UserInfo } from "@orch/authn";
import type { APIObject } from "@orch/meta";

/** What the classifier needs of a request. */
export interface RequestDigest {
  user: UserInfo;
  isResourceRequest: boolean;
  /** The resource verb (`get`, `list`, `watch`, `create`...) or the lower-cased method of a non-resource request. */
  verb: string;
  /** The API group (`""` for core); resource requests only. */
  apiGroup?: string;
  /** The resource; resource requests only. */
  resource?: string;
  /** The sub-resource, `""` for none. */
  subresource?: string;
  /** The namespace, `""` for a cluster-scoped or all-namespaces request. */
  namespace?: string;
  /** The path of a non-resource request. */
  path?: string;
}

/** The outcome of classifying one request. */
export interface Classification {
  flowSchema: APIObject;
  priorityLevel: APIObject;
  /** The flow distinguisher: the user name (`ByUser`), the namespace (`ByNamespace`), or `""`. */
  distinguisher: string;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strs = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === "string");
const has = (values: string[], wanted: string): boolean => values.includes("*") || values.includes(wanted);

const serviceAccountPrefix = "system:serviceaccount:";

/** Whether `subject` (a FlowSchema `Subject`) names `user`: by user name, group or service account, `*` matching any. */
export function subjectMatches(subject: unknown, user: UserInfo): boolean {
  const s = rec(subject) ?? {};
  switch (s["kind"]) {
    case "User": {
      const name = rec(s["user"])?.["name"];
      return name === "*" || name === user.name;
    }
    case "Group": {
      const name = rec(s["group"])?.["name"];
      return name === "*" || (typeof name === "string" && (user.groups ?? []).includes(name));
    }
    case "ServiceAccount": {
      const sa = rec(s["serviceAccount"]) ?? {};
      if (!user.name.startsWith(serviceAccountPrefix)) return false;
      const [namespace, name, ...rest] = user.name.slice(serviceAccountPrefix.length).split(":");
      if (rest.length > 0 || namespace === undefined || name === undefined) return false;
      return sa["namespace"] === namespace && (sa["name"] === "*" || sa["name"] === name);
    }
    default:
      return false;
  }
}

/**
 * Whether a `ResourcePolicyRule` matches a resource request: its verb, group and resource
 * (`<resource>/<subresource>` for a sub-resource), and its namespace (`clusterScope` for a
 * request without one, `namespaces` with `*` matching any named namespace).
 */
export function resourceRuleMatches(rule: unknown, request: RequestDigest): boolean {
  const r = rec(rule) ?? {};
  if (!has(strs(r["verbs"]), request.verb)) return false;
  if (!has(strs(r["apiGroups"]), request.apiGroup ?? "")) return false;
  const resource = request.subresource ? `${request.resource ?? ""}/${request.subresource}` : (request.resource ?? "");
  if (!has(strs(r["resources"]), resource)) return false;
  const namespace = request.namespace ?? "";
  if (namespace === "") return r["clusterScope"] === true;
  return has(strs(r["namespaces"]), namespace);
}

/**
 * Whether a `NonResourcePolicyRule` matches a non-resource request: its verb, and its path equal
 * to one of `nonResourceURLs`, `*`, or under a `<prefix>/*` (which also matches `<prefix>` itself).
 */
export function nonResourceRuleMatches(rule: unknown, request: RequestDigest): boolean {
  const r = rec(rule) ?? {};
  if (!has(strs(r["verbs"]), request.verb)) return false;
  const path = request.path ?? "";
  return strs(r["nonResourceURLs"]).some((url) => {
    if (url === "*" || url === path) return true;
    if (!url.endsWith("*")) return false;
    const prefix = url.slice(0, -1);
    return path.startsWith(prefix) || (prefix.endsWith("/") && path === prefix.slice(0, -1));
  });
}

/** Whether one of a FlowSchema's rules matches: one of its subjects and one of its (non-)resource rules. */
export function flowSchemaMatches(flowSchema: APIObject, request: RequestDigest): boolean {
  const spec = rec(flowSchema["spec"]) ?? {};
  return list(spec["rules"]).some((raw) => {
    const rule = rec(raw) ?? {};
    if (!list(rule["subjects"]).some((s) => subjectMatches(s, request.user))) return false;
    return request.isResourceRequest
      ? list(rule["resourceRules"]).some((r) => resourceRuleMatches(r, request))
      : list(rule["nonResourceRules"]).some((r) => nonResourceRuleMatches(r, request));
  });
}

/** The `matchingPrecedence` of a FlowSchema (1000 when unset, as the default). */
export function precedenceOf(flowSchema: APIObject): number {
  const p = rec(flowSchema["spec"])?.["matchingPrecedence"];
  return typeof p === "number" && p > 0 ? p : 1000;
}

/** The name of the PriorityLevelConfiguration a FlowSchema references. */
export function priorityLevelNameOf(flowSchema: APIObject): string {
  const name = rec(rec(flowSchema["spec"])?.["priorityLevelConfiguration"])?.["name"];
  return typeof name === "string" ? name : "";
}

/** FlowSchemas in matching order: by `matchingPrecedence`, then by name. */
export function sortFlowSchemas(flowSchemas: readonly APIObject[]): APIObject[] {
  return [...flowSchemas].sort((a, b) => precedenceOf(a) - precedenceOf(b) || (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
}

/** A set of names where `*` matches any. */
interface NameSet {
  any: boolean;
  names: ReadonlySet<string>;
}

const nameSet = (values: string[]): NameSet => ({ any: values.includes("*"), names: new Set(values) });
const inSet = (set: NameSet, value: string): boolean => set.any || set.names.has(value);

/** One rule of a FlowSchema, its lists read once into sets. */
interface CompiledRule {
  users: NameSet;
  groups: NameSet;
  /** `namespace/name` of ServiceAccount subjects (`name` may be `*`). */
  serviceAccounts: readonly { namespace: string; name: string }[];
  resourceRules: readonly { verbs: NameSet; apiGroups: NameSet; resources: NameSet; clusterScope: boolean; namespaces: NameSet }[];
  nonResourceRules: readonly unknown[];
}

/** A FlowSchema ready for matching: its rules compiled, its level's name and its distinguisher. */
interface CompiledSchema {
  flowSchema: APIObject;
  levelName: string;
  distinguisher: "ByUser" | "ByNamespace" | "";
  rules: readonly CompiledRule[];
}

function compileRule(raw: unknown): CompiledRule {
  const rule = rec(raw) ?? {};
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: { namespace: string; name: string }[] = [];
  for (const subject of list(rule["subjects"])) {
    const s = rec(subject) ?? {};
    const name = (key: string) => rec(s[key])?.["name"];
    if (s["kind"] === "User" && typeof name("user") === "string") users.push(name("user") as string);
    else if (s["kind"] === "Group" && typeof name("group") === "string") groups.push(name("group") as string);
    else if (s["kind"] === "ServiceAccount") {
      const sa = rec(s["serviceAccount"]) ?? {};
      if (typeof sa["namespace"] === "string" && typeof sa["name"] === "string") serviceAccounts.push({ namespace: sa["namespace"], name: sa["name"] });
    }
  }
  return {
    users: nameSet(users),
    groups: nameSet(groups),
    serviceAccounts,
    resourceRules: list(rule["resourceRules"]).map((raw) => {
      const r = rec(raw) ?? {};
      return {
        verbs: nameSet(strs(r["verbs"])),
        apiGroups: nameSet(strs(r["apiGroups"])),
        resources: nameSet(strs(r["resources"])),
        clusterScope: r["clusterScope"] === true,
        namespaces: nameSet(strs(r["namespaces"])),
      };
    }),
    nonResourceRules: list(rule["nonResourceRules"]),
  };
}

function compiledSubjectMatches(rule: CompiledRule, user: UserInfo): boolean {
  if (inSet(rule.users, user.name)) return true;
  if (rule.groups.any) return true;
  if (rule.groups.names.size > 0) for (const group of user.groups ?? []) if (rule.groups.names.has(group)) return true;
  if (rule.serviceAccounts.length > 0 && user.name.startsWith(serviceAccountPrefix)) {
    const [namespace, name, ...rest] = user.name.slice(serviceAccountPrefix.length).split(":");
    if (rest.length === 0) return rule.serviceAccounts.some((sa) => sa.namespace === namespace && (sa.name === "*" || sa.name === name));
  }
  return false;
}

// Loops rather than `some` with a closure: every request is classified, against a dozen schemas.
function compiledRuleMatches(rule: CompiledRule, request: RequestDigest): boolean {
  if (!compiledSubjectMatches(rule, request.user)) return false;
  if (!request.isResourceRequest) {
    for (const r of rule.nonResourceRules) if (nonResourceRuleMatches(r, request)) return true;
    return false;
  }
  if (rule.resourceRules.length === 0) return false;
  const resource = request.subresource ? `${request.resource ?? ""}/${request.subresource}` : (request.resource ?? "");
  const namespace = request.namespace ?? "";
  const apiGroup = request.apiGroup ?? "";
  for (const r of rule.resourceRules) {
    if (
      inSet(r.verbs, request.verb) &&
      inSet(r.apiGroups, apiGroup) &&
      inSet(r.resources, resource) &&
      (namespace === "" ? r.clusterScope : inSet(r.namespaces, namespace))
    ) {
      return true;
    }
  }
  return false;
}

/** Whether one of `schema`'s rules matches `request`. */
function compiledSchemaMatches(schema: CompiledSchema, request: RequestDigest): boolean {
  for (const rule of schema.rules) if (compiledRuleMatches(rule, request)) return true;
  return false;
}

/** The compiled form of each sorted list, made on its first classification. */
const compiledLists = new WeakMap<readonly APIObject[], readonly CompiledSchema[]>();

function compiled(sorted: readonly APIObject[]): readonly CompiledSchema[] {
  let schemas = compiledLists.get(sorted);
  if (!schemas) {
    schemas = sorted.map((flowSchema) => {
      const spec = rec(flowSchema["spec"]) ?? {};
      const method = rec(spec["distinguisherMethod"])?.["type"];
      return {
        flowSchema,
        levelName: priorityLevelNameOf(flowSchema),
        distinguisher: method === "ByUser" || method === "ByNamespace" ? method : "",
        rules: list(spec["rules"]).map(compileRule),
      };
    });
    compiledLists.set(sorted, schemas);
  }
  return schemas;
}

/**
 * Classifies `request` against `sorted` (from {@link sortFlowSchemas}): the first FlowSchema
 * that matches and whose priority level is in `levels` (a schema whose level does not exist is
 * dangling and skipped). `undefined` when none matches (the mandatory `catch-all` matches
 * every authenticated or anonymous request). The schemas' rules are compiled into sets on the
 * first call with a given `sorted` array (the configuration makes a new one when it changes),
 * so a classification reads no object.
 */
export function classify(request: RequestDigest, sorted: readonly APIObject[], levels: ReadonlyMap<string, APIObject>): Classification | undefined {
  for (const schema of compiled(sorted)) {
    const priorityLevel = levels.get(schema.levelName);
    if (!priorityLevel || !compiledSchemaMatches(schema, request)) continue;
    const distinguisher = schema.distinguisher === "ByUser" ? request.user.name : schema.distinguisher === "ByNamespace" ? (request.namespace ?? "") : "";
    return { flowSchema: schema.flowSchema, priorityLevel, distinguisher };
  }
  return undefined;
}
