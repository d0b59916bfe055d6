/**
 * Reading pods as plain JSON: the spec of a pod or of a workload's pod template, and every
 * container of a spec (init, regular and ephemeral, in the reference's visiting order) with its
 * field path. Shared by the pod plugins (PodSecurity, SecurityContextDeny, ...).
 * @module
 */
import { record, str, type JSONRecord } from "./json.js";

/** The lists of a pod spec that hold containers, in the order the reference visits them. */
export const containerLists = ["initContainers", "containers", "ephemeralContainers"] as const;

/** Which list of the pod spec a container is in. */
export type ContainerList = (typeof containerLists)[number];

/** One container of a pod spec. */
export interface PodContainer {
  /** The container object itself (not a copy: mutating plugins may change it). */
  readonly container: JSONRecord;
  /** Its `name` (`""` when missing). */
  readonly name: string;
  /** The list it is in. */
  readonly list: ContainerList;
  /** Its index in that list. */
  readonly index: number;
  /** Its field path, `spec.initContainers[0]` (below `base` as given to {@link podContainers}). */
  readonly path: string;
  /** Its `securityContext`, when it has one. */
  readonly securityContext: JSONRecord | undefined;
}

/**
 * Every container of `spec`: init containers, then containers, then ephemeral containers (the
 * reference's `visitContainers` order), each with its field path below `base` (`spec`, or
 * `spec.template.spec` for a workload). Entries that are not objects are skipped.
 */
export function podContainers(spec: JSONRecord | undefined, base = "spec"): PodContainer[] {
  const out: PodContainer[] = [];
  if (!spec) return out;
  for (const list of containerLists) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item, index) => {
      const container = record(item);
      if (!container) return;
      out.push({
        container,
        name: str(container["name"]),
        list,
        index,
        path: `${base}.${list}[${index}]`,
        securityContext: record(container["securityContext"]),
      });
    });
  }
  return out;
}

/** The `spec` of a pod object, when it has one. */
export function podSpecOf(pod: JSONRecord | undefined): JSONRecord | undefined {
  return record(pod?.["spec"]);
}

/** The `spec` of a pod object, created (and set on the pod) when missing, so a mutating plugin can fill it. */
export function ensurePodSpec(pod: JSONRecord): JSONRecord {
  const spec = podSpecOf(pod);
  if (spec) return spec;
  const created: JSONRecord = {};
  pod["spec"] = created;
  return created;
}

/** The pod-level `spec.securityContext` of a pod spec, when set. */
export function podSecurityContextOf(spec: JSONRecord | undefined): JSONRecord | undefined {
  return record(spec?.["securityContext"]);
}

/**
 * The pod template (`{ metadata, spec }`) of a workload object: `spec.template` for Deployment,
 * ReplicaSet, StatefulSet, DaemonSet, Job and ReplicationController, `template` for PodTemplate,
 * `spec.jobTemplate.spec.template` for CronJob (`kind` picks the form). `undefined` when the
 * object has none (a ReplicationController may omit it).
 */
export function podTemplateOf(object: JSONRecord, kind: string): { template: JSONRecord; path: string } | undefined {
  const spec = record(object["spec"]);
  const at = (template: unknown, path: string) => {
    const t = record(template);
    return t ? { template: t, path } : undefined;
  };
  switch (kind) {
    case "PodTemplate":
      return at(object["template"], "template");
    case "CronJob":
      return at(record(record(spec?.["jobTemplate"])?.["spec"])?.["template"], "spec.jobTemplate.spec.template");
    default:
      return at(spec?.["template"], "spec.template");
  }
}
