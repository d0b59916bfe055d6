/**
 * Which plugins a server runs and in which order: the reference's fixed order (whatever order
 * the flags name them in), its default-on set, `--enable-admission-plugins` and
 * `--disable-admission-plugins`, and the plugins that were removed.
 * @module
 */
import type { AdmissionPlugin, PluginContext } from "./plugin.js";
import { builtinPluginFactories } from "./plugins/index.js";

/**
 * Every built-in plugin, in the order they run (the reference's `AllOrderedPlugins`). Custom
 * plugins of an embedder run after the in-tree ones and before the webhooks, where the
 * reference says new plugins belong.
 */
export const admissionPluginOrder = [
  "NamespaceAutoProvision",
  "NamespaceLifecycle",
  "NamespaceExists",
  "SecurityContextDeny",
  "LimitPodHardAntiAffinityTopology",
  "LimitRanger",
  "ServiceAccount",
  "NodeRestriction",
  "TaintNodesByCondition",
  "ImagePolicyWebhook",
  "PodSecurity",
  "PodNodeSelector",
  "Priority",
  "PodTolerationRestriction",
  "PersistentVolumeLabel",
  "StorageObjectInUseProtection",
  "OwnerReferencesPermissionEnforcement",
  "PersistentVolumeClaimResize",
  "RuntimeClass",
  "CertificateSubjectRestriction",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
] as const;

/** The name of a built-in plugin. */
export type BuiltinPluginName = (typeof admissionPluginOrder)[number];

/**
 * The plugins on when no `--enable-admission-plugins` is given: the reference's default-on set
 * (and CertificateSubjectRestriction, which guards the client signer).
 */
export const defaultAdmissionPlugins: readonly BuiltinPluginName[] = [
  "NamespaceLifecycle",
  "LimitRanger",
  "ServiceAccount",
  "TaintNodesByCondition",
  "PodSecurity",
  "Priority",
  "StorageObjectInUseProtection",
  "PersistentVolumeClaimResize",
  "RuntimeClass",
  "CertificateSubjectRestriction",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
];

/** Plugins the reference removed: naming one stops the start with why. */
export const removedAdmissionPlugins: Readonly<Record<string, string>> = {
  PodSecurityPolicy:
    'admission plugin "PodSecurityPolicy" was removed in v1.25 (PodSecurityPolicy was deprecated in v1.21); use the PodSecurity plugin and the pod-security namespace labels instead',
};

const known: ReadonlySet<string> = new Set(admissionPluginOrder);

/** True when `name` is a built-in plugin. */
export function isBuiltinPlugin(name: string): name is BuiltinPluginName {
  return known.has(name);
}

function checkNames(flag: string, names: readonly string[]): void {
  for (const name of names) {
    if (removedAdmissionPlugins[name]) throw new Error(removedAdmissionPlugins[name]);
    if (!known.has(name)) throw new Error(`${flag} plugin "${name}" is unknown`);
  }
}

/**
 * The built-in plugins a server runs, in their fixed order: the default-on set plus `enable`,
 * minus `disable` (the flags of the same names).
 * @throws Error naming an unknown or removed plugin, or one both enabled and disabled.
 */
export function resolveAdmissionPlugins(enable: readonly string[] = [], disable: readonly string[] = []): BuiltinPluginName[] {
  checkNames("enable-admission-plugins", enable);
  checkNames("disable-admission-plugins", disable);
  const both = enable.filter((n) => disable.includes(n));
  if (both.length) throw new Error(`${both.join(", ")} in enable-admission-plugins and disable-admission-plugins overlapped`);
  const on = new Set<string>([...defaultAdmissionPlugins, ...enable]);
  for (const name of disable) on.delete(name);
  return admissionPluginOrder.filter((name) => on.has(name));
}

/**
 * Builds the chain's plugins from `entries` (built-in names and plugin objects): the built-in
 * ones in the fixed order, the objects in their given order after the in-tree plugins and before
 * the webhook and quota plugins. `configurationOf` gives each built-in plugin its configuration.
 * @throws Error for an unknown or removed name, or a configuration a plugin cannot use.
 */
export function buildAdmissionPlugins(
  entries: readonly (string | AdmissionPlugin)[],
  context: Omit<PluginContext, "configuration">,
  configurationOf: (name: string) => unknown = () => undefined,
): AdmissionPlugin[] {
  const names = entries.filter((e): e is string => typeof e === "string");
  checkNames("admission", names);
  const custom = entries.filter((e): e is AdmissionPlugin => typeof e !== "string");
  const plugins: AdmissionPlugin[] = [];
  for (const name of admissionPluginOrder) {
    if (name === "MutatingAdmissionWebhook") plugins.push(...custom);
    if (names.includes(name)) plugins.push(builtinPluginFactories[name]!({ ...context, configuration: configurationOf(name) }));
  }
  return plugins;
}
