/**
 * The webhooks of the MutatingWebhookConfiguration or ValidatingWebhookConfiguration objects,
 * compiled once per change of the watch-kept collection: rules as sets, label selectors parsed,
 * the AdmissionReview version chosen, the CA bundle decoded. Configurations are taken in name
 * order and their webhooks in list order, as the reference sorts them.
 * @module
 */
import { everything, formatFieldError, labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from "@orch/meta";
import type { Operation } from "../attributes.js";
import { record, strings } from "../internal/json.js";
import type { ServiceReference } from "../plugin.js";
import type { AdmissionServices } from "../services.js";
import { reviewVersionOf, type ReviewVersion } from "./admission-review.js";

/** A rule of a webhook, compiled: `undefined` sets stand for `*`. */
export interface CompiledRule {
  /** The operations named; `undefined` for `*`. */
  operations: ReadonlySet<string> | undefined;
  /** The API groups named; `undefined` for `*`. */
  groups: ReadonlySet<string> | undefined;
  /** The API versions named; `undefined` for `*`. */
  versions: ReadonlySet<string> | undefined;
  /** The resources named, split into resource and sub-resource (`*` as written, `""` for none). */
  resources: readonly (readonly [resource: string, subresource: string])[];
  /** `Namespaced`, `Cluster` or `*`. */
  scope: string;
}

/** Where a webhook is called: a URL as written, or a service with its path. */
export type WebhookEndpoint = { url: string } | { service: ServiceReference; path: string };

/** One webhook, ready to match and call. */
export interface CompiledWebhook {
  /** `<configuration>/<webhook>/<n>`: unique even when a configuration repeats a name (the reference's UID). */
  uid: string;
  /** The webhook's name. */
  name: string;
  /** The name of its configuration. */
  configuration: string;
  /** Its rules, compiled. */
  rules: readonly CompiledRule[];
  /** True for `matchPolicy: Equivalent`. */
  equivalent: boolean;
  /** True for `failurePolicy: Ignore`. */
  ignoreFailures: boolean;
  /** True when a dry-run request may call it (`sideEffects` `None` or `NoneOnDryRun`). */
  dryRunSafe: boolean;
  /** The call's time limit in milliseconds. */
  timeoutMs: number;
  /** The AdmissionReview version sent; `undefined` when it names none this server speaks. */
  reviewVersion: ReviewVersion | undefined;
  /** The object selector, or why it cannot be used. */
  objectSelector: LabelSelector | Error;
  /** The namespace selector (`undefined` when it selects everything), or why it cannot be used. */
  namespaceSelector: LabelSelector | Error | undefined;
  /** True for `reinvocationPolicy: IfNeeded` (mutating webhooks). */
  reinvokeIfNeeded: boolean;
  /** Where it is called; `undefined` when the configuration names neither a URL nor a service. */
  endpoint: WebhookEndpoint | undefined;
  /** The PEM CA bundle of `clientConfig.caBundle`; `undefined` for the system roots; an Error when it cannot be decoded. */
  caBundle: string | Error | undefined;
}

/** The compiled webhooks of one collection, kept current. */
export interface WebhookSource {
  /** The webhooks as of the newest known state, recompiled only when the collection changed. */
  webhooks(): readonly CompiledWebhook[];
  /** Resolves once the collection's first list is in. */
  ready(): Promise<void>;
}

function set(values: readonly string[]): ReadonlySet<string> | undefined {
  return values.includes("*") ? undefined : new Set(values);
}

function compileRule(rule: Record<string, unknown>): CompiledRule {
  return {
    operations: set(strings(rule["operations"])),
    groups: set(strings(rule["apiGroups"])),
    versions: set(strings(rule["apiVersions"])),
    resources: strings(rule["resources"]).map((r) => {
      const slash = r.indexOf("/");
      return slash < 0 ? ([r, ""] as const) : ([r.slice(0, slash), r.slice(slash + 1)] as const);
    }),
    scope: typeof rule["scope"] === "string" ? rule["scope"] : "*",
  };
}

/** A selector of a webhook: absent selects everything (the defaults make it `{}`), an invalid one is an Error. */
function compileSelector(value: unknown, field: string): LabelSelector | Error {
  if (value === undefined || value === null) return everything();
  const object = record(value);
  if (!object) return new Error(`${field} is not a label selector`);
  const converted = labelSelectorFromObject(object as LabelSelectorObject, field);
  if (converted.ok) return converted.selector;
  return new Error(`${field} is invalid: ${converted.errors.map(formatFieldError).join(", ")}`);
}

function decodeCABundle(value: unknown): string | Error | undefined {
  if (typeof value !== "string" || value === "") return undefined;
  try {
    const binary = atob(value);
    return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return new Error("clientConfig.caBundle is not base64");
  }
}

function endpointOf(clientConfig: Record<string, unknown> | undefined): WebhookEndpoint | undefined {
  if (!clientConfig) return undefined;
  if (typeof clientConfig["url"] === "string" && clientConfig["url"]) return { url: clientConfig["url"] };
  const service = record(clientConfig["service"]);
  if (!service) return undefined;
  const path = typeof service["path"] === "string" && service["path"] ? service["path"] : "/";
  return {
    service: {
      namespace: String(service["namespace"] ?? ""),
      name: String(service["name"] ?? ""),
      port: typeof service["port"] === "number" ? service["port"] : 443,
    },
    path: path.startsWith("/") ? path : `/${path}`,
  };
}

function compileWebhook(hook: Record<string, unknown>, configuration: string, uid: string): CompiledWebhook {
  const clientConfig = record(hook["clientConfig"]);
  const sideEffects = hook["sideEffects"];
  const timeoutSeconds = typeof hook["timeoutSeconds"] === "number" ? hook["timeoutSeconds"] : 10;
  const namespaceSelector = compileSelector(hook["namespaceSelector"], "namespaceSelector");
  return {
    uid,
    name: String(hook["name"] ?? ""),
    configuration,
    rules: (Array.isArray(hook["rules"]) ? hook["rules"] : []).flatMap((r) => {
      const rule = record(r);
      return rule ? [compileRule(rule)] : [];
    }),
    equivalent: hook["matchPolicy"] === "Equivalent",
    ignoreFailures: hook["failurePolicy"] === "Ignore",
    dryRunSafe: sideEffects === "None" || sideEffects === "NoneOnDryRun",
    timeoutMs: timeoutSeconds * 1000,
    reviewVersion: reviewVersionOf(strings(hook["admissionReviewVersions"])),
    objectSelector: compileSelector(hook["objectSelector"], "objectSelector"),
    namespaceSelector: namespaceSelector instanceof Error || !namespaceSelector.isEmpty() ? namespaceSelector : undefined,
    reinvokeIfNeeded: hook["reinvocationPolicy"] === "IfNeeded",
    endpoint: endpointOf(clientConfig),
    caBundle: decodeCABundle(clientConfig?.["caBundle"]),
  };
}

/**
 * The webhooks of `configurations` (stored `v1` objects, defaulted), in the reference's order:
 * configurations by name, webhooks in list order.
 */
export function compileWebhooks(configurations: readonly { metadata: { name?: string }; [field: string]: unknown }[]): CompiledWebhook[] {
  const sorted = [...configurations].sort((a, b) => {
    const x = a.metadata.name ?? "";
    const y = b.metadata.name ?? "";
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const out: CompiledWebhook[] = [];
  for (const configuration of sorted) {
    const name = configuration.metadata.name ?? "";
    const seen = new Map<string, number>();
    for (const item of Array.isArray(configuration["webhooks"]) ? configuration["webhooks"] : []) {
      const hook = record(item);
      if (!hook) continue;
      const hookName = String(hook["name"] ?? "");
      const n = seen.get(hookName) ?? 0;
      seen.set(hookName, n + 1);
      out.push(compileWebhook(hook, name, `${name}/${hookName}/${n}`));
    }
  }
  return out;
}

/**
 * The compiled webhooks of `resource` (`mutatingwebhookconfigurations` or
 * `validatingwebhookconfigurations`) in `admissionregistration.<domain>`, from the server's
 * watch-kept view: compiled again only when the view's generation moved.
 */
export function webhookSource(services: AdmissionServices, resource: string): WebhookSource {
  const live = services.watchList(`admissionregistration.${services.domain}`, resource);
  let generation = Number.NaN;
  let compiled: readonly CompiledWebhook[] = [];
  return {
    webhooks() {
      const now = live.generation();
      if (now !== generation) {
        compiled = compileWebhooks(live.items());
        generation = now;
      }
      return compiled;
    },
    ready: () => live.ready(),
  };
}

/** True when `rule` names `operation` (or `*`). */
export function ruleHasOperation(rule: CompiledRule, operation: Operation): boolean {
  return rule.operations === undefined || rule.operations.has(operation);
}
