/**
 * The audit Policy (`audit.<domain>/v1`, kind `Policy`): which requests are recorded at which
 * level. Parsed from YAML or JSON text with errors that name the line, and evaluated per request:
 * the first rule that matches decides, and a request no rule matches is not recorded.
 * @module
 */
import { isMap, LineCounter, parseDocument, type Document } from "yaml";
import type { UserInfo } from "@orch/authn";
import { auditLevels, auditStageNames, type AuditLevel, type AuditStage } from "./event.js";

/** The resources of one API group a rule selects. */
export interface AuditGroupResources {
  /** The API group (`""` is the core group). */
  group?: string;
  /**
   * Resources of the group (all of them when empty): `pods`, `pods/log` (a sub-resource; `pods`
   * alone does not select it), `pods/*` (the resource and all its sub-resources), `*` (every
   * resource), `*\/status` (that sub-resource of every resource).
   */
  resources?: string[];
  /** Names of the objects (any when empty). */
  resourceNames?: string[];
}

/** One rule of a {@link AuditPolicy}: every selector given must match; an empty one matches all. */
export interface AuditPolicyRule {
  level: AuditLevel;
  /** User names. */
  users?: string[];
  /** Groups: a user in any of them matches. */
  userGroups?: string[];
  /** Verbs as the authorizer sees them (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`). */
  verbs?: string[];
  /** Resources (resource requests only). */
  resources?: AuditGroupResources[];
  /** Namespaces (resource requests only; `""` selects cluster-scoped objects). */
  namespaces?: string[];
  /** Non-resource paths (`/healthz`, `/apis*`: a trailing `*` is a prefix; non-resource requests only). */
  nonResourceURLs?: string[];
  /** Stages not recorded for requests this rule matches (besides the policy's own). */
  omitStages?: AuditStage[];
}

/** An audit policy: rules in order, and stages never recorded. */
export interface AuditPolicy {
  rules: AuditPolicyRule[];
  /** Stages not recorded for any request. */
  omitStages?: AuditStage[];
}

/** What a policy is asked about: the request, as the authorizer sees it. */
export interface AuditAttributes {
  user: UserInfo;
  verb: string;
  resourceRequest: boolean;
  /** The path (non-resource requests). */
  path: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The decision of a policy for one request. */
export interface AuditDecision {
  level: AuditLevel;
  /** The stages not recorded: the policy's and the matching rule's. */
  omitStages: AuditStage[];
}

/**
 * Resources whose bodies hold credentials: a request on them is recorded at Metadata at most
 * unless the rule that matched names the resource explicitly (not through `*` or an empty list).
 * The reference leaves this to the policy and recommends Metadata for them; orch enforces it.
 */
export const sensitiveResources: readonly { group: string; resource: string }[] = [{ group: "", resource: "secrets" }];

const has = (list: readonly string[] | undefined, value: string) => !list || list.length === 0 || list.includes(value);

function resourceMatches(rule: AuditPolicyRule, a: AuditAttributes): boolean {
  if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) return false;
  if (!has(rule.namespaces, a.namespace ?? "")) return false;
  if (!rule.resources || rule.resources.length === 0) return true;
  const resource = a.resource ?? "";
  const sub = a.subresource ?? "";
  const combined = sub ? `${resource}/${sub}` : resource;
  return rule.resources.some((gr) => {
    if ((gr.group ?? "") !== (a.apiGroup ?? "")) return false;
    if (gr.resourceNames && gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name ?? "")) return false;
    if (!gr.resources || gr.resources.length === 0) return true;
    return gr.resources.some(
      (r) => r === combined || r === "*" || (sub !== "" && r.startsWith("*/") && r.slice(2) === sub) || (r.endsWith("/*") && r.slice(0, -2) === resource),
    );
  });
}

function nonResourceMatches(rule: AuditPolicyRule, a: AuditAttributes): boolean {
  if ((rule.resources && rule.resources.length > 0) || (rule.namespaces && rule.namespaces.length > 0)) return false;
  if (!rule.nonResourceURLs || rule.nonResourceURLs.length === 0) return true;
  return rule.nonResourceURLs.some((spec) => spec === "*" || spec === a.path || (spec.endsWith("*") && a.path.startsWith(spec.slice(0, -1))));
}

/** Whether `rule` selects the request `a`. */
export function ruleMatches(rule: AuditPolicyRule, a: AuditAttributes): boolean {
  if (rule.users && rule.users.length > 0 && !rule.users.includes(a.user.name)) return false;
  if (rule.userGroups && rule.userGroups.length > 0 && !(a.user.groups ?? []).some((g) => rule.userGroups!.includes(g))) return false;
  if (!has(rule.verbs, a.verb)) return false;
  return a.resourceRequest ? resourceMatches(rule, a) : nonResourceMatches(rule, a);
}

