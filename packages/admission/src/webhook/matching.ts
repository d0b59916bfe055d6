/**
 * Which webhooks a write calls, as the reference decides (`ShouldCallHook`): a rule must name
 * the operation, group, version and resource (`*`, every resource and sub-resource, all the
 * sub-resources of one resource, one sub-resource of every resource) in a matching scope (a sub-resource takes its parent's); with `matchPolicy: Equivalent` another served
 * version of the resource matches too, and the webhook sees the object in that version. The
 * object selector must select the object or the old object; the namespace selector must select
 * the namespace of a namespaced write (or a Namespace's own labels). Writes of the webhook
 * configurations themselves never call webhooks.
 * @module
 */
import { internalError, isNotFound, notFound, type Labels, type LabelSelector } from "@orch/meta";
import type { AdmissionAttributes, GroupVersionKind, GroupVersionResource } from "../attributes.js";
import type { AdmissionServices } from "../services.js";
import { ruleHasOperation, type CompiledRule, type CompiledWebhook } from "./webhooks.js";

/** A webhook to call, with the resource and kind it matched in. */
export interface Invocation {
  /** The webhook. */
  webhook: CompiledWebhook;
  /** The resource matched: the request's, or an equivalent version of it. */
  resource: GroupVersionResource;
  /** The kind of the object in the matched version. */
  kind: GroupVersionKind;
  /** The sub-resource written. */
  subresource: string;
}

/** The kinds of `admissionregistration.<domain>` whose writes no webhook is called for. */
const exemptKinds: ReadonlySet<string> = new Set([
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
]);

/** True for a write of a webhook or admission-policy configuration: it never calls webhooks (a bad webhook could not be undone otherwise). */
export function isExemptFromWebhooks(attrs: AdmissionAttributes, domain: string): boolean {
  return attrs.kind.group === `admissionregistration.${domain}` && exemptKinds.has(attrs.kind.kind);
}

function isNamespaceResource(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === "" && attrs.resource.resource === "namespaces";
}

function scopeMatches(rule: CompiledRule, attrs: AdmissionAttributes): boolean {
  if (rule.scope === "*") return true;
  if (rule.scope === "Namespaced") return attrs.type.scope === "Namespaced";
  if (rule.scope === "Cluster") return attrs.type.scope === "Cluster";
  return false;
}

/** True when `rule` matches `attrs` written through `resource` (the request's or an equivalent one). */
export function ruleMatches(rule: CompiledRule, attrs: AdmissionAttributes, resource: GroupVersionResource): boolean {
  if (!scopeMatches(rule, attrs) || !ruleHasOperation(rule, attrs.operation)) return false;
  if (rule.groups && !rule.groups.has(resource.group)) return false;
  if (rule.versions && !rule.versions.has(resource.version)) return false;
  return rule.resources.some(([res, sub]) => (res === "*" || res === resource.resource) && (sub === "*" || sub === attrs.subresource));
}

/**
 * The invocation of `hook` for `attrs` by its rules and match policy alone: the request's
 * resource first, then (Equivalent) the other served versions, earlier rules first.
 */
export function invocationByRules(hook: CompiledWebhook, attrs: AdmissionAttributes): Invocation | undefined {
  const requested = attrs.requestResource;
  if (hook.rules.some((rule) => ruleMatches(rule, attrs, requested))) {
    return { webhook: hook, resource: requested, kind: attrs.requestKind, subresource: attrs.subresource };
  }
  if (!hook.equivalent) return undefined;
  const sameKind = attrs.kind.kind === attrs.type.kind;
  for (const rule of hook.rules) {
    for (const version of attrs.type.versions) {
      if (version.name === requested.version) continue;
      const resource = { ...requested, version: version.name };
      if (!ruleMatches(rule, attrs, resource)) continue;
      const kind = sameKind ? { group: requested.group, version: version.name, kind: attrs.type.kind } : attrs.requestKind;
      return { webhook: hook, resource, kind, subresource: attrs.subresource };
    }
  }
  return undefined;
}

function labelsOf(object: unknown): Labels | undefined {
  if (typeof object !== "object" || object === null) return undefined;
  const metadata = (object as { metadata?: unknown }).metadata;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return undefined;
  const labels = (metadata as { labels?: unknown }).labels;
  return typeof labels === "object" && labels !== null ? (labels as Labels) : {};
}

/** True when `selector` selects the object or the old object (objects without metadata are never selected). */
export function objectSelected(selector: LabelSelector, attrs: AdmissionAttributes): boolean {
  if (selector.isEmpty()) return true;
  return [attrs.object, attrs.oldObject].some((o) => {
    const labels = labelsOf(o);
    return labels !== undefined && selector.matches(labels);
  });
}

/** The labels of the namespace of one write, read at most once per write. */
export type NamespaceLabels = () => Promise<Labels>;

/**
 * The labels a namespace selector is matched against for `attrs`: a Namespace's own labels when
 * it is created or updated, else those of the namespace read through `services` (for a
 * Namespace, itself). `undefined` for a cluster-scoped write of another kind, which namespace
 * selectors do not apply to.
 * @throws StatusError 404 when the namespace does not exist, 500 when it cannot be read.
 */
export function namespaceLabelsOf(attrs: AdmissionAttributes, services: AdmissionServices): NamespaceLabels | undefined {
  const namespaceItself = isNamespaceResource(attrs);
  if (!namespaceItself && attrs.type.scope === "Cluster") return undefined;
  if (namespaceItself && attrs.subresource === "" && (attrs.operation === "CREATE" || attrs.operation === "UPDATE")) {
    return async () => labelsOf(attrs.object) ?? {};
  }
  const name = attrs.namespace || (namespaceItself ? attrs.name : "");
  let pending: Promise<Labels> | undefined;
  return () => {
    pending ??= services.get("", "namespaces", "", name).then(
      (namespace) => {
        if (!namespace) throw notFound({ group: "", resource: "namespaces" }, name);
        return labelsOf(namespace) ?? {};
      },
      (error: unknown) => {
        if (isNotFound(error)) throw error;
        throw internalError(error instanceof Error ? error.message : String(error), error);
      },
    );
    return pending;
  };
}

/**
 * The invocation of `hook` for `attrs`, or `undefined` when it is not to be called: its rules
 * and match policy, then its object selector, then its namespace selector (`namespaceLabels`,
 * `undefined` for cluster-scoped writes).
 * @throws StatusError 500 for a selector that cannot be used, 404 for a missing namespace (only
 *   when the rules match, as the reference reports them).
 */
export async function shouldCallHook(
  hook: CompiledWebhook,
  attrs: AdmissionAttributes,
  namespaceLabels: NamespaceLabels | undefined,
): Promise<Invocation | undefined> {
  const invocation = invocationByRules(hook, attrs);
  if (!invocation) return undefined;
  const objectSelector = hook.objectSelector;
  if (!(objectSelector instanceof Error) && !objectSelected(objectSelector, attrs)) return undefined;
  const namespaceSelector = hook.namespaceSelector;
  if (namespaceSelector && namespaceLabels) {
    if (namespaceSelector instanceof Error) throw internalError(namespaceSelector.message);
    if (!namespaceSelector.matches(await namespaceLabels())) return undefined;
  }
  if (objectSelector instanceof Error) throw internalError(objectSelector.message);
  return invocation;
}
