/**
 * The APIServices of the versions the server serves itself (`v1.`, `v1.apps`, ...), as the
 * reference's aggregator registers its delegate's versions at start: `spec.service` absent
 * (Local), the reference's group and version priorities, status `Available=True` reason `Local`,
 * and a label saying the server manages them. At each start a server creates the missing ones,
 * puts back a changed spec, and deletes the Local ones it manages for versions it does not serve
 * (turned off by `runtimeConfig`). Another server's create that wins a race is fine.
 * @module
 */
import { isConflict, type APIObject } from "@orch/meta";
import type { ControllerInput } from "../control-loop.js";
import { sameJSON } from "../same-json.js";
import { mutableCopy, type ServedResource } from "../served-resource.js";
import { createIfMissing, listStored, systemWrite } from "./system-write.js";

/** A group (`""` for core, else resolved: `apps`, `coordination.orch.io`) and one of its versions. */
export interface GroupVersion {
  group: string;
  version: string;
}

type Priority = readonly [group: number, version: number];

/**
 * The reference's priorities by `<group>/<version>`, `{domain}` standing for the domain: the
 * minimum priority of the group in discovery, and the version's order inside it.
 */
const priorities: Readonly<Record<string, Priority>> = {
  "/v1": [18000, 1],
  "apiregistration.{domain}/v1": [18000, 15],
  "apps/v1": [17800, 15],
  "events.{domain}/v1": [17750, 15],
  "events.{domain}/v1beta1": [17750, 5],
  "authentication.{domain}/v1": [17700, 15],
  "authentication.{domain}/v1beta1": [17700, 9],
  "authentication.{domain}/v1alpha1": [17700, 1],
  "authorization.{domain}/v1": [17600, 15],
  "autoscaling/v1": [17500, 15],
  "autoscaling/v2": [17500, 30],
  "autoscaling/v2beta1": [17500, 9],
  "autoscaling/v2beta2": [17500, 1],
  "batch/v1": [17400, 15],
  "batch/v1beta1": [17400, 9],
  "certificates.{domain}/v1": [17300, 15],
  "certificates.{domain}/v1alpha1": [17300, 1],
  "networking.{domain}/v1": [17200, 15],
  "networking.{domain}/v1beta1": [17200, 9],
  "policy/v1": [17100, 15],
  "policy/v1beta1": [17100, 9],
  "rbac.authorization.{domain}/v1": [17000, 15],
  "storage.{domain}/v1": [16800, 15],
  "storage.{domain}/v1beta1": [16800, 9],
  "storage.{domain}/v1alpha1": [16800, 1],
  "apiextensions.{domain}/v1": [16700, 15],
  "admissionregistration.{domain}/v1": [16700, 15],
  "admissionregistration.{domain}/v1beta1": [16700, 12],
  "admissionregistration.{domain}/v1alpha1": [16700, 9],
  "scheduling.{domain}/v1": [16600, 15],
  "coordination.{domain}/v1": [16500, 15],
  "node.{domain}/v1": [16300, 15],
  "node.{domain}/v1beta1": [16300, 9],
  "discovery.{domain}/v1": [16200, 15],
  "discovery.{domain}/v1beta1": [16200, 12],
  "flowcontrol.apiserver.{domain}/v1": [16100, 21],
  "flowcontrol.apiserver.{domain}/v1beta3": [16100, 18],
  "flowcontrol.apiserver.{domain}/v1beta2": [16100, 15],
  "flowcontrol.apiserver.{domain}/v1beta1": [16100, 12],
  "flowcontrol.apiserver.{domain}/v1alpha1": [16100, 9],
};

/**
 * The group priority of a group the reference's table does not list (ImageReview's
 * `imagepolicy`, a kind given in the server's `resources`): below every listed group, as the
 * reference advises for a new one. The reference registers no APIService for such a group; this
 * server does, so that every version it serves has one.
 */
export const unlistedGroupPriority = 15000;

/** The priorities of `gv` under `domain`: the reference's, else {@link unlistedGroupPriority} and 15, 9 or 1 for GA, beta, alpha. */
export function apiServicePriority(gv: GroupVersion, domain: string): { groupPriorityMinimum: number; versionPriority: number } {
  const template = gv.group.endsWith(`.${domain}`) ? `${gv.group.slice(0, -domain.length)}{domain}` : gv.group;
  const known = priorities[`${template}/${gv.version}`];
  if (known) return { groupPriorityMinimum: known[0], versionPriority: known[1] };
  const level = gv.version.includes("alpha") ? 1 : gv.version.includes("beta") ? 9 : 15;
  return { groupPriorityMinimum: unlistedGroupPriority, versionPriority: level };
}