/** Whether `rule` names `resource` of `group` itself (`secrets`, `secrets/*`), not through a wildcard. */
function namesExplicitly(rule: AuditPolicyRule, group: string, resource: string): boolean {
  return (rule.resources ?? []).some((gr) => (gr.group ?? "") === group && (gr.resources ?? []).some((r) => r === resource || r.startsWith(`${resource}/`)));
}

/**
 * The level and omitted stages of the request `a` under `policy`: the first matching rule's,
 * `None` when no rule matches. A request on a {@link sensitiveResources} resource is capped at
 * `Metadata` unless the matching rule names that resource explicitly.
 */
export function evaluatePolicy(policy: AuditPolicy, a: AuditAttributes): AuditDecision {
  const decision = policyDecision(policy, a);
  return { level: decision.level, omitStages: [...decision.omitStages] };
}

/** A decision shared by every request a rule decides the same way: read it, never change it. */
export interface SharedAuditDecision {
  /** The level the request is recorded at. */
  readonly level: AuditLevel;
  /** The stages not recorded: the policy's and the matching rule's. */
  readonly omitStages: readonly AuditStage[];
}

/** No rule matched: nothing is recorded. */
const unmatched: SharedAuditDecision = Object.freeze({ level: "None", omitStages: Object.freeze([]) as readonly AuditStage[] });

/** The decisions of a rule (as given, and capped at `Metadata` for a sensitive resource), kept while the policy's and the rule's stage lists and level stay the same. */
interface RuleDecisions {
  policyStages: AuditStage[] | undefined;
  ruleStages: AuditStage[] | undefined;
  level: AuditLevel;
  asGiven: SharedAuditDecision;
  capped: SharedAuditDecision;
}

const ruleDecisions = new WeakMap<AuditPolicyRule, RuleDecisions>();

/**
 * {@link evaluatePolicy} without allocating: the decision of a rule is made once and shared
 * (frozen) by every request it decides, as the audit stage asks on every request.
 */
export function policyDecision(policy: AuditPolicy, a: AuditAttributes): SharedAuditDecision {
  let rule: AuditPolicyRule | undefined;
  for (const r of policy.rules) {
    if (ruleMatches(r, a)) {
      rule = r;
      break;
    }
  }
  if (!rule) return unmatched;
  let decisions = ruleDecisions.get(rule);
  if (!decisions || decisions.policyStages !== policy.omitStages || decisions.ruleStages !== rule.omitStages || decisions.level !== rule.level) {
    const omitStages = Object.freeze([...new Set([...(policy.omitStages ?? []), ...(rule.omitStages ?? [])])]);
    const level = rule.level;
    const capped: AuditLevel = level === "Request" || level === "RequestResponse" ? "Metadata" : level;
    decisions = {
      policyStages: policy.omitStages,
      ruleStages: rule.omitStages,
      level,
      asGiven: Object.freeze({ level, omitStages }),
      capped: Object.freeze({ level: capped, omitStages }),
    };
    ruleDecisions.set(rule, decisions);
  }
  if (decisions.capped.level === decisions.level || !a.resourceRequest) return decisions.asGiven;
  const group = a.apiGroup ?? "";
  const sensitive = sensitiveResources.some((s) => s.group === group && s.resource === a.resource);
  return sensitive && !namesExplicitly(rule, group, a.resource ?? "") ? decisions.capped : decisions.asGiven;
}

/** The apiVersions a Policy may have for `domain`: `audit.<domain>/v1` (and `audit.k8s.io/v1`). */
export function auditPolicyVersions(domain: string): string[] {
  return [...new Set([`audit.${domain}/v1`, "audit.k8s.io/v1"])];
}

/** A policy that does not parse or validate; `line` is 1-based, when known. */
export class AuditPolicyError extends Error {
  override readonly name = "AuditPolicyError";
  constructor(
    message: string,
    /** The line the problem is on (1-based), when known. */
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
  }
}

type Path = (string | number)[];

const pathText = (path: Path) => path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : s ? `${s}.${p}` : p), "");

const ruleKeys = new Set(["level", "users", "userGroups", "verbs", "resources", "namespaces", "nonResourceURLs", "omitStages", "omitManagedFields"]);
const groupKeys = new Set(["group", "resources", "resourceNames"]);

/**
 * Parses and validates an audit Policy from YAML or JSON text: apiVersion `audit.<domain>/v1`
 * (or `audit.k8s.io/v1`), kind `Policy`, each rule's `level` one of None, Metadata, Request,
 * RequestResponse, string lists where lists are expected, `nonResourceURLs` only in rules
 * without `resources` or `namespaces` and with `*` only at their end, stages known.
 * @throws AuditPolicyError whose message starts with `line <n>:` (the offending node's line)
 * @example
 * ```ts
 * parseAuditPolicy("apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n", "orch.io");
 * ```
 */
