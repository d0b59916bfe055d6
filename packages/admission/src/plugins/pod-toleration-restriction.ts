/**
 * PodTolerationRestriction (alpha): a new pod gets its namespace's default tolerations, every
 * pod that is not BestEffort tolerates the memory-pressure taint, and a pod's tolerations must
 * all be covered by its namespace's whitelist (the reference's `podtolerationrestriction`
 * plugin).
 *
 * The namespace's defaults and whitelist are the JSON lists of tolerations in its annotations
 * `scheduler.alpha.<prefix>/defaultTolerations` and `scheduler.alpha.<prefix>/tolerationsWhitelist`
 * (`kubernetes.io` under domain `k8s.io`); a namespace without the annotation uses the
 * configuration's `default` and `whitelist` (an annotation set to `""` is an empty list and does
 * not fall back).
 *
 * Configuration (the reference's `Configuration` of
 * `podtolerationrestriction.admission.<domain>/v1alpha1`):
 * ```yaml
 * kind: Configuration
 * apiVersion: podtolerationrestriction.admission.orch.io/v1alpha1
 * default:
 *   - { key: dedicated, operator: Equal, value: general, effect: NoSchedule }
 * whitelist:
 *   - { key: dedicated, operator: Exists }
 * ```
 * @module
 */
import { FieldPath, formatFieldError, notFound, type APIObject } from "@orch/meta";
import { podQOSClass, validateTolerations } from "@orch/resources";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { CachedLookup, namespacesResource } from "../internal/namespace-cache.js";
import { labelDomain } from "../internal/domain.js";
import { jsonKind, record, records } from "../internal/json.js";
import { coveredByWhitelist, mergeTolerations, type Toleration } from "../internal/pod-scheduling.js";
import { ensurePodSpec, podSpecOf } from "../internal/pod-spec.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";

const whitelistMessage = "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist";

/** The plugin's cluster-wide defaults. */
interface Configuration {
  default: Toleration[] | undefined;
  whitelist: Toleration[] | undefined;
}

/** The fields of a toleration and the Go type the reference decodes each into. */
const tolerationFields: Readonly<Record<string, "string" | "int64">> = {
  key: "string",
  operator: "string",
  value: "string",
  effect: "string",
  tolerationSeconds: "int64",
};

/** One toleration decoded as the reference decodes `v1.Toleration` (unknown fields dropped). */
function decodeToleration(value: unknown): Toleration {
  if (value === null) return {};
  const t = record(value);
  if (!t) throw new Error(`json: cannot unmarshal ${jsonKind(value)} into Go value of type v1.Toleration`);
  const out: Toleration = {};
  for (const [field, type] of Object.entries(tolerationFields)) {
    const v = t[field];
    if (v === undefined || v === null) continue;
    const ok = type === "string" ? typeof v === "string" : typeof v === "number" && Number.isInteger(v);
    if (!ok) throw new Error(`json: cannot unmarshal ${jsonKind(v)} into Go struct field Toleration.${field} of type ${type}`);
    if (v !== "") out[field] = v;
  }
  return out;
}

/**
 * The tolerations of annotation `key` of `namespace`: `undefined` when the annotation is absent,
 * `[]` when it is empty.
 * @throws Error with the decoder's message when it is not a JSON list of tolerations.
 */
function annotationTolerations(namespace: APIObject, key: string): Toleration[] | undefined {
  const text = namespace.metadata.annotations?.[key];
  if (text === undefined) return undefined;
  if (text === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error), { cause: error });
  }
  if (value === null) return [];
  if (!Array.isArray(value)) throw new Error(`json: cannot unmarshal ${jsonKind(value)} into Go value of type []v1.Toleration`);
  return value.map(decodeToleration);
}

