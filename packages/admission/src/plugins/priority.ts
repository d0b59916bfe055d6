/**
 * Priority: a new pod's `spec.priority` and `spec.preemptionPolicy` come from its PriorityClass
 * (`scheduling.<domain>` priorityclasses), and at most one PriorityClass is the global default
 * (the reference's `priority` plugin).
 *
 * The built-in classes `system-cluster-critical` and `system-node-critical` resolve even before
 * their objects exist. As in the reference since 1.17, they are not limited to the
 * `<short>-system` namespace: quota's `limitedResources` is the tool for that.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { systemPriorityClasses } from "@orch/resources";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { isSet, str } from "../internal/json.js";
import { ensurePodSpec, podSpecOf } from "../internal/pod-spec.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";
import type { LiveList } from "../services.js";

/** The policy of a pod whose class sets none, or when no class applies. */
const defaultPreemptionPolicy = "PreemptLowerPriority";

/**
 * Refuses a pod that brings its own value (`given`, set) for a field its class computes
 * (`computed`), unless the two agree. `what` names the field in the reference's message.
 * @throws StatusError Forbidden.
 */
function refuseOwnValue(attrs: AdmissionAttributes, what: string, given: unknown, computed: number | string): void {
  if (!isSet(given) || given === computed) return;
  throw admissionForbidden(
    attrs,
    `the ${what} (${String(given)}) must not be provided in pod spec; priority admission controller computed ${computed} from the given PriorityClass name`,
  );
}

/** What a pod gets from its class. */
interface Resolved {
  /** The class name to record (`""` when no default class exists). */
  name: string;
  value: number;
  /** `undefined` when the class sets no policy. */
  preemptionPolicy: string | undefined;
}

function valueOf(priorityClass: APIObject): number {
  const value = priorityClass["value"];
  return typeof value === "number" ? value : 0;
}

function policyOf(priorityClass: APIObject): string | undefined {
  const policy = priorityClass["preemptionPolicy"];
  return typeof policy === "string" && policy !== "" ? policy : undefined;
}

/** The global default class: of several (a race), the one with the lowest value, as the reference. */
function defaultClass(classes: readonly APIObject[]): APIObject | undefined {
  let found: APIObject | undefined;
  for (const c of classes) {
    if (c["globalDefault"] === true && (found === undefined || valueOf(found) > valueOf(c))) found = c;
  }
  return found;
}

/**
 * The Priority plugin. `admit` (pods, CREATE and UPDATE):
 *
 * - CREATE without `priorityClassName`: the global default class fills the name, its value and
 *   policy; with none, priority 0 and `PreemptLowerPriority`;
 * - CREATE with a name: the class's value and policy; 403 `no PriorityClass with name <x> was
 *   found` when it does not exist (the two system classes always do);
 * - a pod that already sets another `priority` is 403 `the integer value of priority (<n>) must
 *   not be provided in pod spec; priority admission controller computed <m> from the given
 *   PriorityClass name`, another `preemptionPolicy` likewise (`the string value of
 *   PreemptionPolicy (<p>) ...`);
 * - UPDATE: a pod that drops `priority` or `preemptionPolicy` gets the stored values back.
 *
 * `validate` (priorityclasses, CREATE and UPDATE): a class marked `globalDefault` while another
 * one is is 403 `PriorityClass <other> is already marked as default. Only one default can exist`.
 */
export const priority: PluginFactory = ({ services }) => {
  const group = `scheduling.${services.domain}`;
  const all: LiveList = services.watchList(group, "priorityclasses");

  /** A class from the watch-kept view, read live when the view does not know it (yet). */
  async function find(name: string): Promise<APIObject | undefined> {
    return all.items().find((c) => c.metadata.name === name) ?? (await services.get(group, "priorityclasses", "", name));
  }

  async function resolveNamed(attrs: AdmissionAttributes, name: string): Promise<Resolved> {
    const found = await find(name);
    if (found) return { name, value: valueOf(found), preemptionPolicy: policyOf(found) };
    const system = systemPriorityClasses.find((c) => c.name === name);
    if (system) return { name, value: system.value, preemptionPolicy: defaultPreemptionPolicy };
    throw admissionForbidden(attrs, `no PriorityClass with name ${name} was found`);
  }

  function resolveDefault(): Resolved {
    const found = defaultClass(all.items());
    if (found) return { name: found.metadata.name ?? "", value: valueOf(found), preemptionPolicy: policyOf(found) };
    return { name: "", value: 0, preemptionPolicy: defaultPreemptionPolicy };
  }

  async function admitCreate(attrs: AdmissionAttributes, pod: APIObject): Promise<void> {
    const spec = ensurePodSpec(pod);
    const className = str(spec["priorityClassName"]);
    const resolved = className === "" ? resolveDefault() : await resolveNamed(attrs, className);
    if (className === "" && resolved.name !== "") spec["priorityClassName"] = resolved.name;
    refuseOwnValue(attrs, "integer value of priority", spec["priority"], resolved.value);
    spec["priority"] = resolved.value;
    if (resolved.preemptionPolicy === undefined) return;
    refuseOwnValue(attrs, "string value of PreemptionPolicy", spec["preemptionPolicy"], resolved.preemptionPolicy);
    spec["preemptionPolicy"] = resolved.preemptionPolicy;
  }

  function admitUpdate(pod: APIObject, old: APIObject | undefined): void {
    const oldSpec = podSpecOf(old);
    if (!oldSpec) return;
    const spec = ensurePodSpec(pod);
    for (const field of ["priority", "preemptionPolicy"]) {
      if (!isSet(spec[field]) && isSet(oldSpec[field])) spec[field] = oldSpec[field];
    }
  }

  const plugin: AdmissionPlugin = {
    name: "Priority",
    operations: ["CREATE", "UPDATE"],
    handlesResource: (g, resource) => (g === "" && resource === "pods") || (g === group && resource === "priorityclasses"),
    ready: () => all.ready(),
    async admit(attrs: AdmissionAttributes) {
      const pod = attrs.object;
      if (!pod || !isResource(attrs, "", "pods")) return;
      if (attrs.operation === "CREATE") await admitCreate(attrs, pod);
      else admitUpdate(pod, attrs.oldObject);
    },
    validate(attrs: AdmissionAttributes) {
      const priorityClass = attrs.object;
      if (!priorityClass || !isResource(attrs, group, "priorityclasses")) return;
      if (priorityClass["globalDefault"] !== true) return;
      const current = defaultClass(all.items());
      if (!current) return;
      const currentName = current.metadata.name ?? "";
      if (attrs.operation === "CREATE" || currentName !== priorityClass.metadata.name) {
        throw admissionForbidden(attrs, `PriorityClass ${currentName} is already marked as default. Only one default can exist`);
      }
    },
  };
  return plugin;
};
