/**
 * OwnerReferencesPermissionEnforcement: changing `metadata.ownerReferences` needs the right to
 * delete the object, and making a reference block its owner's deletion needs the right to set
 * the owner's finalizers (the reference's `gc` admission plugin).
 * @module
 */
import type { AccessAttributes, AccessDecision } from "@orch/resources";
import type { OwnerReference } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { semanticEqual } from "../internal/json.js";
import { builtinOwnerResolver, type OwnerResourceResolver } from "../internal/owner-resources.js";
import { admissionForbidden, type PluginFactory } from "../plugin.js";
import type { AdmissionServices } from "../services.js";

/** The reference's rendering of an authorizer's answer: `<reason>, <error or <nil>>`. */
function because(answer: AccessDecision): string {
  return `${answer.reason}, ${answer.error ?? "<nil>"}`;
}

/** True when the write sets owner references (CREATE) or changes them (UPDATE). */
function changesOwners(attrs: AdmissionAttributes): boolean {
  const next = attrs.object?.metadata.ownerReferences ?? [];
  if (!attrs.oldObject) return next.length > 0;
  const previous = attrs.oldObject.metadata.ownerReferences ?? [];
  return next.length !== previous.length || previous.some((ref, i) => !semanticEqual(ref, next[i]));
}

/** The references of the new object that block owner deletion and did not before (matched by uid). */
function newlyBlocking(attrs: AdmissionAttributes): OwnerReference[] {
  const blocking = (attrs.object?.metadata.ownerReferences ?? []).filter((ref) => ref.blockOwnerDeletion === true);
  if (!attrs.oldObject || blocking.length === 0) return blocking;
  const before = new Map((attrs.oldObject.metadata.ownerReferences ?? []).map((ref) => [ref.uid, ref]));
  return blocking.filter((ref) => before.get(ref.uid)?.blockOwnerDeletion !== true);
}

/** The attributes of the question "may the caller `verb` this?" about the written object. */
function aboutObject(attrs: AdmissionAttributes, verb: string): AccessAttributes {
  return {
    user: attrs.user,
    verb,
    resourceRequest: true,
    apiGroup: attrs.resource.group,
    apiVersion: attrs.resource.version,
    resource: attrs.resource.resource,
    subresource: attrs.subresource,
    namespace: attrs.namespace,
    name: attrs.name,
  };
}

/** The questions "may the caller update the finalizers of the owner `ref` names?", one per resource. */
function aboutOwner(attrs: AdmissionAttributes, ref: OwnerReference, resolve: OwnerResourceResolver): AccessAttributes[] {
  let resources;
  try {
    resources = resolve(ref.apiVersion, ref.kind, attrs.namespace !== "");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw admissionForbidden(
      attrs,
      `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: ${why}`,
    );
  }
  return resources.map((r) => ({
    user: attrs.user,
    verb: "update",
    resourceRequest: true,
    apiGroup: r.group,
    apiVersion: r.version,
    resource: r.resource,
    subresource: "finalizers",
    // An owner is in the dependent's namespace, or cluster-scoped.
    namespace: r.namespaced ? attrs.namespace : "",
    name: ref.name,
  }));
}

/** True when the caller may update the finalizers of anything in the namespace (one question instead of many). */
async function mayFinalizeAnything(services: AdmissionServices, attrs: AdmissionAttributes): Promise<boolean> {
  const answer = await services.authorize({
    user: attrs.user,
    verb: "update",
    resourceRequest: true,
    apiGroup: "*",
    apiVersion: "*",
    resource: "*",
    subresource: "finalizers",
    namespace: attrs.namespace,
    name: "*",
  });
  return answer.decision === "allow";
}

/**
 * The OwnerReferencesPermissionEnforcement plugin (validating phase, CREATE and UPDATE), as the
 * reference's, refusing with 403:
 * - an UPDATE that changes `metadata.ownerReferences` needs `delete` on the written object
 *   (its resource, sub-resource, namespace and name), else
 *   `cannot set an ownerRef on a resource you can't delete: <reason>, <error>`; a CREATE needs
 *   no such right (the caller could have not created it);
 * - a reference newly set to `blockOwnerDeletion: true` (new, or false/unset before, matched by
 *   uid) needs `update` on the owner's `finalizers` sub-resource (the owner's resource from its
 *   `apiVersion` and `kind`; in the dependent's namespace unless the owner is cluster-scoped),
 *   else `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set
 *   finalizers on: <reason>, <error>`; a caller allowed to update `*` / `finalizers` in the
 *   namespace is asked nothing more; a malformed `apiVersion` is refused with
 *   `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for ...`.
 * `pods/status` is exempt (its strategy keeps owner references).
 *
 * The owner's kind is mapped with the built-in catalog, then the reference's plural guess (see
 * `builtinOwnerResolver`): exact for built-in kinds, a guess for custom resources.
 */
export const ownerReferencesPermissionEnforcement: PluginFactory = ({ services }) => {
  const resolve = builtinOwnerResolver(services.domain, services.resourceForKind?.bind(services));
  return {
    name: "OwnerReferencesPermissionEnforcement",
    operations: ["CREATE", "UPDATE"],
    async validate(attrs) {
      if (attrs.resource.group === "" && attrs.resource.resource === "pods" && attrs.subresource === "status") return;
      if (!attrs.object || !changesOwners(attrs)) return;
      if (attrs.operation !== "CREATE") {
        const answer = await services.authorize(aboutObject(attrs, "delete"));
        if (answer.decision !== "allow") throw admissionForbidden(attrs, `cannot set an ownerRef on a resource you can't delete: ${because(answer)}`);
      }
      const blocking = newlyBlocking(attrs);
      if (blocking.length === 0 || (await mayFinalizeAnything(services, attrs))) return;
      for (const ref of blocking) {
        for (const question of aboutOwner(attrs, ref, resolve)) {
          const answer = await services.authorize(question);
          if (answer.decision !== "allow") {
            throw admissionForbidden(
              attrs,
              `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${because(answer)}`,
            );
          }
        }
      }
    },
  };
};