export function parseAuditPolicy(text: string, domain: string): AuditPolicy {
  const lines = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) throw new AuditPolicyError(first.message.split("\n")[0] ?? first.message, lines.linePos(first.pos[0]).line);
  const lineOf = (path: Path): number | undefined => {
    for (let p = path; ; p = p.slice(0, -1)) {
      const node = p.length === 0 ? doc.contents : (doc.getIn(p, true) as { range?: [number, number, number] } | undefined);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return lines.linePos(range[0]).line;
      if (p.length === 0) return undefined;
    }
  };
  const fail = (path: Path, message: string): never => {
    throw new AuditPolicyError(path.length ? `${pathText(path)}: ${message}` : message, lineOf(path));
  };
  if (!isMap(doc.contents)) fail([], "an audit policy must be an object with apiVersion, kind and rules");
  const value = doc.toJS() as Record<string, unknown>;
  const versions = auditPolicyVersions(domain);
  if (value["kind"] !== "Policy") fail(["kind"], `kind must be Policy, not ${JSON.stringify(value["kind"])}`);
  if (typeof value["apiVersion"] !== "string" || !versions.includes(value["apiVersion"])) {
    fail(["apiVersion"], `apiVersion must be ${versions.join(" or ")}, not ${JSON.stringify(value["apiVersion"])}`);
  }
  const strings = (v: unknown, path: Path): string[] | undefined => {
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) return fail(path, "must be a list of strings");
    v.forEach((s, i) => {
      if (typeof s !== "string") fail([...path, i], "must be a string");
    });
    return v as string[];
  };
  const stages = (v: unknown, path: Path): AuditStage[] | undefined => {
    const list = strings(v, path);
    list?.forEach((s, i) => {
      if (!auditStageNames.includes(s as AuditStage)) fail([...path, i], `unknown stage ${JSON.stringify(s)} (want one of ${auditStageNames.join(", ")})`);
    });
    return list as AuditStage[] | undefined;
  };
  const rawRules = value["rules"] ?? [];
  if (!Array.isArray(rawRules)) fail(["rules"], "must be a list of rules");
  const rules = (rawRules as unknown[]).map((raw, i): AuditPolicyRule => {
    const at: Path = ["rules", i];
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return fail(at, "a rule must be an object");
    const r = raw as Record<string, unknown>;
    for (const key of Object.keys(r)) if (!ruleKeys.has(key)) fail([...at, key], `unknown field ${JSON.stringify(key)}`);
    if (!auditLevels.includes(r["level"] as AuditLevel)) {
      fail([...at, "level"], `level must be one of ${auditLevels.join(", ")}, not ${JSON.stringify(r["level"])}`);
    }
    const rule: AuditPolicyRule = { level: r["level"] as AuditLevel };
    for (const key of ["users", "userGroups", "verbs", "namespaces", "nonResourceURLs"] as const) {
      const list = strings(r[key], [...at, key]);
      if (list) rule[key] = list;
    }
    const omit = stages(r["omitStages"], [...at, "omitStages"]);
    if (omit) rule.omitStages = omit;
    const rawResources = r["resources"];
    if (rawResources !== undefined && rawResources !== null) {
      if (!Array.isArray(rawResources)) fail([...at, "resources"], "must be a list of {group, resources, resourceNames}");
      rule.resources = (rawResources as unknown[]).map((g, j): AuditGroupResources => {
        const gat: Path = [...at, "resources", j];
        if (g === null || typeof g !== "object" || Array.isArray(g)) return fail(gat, "must be an object with group, resources, resourceNames");
        const gr = g as Record<string, unknown>;
        for (const key of Object.keys(gr)) if (!groupKeys.has(key)) fail([...gat, key], `unknown field ${JSON.stringify(key)}`);
        const out: AuditGroupResources = {};
        if (gr["group"] !== undefined && gr["group"] !== null) {
          if (typeof gr["group"] !== "string") fail([...gat, "group"], "must be a string");
          out.group = gr["group"] as string;
        }
        const resources = strings(gr["resources"], [...gat, "resources"]);
        resources?.forEach((res, k) => {
          const parts = res.split("/");
          if (res === "" || parts.length > 2 || parts.some((p) => p === "")) fail([...gat, "resources", k], `invalid resource ${JSON.stringify(res)}`);
        });
        if (resources) out.resources = resources;
        const names = strings(gr["resourceNames"], [...gat, "resourceNames"]);
        if (names) out.resourceNames = names;
        return out;
      });
    }
    if (rule.nonResourceURLs && rule.nonResourceURLs.length > 0) {
      if ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0) {
        fail([...at, "nonResourceURLs"], "rules cannot apply to both regular resources and non-resource URLs");
      }
      rule.nonResourceURLs.forEach((url, k) => {
        if (url !== "*" && !url.startsWith("/")) fail([...at, "nonResourceURLs", k], `${JSON.stringify(url)} must start with /`);
        if (url.slice(0, -1).includes("*")) fail([...at, "nonResourceURLs", k], `${JSON.stringify(url)}: * is allowed only at the end`);
      });
    }
    return rule;
  });
  const policy: AuditPolicy = { rules };
  const omit = stages(value["omitStages"], ["omitStages"]);
  if (omit) policy.omitStages = omit;
  return policy;
}
