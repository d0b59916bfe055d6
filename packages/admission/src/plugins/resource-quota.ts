/**
 * ResourceQuota (validating, last in the chain): every namespaced CREATE, and the UPDATEs that
 * change usage (service type, claim size, pod resize), is checked against the namespace's
 * ResourceQuota objects and charged to their `status.used` before it is stored. The charge is a
 * compare-and-swap of the quota's `status` (a conflict re-reads the quotas and decides again, up
 * to three more times), and evaluations are serialised per namespace inside the process, so
 * concurrent writes never take a quota past its hard limits. Dry-run writes are checked, not
 * charged. A quota whose `status.hard` the quota controller has not set yet constrains nothing.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { list, record, str } from "../internal/json.js";
import type { AdmissionPlugin, PluginFactory } from "../plugin.js";
import { checkRequest, quotaState, type LimitedResource, type QuotaState } from "../quota/check.js";
import type { QuotaEvaluator } from "../quota/evaluators.js";
import { KeyedQueue } from "../quota/keyed-queue.js";
import { equalResourceLists, resourceListJSON } from "../quota/resource-list.js";
import type { ScopeSelector } from "../quota/scopes.js";
import { quotaRegistry } from "../quota/usage.js";
import type { LiveList } from "../services.js";

/** How many times a charge is decided again after its status update failed (the reference's 3). */
const chargeRetries = 3;

function scopeSelectorOf(value: unknown): ScopeSelector {
  const s = record(value) ?? {};
  return { scopeName: str(s["scopeName"]), operator: str(s["operator"]), values: list(s["values"]).map(str) };
}

/**
 * The plugin's configuration (a `ResourceQuotaConfiguration`): `limitedResources`, each
 * `{apiGroup, resource, matchContains, matchScopes}`: consuming a matching resource, or creating
 * an object in a matching scope, needs a quota that covers it.
 * @throws Error when `limitedResources` is not a list of entries naming a resource.
 */
export function parseResourceQuotaConfiguration(configuration: unknown): LimitedResource[] {
  const entries = record(configuration)?.["limitedResources"];
  if (entries === undefined) return [];
  if (!Array.isArray(entries)) throw new Error("ResourceQuota configuration: limitedResources must be a list");
  return entries.map((e, i) => {
    const entry = record(e);
    const resource = str(entry?.["resource"]);
    if (!entry || !resource) throw new Error(`ResourceQuota configuration: limitedResources[${i}].resource is required`);
    return {
      apiGroup: str(entry["apiGroup"]),
      resource,
      matchContains: list(entry["matchContains"]).map(str),
      matchScopes: list(entry["matchScopes"]).map(scopeSelectorOf),
    };
  });
}

/** The quota with `used` as its `status.used`, for the status update. */
function withUsed(quota: QuotaState): APIObject {
  // A shallow copy: the services copy what they write.
  const object = quota.object as APIObject;
  return { ...object, status: { ...(record(object["status"]) ?? {}), used: resourceListJSON(quota.used) } };
}

/** The writes quota never looks at: sub-resources (but a pod resize), cluster objects, namespaces, events. */
function ignored(attrs: AdmissionAttributes): boolean {
  const { group, resource } = attrs.resource;
  if (attrs.subresource !== "" && !(attrs.subresource === "resize" && group === "" && resource === "pods")) return true;
  if (!attrs.namespace) return true;
  if (attrs.operation === "CREATE" && attrs.kind.group === "" && attrs.kind.kind === "Namespace") return true;
  return group === "" && resource === "events";
}

