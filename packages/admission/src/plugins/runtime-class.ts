/**
 * RuntimeClass: a new pod naming a RuntimeClass (`node.<domain>` runtimeclasses) gets the class's
 * fixed overhead in `spec.overhead` and its scheduling constraints (node selector, tolerations);
 * a pod may not bring an overhead of its own (the reference's `runtimeclass` plugin).
 * @module
 */
import type { APIObject } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { CachedLookup } from "../internal/namespace-cache.js";
import { isSet, record, records, stringMap } from "../internal/json.js";
import { mergeTolerations, resourceListsEqual } from "../internal/pod-scheduling.js";
import { ensurePodSpec, podSpecOf } from "../internal/pod-spec.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";

const overheadMismatch = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead";
const overheadWithoutClass = "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead";

/** Sets `spec[field]` to `value`, or removes it when `value` is unset. */
function assign(spec: Record<string, unknown>, field: string, value: unknown): void {
  if (isSet(value)) spec[field] = structuredClone(value);
  else delete spec[field];
}

/** Sets the pod's overhead from the class (refusing a different one the pod brought). */
function setOverhead(attrs: AdmissionAttributes, spec: Record<string, unknown>, runtimeClass: APIObject): void {
  const overhead = record(runtimeClass["overhead"]);
  if (!overhead) return;
  const podFixed = overhead["podFixed"];
  if (isSet(spec["overhead"]) && !resourceListsEqual(podFixed, spec["overhead"])) throw admissionForbidden(attrs, overheadMismatch);
  assign(spec, "overhead", podFixed);
}

/** Adds the class's node selector (refusing a conflicting pod label) and tolerations. */
function setScheduling(attrs: AdmissionAttributes, spec: Record<string, unknown>, runtimeClass: APIObject): void {
  const scheduling = record(runtimeClass["scheduling"]);
  if (!scheduling) return;
  const fromClass = stringMap(scheduling["nodeSelector"]);
  if (!isSet(spec["nodeSelector"])) {
    assign(spec, "nodeSelector", scheduling["nodeSelector"]);
  } else {
    const own = stringMap(spec["nodeSelector"]);
    for (const [key, value] of Object.entries(fromClass)) {
      const podValue = own[key];
      if (podValue !== undefined && podValue !== value) {
        throw admissionForbidden(attrs, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${podValue}`);
      }
      own[key] = value;
    }
    spec["nodeSelector"] = own;
  }
  const tolerations = mergeTolerations(
    records(spec["tolerations"]),
    records(scheduling["tolerations"]).map((t) => structuredClone(t)),
  );
  assign(spec, "tolerations", tolerations.length > 0 ? tolerations : undefined);
}

/**
 * The RuntimeClass plugin (CREATE of pods, not their sub-resources). For a pod with
 * `spec.runtimeClassName`: 403 `pod rejected: RuntimeClass "<x>" not found` when the class does
 * not exist. `admit` copies the class's `overhead.podFixed` into `spec.overhead` (403 `pod
 * rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead` when the pod set
 * another one), merges `scheduling.nodeSelector` into `spec.nodeSelector` (403 `conflict:
 * runtimeClass.scheduling.nodeSelector[k] = v; pod.spec.nodeSelector[k] = w` on a different
 * value) and merges `scheduling.tolerations` into `spec.tolerations`. `validate` refuses a pod
 * whose overhead differs from its class's, or that sets one without a class that defines one
 * (`pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`).
 */
export const runtimeClass: PluginFactory = ({ services }) => {
  const classes = new CachedLookup(services, `node.${services.domain}`, "runtimeclasses");

  /** The pod's RuntimeClass; `undefined` when it names none. */
  async function classOf(attrs: AdmissionAttributes, pod: APIObject): Promise<APIObject | undefined> {
    const name = podSpecOf(pod)?.["runtimeClassName"];
    if (typeof name !== "string") return undefined;
    const found = await classes.find("", name);
    if (!found) throw admissionForbidden(attrs, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    return found;
  }

  const podOf = (attrs: AdmissionAttributes) => (isResource(attrs, "", "pods") ? attrs.object : undefined);

  const plugin: AdmissionPlugin = {
    name: "RuntimeClass",
    operations: ["CREATE"],
    handlesResource: (group, resource) => group === "" && resource === "pods",
    ready: () => classes.ready(),
    async admit(attrs: AdmissionAttributes) {
      const pod = podOf(attrs);
      if (!pod) return;
      const found = await classOf(attrs, pod);
      if (!found) return;
      const spec = ensurePodSpec(pod);
      setOverhead(attrs, spec, found);
      setScheduling(attrs, spec, found);
    },
    async validate(attrs: AdmissionAttributes) {
      const pod = podOf(attrs);
      if (!pod) return;
      const found = await classOf(attrs, pod);
      const podOverhead = podSpecOf(pod)?.["overhead"];
      const overhead = record(found?.["overhead"]);
      if (overhead) {
        if (!resourceListsEqual(overhead["podFixed"], podOverhead)) throw admissionForbidden(attrs, overheadMismatch);
      } else if (isSet(podOverhead)) {
        throw admissionForbidden(attrs, overheadWithoutClass);
      }
    },
  };
  return plugin;
};