/**
 * The label on the APIServices a server manages, valued `onstart` (set at start, removed at start
 * when no longer served): `kube-aggregator.kubernetes.io/automanaged` under `k8s.io`,
 * `orch-aggregator.orch.io/automanaged` under `orch.io`.
 */
export function automanagedLabel(domain: string): string {
  const short = domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? "orch");
  return `${short}-aggregator.${domain === "k8s.io" ? "kubernetes.io" : domain}/automanaged`;
}

/** The name of the APIService of `gv`: `<version>.<group>` (`v1.` for the core group). */
export function apiServiceName(gv: GroupVersion): string {
  return `${gv.version}.${gv.group}`;
}

/** The APIService (without status) of a version served by the server itself. */
export function localAPIService(gv: GroupVersion, domain: string, apiVersion: string): APIObject {
  return {
    apiVersion,
    kind: "APIService",
    metadata: { name: apiServiceName(gv), labels: { [automanagedLabel(domain)]: "onstart" } },
    spec: { group: gv.group, version: gv.version, ...apiServicePriority(gv, domain) },
  };
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);

/** True when the object's `Available` condition is `True` with reason `Local`. */
function availableLocally(object: APIObject): boolean {
  const conditions = rec(object["status"])?.["conditions"];
  return (
    Array.isArray(conditions) && conditions.some((c) => rec(c)?.["type"] === "Available" && rec(c)?.["status"] === "True" && rec(c)?.["reason"] === "Local")
  );
}

/** Runs one write, answering undefined when another server changed the object first (it writes the same). */
async function raced(write: () => Promise<APIObject>): Promise<APIObject | undefined> {
  try {
    return await write();
  } catch (error) {
    if (isConflict(error)) return undefined;
    throw error;
  }
}

/** Creates or corrects the APIService of `gv`, and sets its `Available` condition when it lacks it. */
async function ensureLocalAPIService(input: ControllerInput, resource: ServedResource, current: APIObject | undefined, gv: GroupVersion): Promise<void> {
  const desired = localAPIService(gv, input.domain, resource.apiVersion);
  const name = desired.metadata.name ?? "";
  let stored = current;
  if (!stored) stored = await createIfMissing(input.objects, resource, desired, input.domain);
  else if (!sameJSON(stored["spec"], desired["spec"])) {
    const next = { ...stored, spec: desired["spec"] };
    stored = await raced(async () => mutableCopy((await input.objects.update(resource, "", name, next, "", systemWrite(input.domain))).body as APIObject));
  }
  if (!stored || availableLocally(stored)) return;
  const condition = {
    type: "Available",
    status: "True",
    lastTransitionTime: new Date(input.clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z"),
    reason: "Local",
    message: "Local APIServices are always available",
  };
  const status = rec(stored["status"]) ?? {};
  const others = Array.isArray(status["conditions"]) ? status["conditions"].filter((c) => rec(c)?.["type"] !== "Available") : [];
  const next = { ...stored, status: { ...status, conditions: [...others, condition] } };
  await raced(async () => (await input.objects.update(resource, "", name, next, "status", systemWrite(input.domain))).body as APIObject);
}

/**
 * Creates, corrects and removes the Local APIServices so that they are those of `served`; nothing
 * when the catalog has no APIService.
 */
export async function reconcileLocalAPIServices(input: ControllerInput, served: readonly GroupVersion[]): Promise<void> {
  const resource = input.served(`apiregistration.${input.domain}`, "apiservices");
  if (!resource) return;
  const label = automanagedLabel(input.domain);
  const existing = new Map((await listStored(input.store, resource)).map((o) => [o.metadata.name ?? "", o]));
  const names = new Set(served.map(apiServiceName));
  // One APIService's writes do not wait for another's.
  await Promise.all(served.map((gv) => ensureLocalAPIService(input, resource, existing.get(apiServiceName(gv)), gv)));
  for (const [name, object] of existing) {
    if (names.has(name) || object.metadata.labels?.[label] !== "onstart" || rec(object["spec"])?.["service"]) continue;
    try {
      await input.objects.delete(resource, "", name, { dryRun: false });
    } catch (error) {
      input.log(`cannot remove the APIService ${name}, no longer served: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
