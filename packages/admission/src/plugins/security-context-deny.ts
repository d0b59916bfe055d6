/**
 * SecurityContextDeny: refuses pods (CREATE and UPDATE of `pods`, not its sub-resources) that
 * set the security-context fields the reference's plugin denies: at pod level
 * `supplementalGroups`, `seLinuxOptions`, `runAsUser` and `fsGroup`; in init containers and
 * containers `seLinuxOptions` and `runAsUser`. The first field found is refused, with the
 * reference's messages (`pod.Spec.SecurityContext.RunAsUser is forbidden`,
 * `SecurityContext.SELinuxOptions is forbidden`).
 * @module
 */
import { badRequest, forbidden } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { isSet, type JSONRecord } from "../internal/json.js";
import { podContainers, podSecurityContextOf, podSpecOf } from "../internal/pod-spec.js";
import type { AdmissionPlugin, PluginFactory } from "../plugin.js";

/** Pod-level fields, in the order the reference checks them, with the Go name it prints. */
const podFields: readonly (readonly [string, string])[] = [
  ["supplementalGroups", "SupplementalGroups"],
  ["seLinuxOptions", "SELinuxOptions"],
  ["runAsUser", "RunAsUser"],
  ["fsGroup", "FSGroup"],
];

/** Container-level fields, in the order the reference checks them. */
const containerFields: readonly (readonly [string, string])[] = [
  ["seLinuxOptions", "SELinuxOptions"],
  ["runAsUser", "RunAsUser"],
];

/** The message naming the first denied field of `pod`, or `undefined` when it sets none. */
export function securityContextDenial(pod: JSONRecord): string | undefined {
  const spec = podSpecOf(pod);
  const podContext = podSecurityContextOf(spec);
  for (const [field, goName] of podFields) {
    if (isSet(podContext?.[field])) return `pod.Spec.SecurityContext.${goName} is forbidden`;
  }
  // The reference looks at init containers, then containers; never ephemeral containers.
  for (const c of podContainers(spec)) {
    if (c.list === "ephemeralContainers") continue;
    for (const [field, goName] of containerFields) {
      if (isSet(c.securityContext?.[field])) return `SecurityContext.${goName} is forbidden`;
    }
  }
  return undefined;
}

function validate(attrs: AdmissionAttributes): void {
  if (!isResource(attrs, "", "pods")) return;
  const pod = attrs.object;
  if (!pod || attrs.kind.kind !== "Pod") throw badRequest("Resource was marked with kind Pod but was unable to be converted");
  const why = securityContextDenial(pod);
  if (why) throw forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, pod.metadata.name ?? attrs.name, why);
}

/** The SecurityContextDeny plugin (validating; CREATE and UPDATE of pods). */
export const securityContextDeny: PluginFactory = (): AdmissionPlugin => ({
  name: "SecurityContextDeny",
  operations: ["CREATE", "UPDATE"],
  validate,
});