/** The ResourceQuota plugin. */
export const resourceQuota: PluginFactory = ({ services, configuration }) => {
  const limited = parseResourceQuotaConfiguration(configuration);
  const registry = quotaRegistry(services.domain);
  const queue = new KeyedQueue();
  let live: LiveList | null | undefined;

  // The watch-kept quotas tell fast that a namespace has none; decisions read them fresh.
  const liveQuotas = (): LiveList | undefined => {
    if (live === undefined) {
      try {
        live = services.watchList("", "resourcequotas");
      } catch {
        live = null;
      }
    }
    return live ?? undefined;
  };

  // The namespaces holding a quota, recomputed only when the watch-kept view changed (not per write).
  let quotaNamespaces = new Set<string>();
  let quotaGeneration = -1;
  // Whether the view's first list is in, so that it can be asked without waiting.
  let liveReady = false;
  const quotaNamespacesNow = (list: LiveList): ReadonlySet<string> => {
    if (list.generation() !== quotaGeneration) {
      quotaGeneration = list.generation();
      quotaNamespaces = new Set(list.items().map((q) => q.metadata.namespace ?? ""));
    }
    return quotaNamespaces;
  };
  const mayHaveQuotas = async (namespace: string): Promise<boolean> => {
    const list = liveQuotas();
    if (!list) return true;
    await list.ready();
    liveReady = true;
    return quotaNamespacesNow(list).has(namespace);
  };
  // Known without waiting that `namespace` holds no quota (the view is in and has none there).
  const knownWithoutQuota = (namespace: string): boolean => {
    const list = liveReady ? liveQuotas() : undefined;
    return list !== undefined && !quotaNamespacesNow(list).has(namespace);
  };

  const load = async (namespace: string): Promise<QuotaState[]> => (await services.list("", "resourcequotas", namespace)).items.map(quotaState);

  /** Writes the changed quotas' usage; the names of those whose write failed, with the last error. */
  const charge = async (namespace: string, before: readonly QuotaState[], after: readonly QuotaState[]) => {
    const failed = new Set<string>();
    let error: unknown;
    for (let i = 0; i < after.length; i++) {
      const quota = after[i] as QuotaState;
      if (equalResourceLists(quota.used, (before[i] as QuotaState).used)) continue;
      try {
        await services.update("", "resourcequotas", namespace, withUsed(quota), "status");
      } catch (e) {
        failed.add(quota.name);
        error = e;
      }
    }
    return { failed, error };
  };

  const evaluate = async (attrs: AdmissionAttributes, evaluator: QuotaEvaluator): Promise<void> => {
    const namespace = attrs.namespace;
    let quotas = await load(namespace);
    if (quotas.length === 0 && limited.length === 0) return;
    for (let retries = chargeRetries; ; retries--) {
      const next = checkRequest(quotas, attrs, evaluator, services.now(), limited);
      if (attrs.dryRun || next === quotas) return;
      const { failed, error } = await charge(namespace, quotas, next);
      if (failed.size === 0) return;
      if (retries <= 0) throw error;
      // Only the quotas whose write failed are decided again: the others hold the charge already.
      const fresh = await load(namespace).catch(() => {
        throw error;
      });
      quotas = fresh.filter((q) => failed.has(q.name));
    }
  };

  /** The end of `validate` when the namespace may hold a quota, or the view is not in yet. */
  const check = async (attrs: AdmissionAttributes, evaluator: QuotaEvaluator): Promise<void> => {
    if (limited.length === 0 && !(await mayHaveQuotas(attrs.namespace))) return;
    await queue.run(attrs.namespace, () => evaluate(attrs, evaluator));
  };

  const plugin: AdmissionPlugin = {
    name: "ResourceQuota",
    operations: ["CREATE", "UPDATE"],
    // Answers synchronously when the write needs no quota (the common path: most namespaces hold
    // none), so the chain awaits nothing; a refusal is still a rejected promise.
    validate(attrs) {
      try {
        if (ignored(attrs)) return;
        const evaluator = registry.get(attrs.resource.group, attrs.resource.resource);
        if (!evaluator.handles(attrs)) return;
        if (limited.length === 0 && knownWithoutQuota(attrs.namespace)) return;
        return check(attrs, evaluator);
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    async ready() {
      const list = liveQuotas();
      if (!list) return;
      await list.ready();
      liveReady = true;
    },
  };
  return plugin;
};