/** Reads one list of the configuration, checked with the toleration rules. */
function configuredList(root: Record<string, unknown>, field: "default" | "whitelist"): Toleration[] | undefined {
  const value = root[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new Error(`PodTolerationRestriction: ${field} must be a list of tolerations`);
  const errors = validateTolerations(value, FieldPath.root(field));
  if (errors.length) throw new Error(`PodTolerationRestriction: invalid configuration: ${errors.map(formatFieldError).join(", ")}`);
  return value.map(decodeToleration);
}

/**
 * Reads the plugin's configuration.
 * @throws Error for another kind or apiVersion, or lists that are not valid tolerations.
 */
function readConfiguration(configuration: unknown, domain: string): Configuration {
  if (configuration === undefined || configuration === null) return { default: undefined, whitelist: undefined };
  const root = record(configuration);
  if (!root) throw new Error("PodTolerationRestriction: the configuration must be an object");
  const apiVersion = root["apiVersion"];
  const expected = `podtolerationrestriction.admission.${domain}/v1alpha1`;
  if (apiVersion !== undefined && apiVersion !== expected)
    throw new Error(`PodTolerationRestriction: apiVersion must be ${expected}, not ${JSON.stringify(apiVersion)}`);
  const kind = root["kind"];
  if (kind !== undefined && kind !== "Configuration") throw new Error(`PodTolerationRestriction: kind must be Configuration, not ${JSON.stringify(kind)}`);
  return { default: configuredList(root, "default"), whitelist: configuredList(root, "whitelist") };
}

/**
 * The PodTolerationRestriction plugin (CREATE and UPDATE of pods, not their sub-resources).
 * `admit`: on CREATE the namespace's default tolerations (else the configured ones) are merged
 * into `spec.tolerations` (the pod's own first; one covered by another is dropped), and a pod
 * that is not BestEffort gets `node.<prefix>/memory-pressure:NoSchedule` (`Exists`); then, as
 * `validate`, every toleration must be covered by the namespace's whitelist (else the configured
 * one; none: anything goes), else 403 `pod tolerations (possibly merged with namespace default
 * tolerations) conflict with its namespace whitelist`. An annotation that is not a JSON list of
 * tolerations refuses the pod (403 with the decoder's message); a missing namespace is 404.
 * @throws Error at construction for a configuration it cannot use.
 */
export const podTolerationRestriction: PluginFactory = ({ services, configuration }) => {
  const config = readConfiguration(configuration, services.domain);
  const prefix = labelDomain(services.domain);
  const defaultsKey = `scheduler.alpha.${prefix}/defaultTolerations`;
  const whitelistKey = `scheduler.alpha.${prefix}/tolerationsWhitelist`;
  const memoryPressure: Toleration = { key: `node.${prefix}/memory-pressure`, operator: "Exists", effect: "NoSchedule" };
  const namespaces = new CachedLookup(services, "", "namespaces");

  /** The tolerations of one annotation of the pod's namespace. */
  async function fromNamespace(attrs: AdmissionAttributes, key: string): Promise<Toleration[] | undefined> {
    const namespace = await namespaces.find("", attrs.namespace);
    if (!namespace) throw notFound(namespacesResource, attrs.namespace);
    try {
      return annotationTolerations(namespace, key);
    } catch (error) {
      throw admissionForbidden(attrs, error instanceof Error ? error.message : String(error));
    }
  }

  async function checkWhitelist(attrs: AdmissionAttributes, pod: APIObject): Promise<void> {
    const tolerations = records(podSpecOf(pod)?.["tolerations"]);
    if (tolerations.length === 0) return;
    const whitelist = (await fromNamespace(attrs, whitelistKey)) ?? config.whitelist ?? [];
    if (!coveredByWhitelist(tolerations, whitelist)) throw admissionForbidden(attrs, whitelistMessage);
  }

  const podOf = (attrs: AdmissionAttributes) => (isResource(attrs, "", "pods") ? attrs.object : undefined);

  const plugin: AdmissionPlugin = {
    name: "PodTolerationRestriction",
    operations: ["CREATE", "UPDATE"],
    ready: () => namespaces.ready(),
    async admit(attrs: AdmissionAttributes) {
      const pod = podOf(attrs);
      if (!pod) return;
      const extra: Toleration[] = [];
      if (attrs.operation === "CREATE") extra.push(...((await fromNamespace(attrs, defaultsKey)) ?? config.default ?? []));
      if (podQOSClass(pod) !== "BestEffort") extra.push(memoryPressure);
      if (extra.length > 0) {
        const spec = ensurePodSpec(pod);
        spec["tolerations"] = mergeTolerations(
          records(spec["tolerations"]),
          extra.map((t) => structuredClone(t)),
        );
      }
      await checkWhitelist(attrs, pod);
    },
    async validate(attrs: AdmissionAttributes) {
      const pod = podOf(attrs);
      if (pod) await checkWhitelist(attrs, pod);
    },
  };
  return plugin;
};
