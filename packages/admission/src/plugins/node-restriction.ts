/**
 * NodeRestriction: what a node agent (user `system:node:<name>` in group `system:nodes`) may
 * write, the reference's `noderestriction` plugin. Other users pass untouched.
 * @module
 */
import { parseCertificateRequest } from "@orch/certificates";
import { notFound, type APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { changedLabels, nodeLabelPolicy, type NodeLabelPolicy } from "../internal/node-labels.js";
import { labelDomain, productName } from "../internal/domain.js";
import { child, differingPaths, record, records, semanticEqual, str } from "../internal/json.js";
import { podReferencesClaims, podReferencesClusterTrustBundles, podReferencesConfigMaps, podReferencesSecrets } from "../internal/node-pod-references.js";
import { podUsesAudience } from "../internal/node-token-audience.js";
import { admissionForbidden, type PluginFactory } from "../plugin.js";
import type { AdmissionServices } from "../services.js";

/** The group every node agent is in. */
const nodesGroup = "system:nodes";
/** The prefix of a node agent's user name. */
const nodeUserPrefix = "system:node:";

/** A string quoted as Go's `%q` prints plain text: `"n1"`. */
function quote(text: string): string {
  return JSON.stringify(text);
}

/**
 * The node a user is (the reference's `NodeIdentity`): the name after `system:node:` for a user
 * also in `system:nodes` (`""` when nothing follows), `undefined` for any other user.
 */
function nodeOfUser(user: { name: string; groups: readonly string[] }): string | undefined {
  if (!user.name.startsWith(nodeUserPrefix) || !user.groups.includes(nodesGroup)) return undefined;
  return user.name.slice(nodeUserPrefix.length);
}

/**
 * The namespace of the nodes' heartbeat leases: `kube-node-lease` for domain `k8s.io`, else
 * `<first label of the domain>-node-lease` (`orch-node-lease`).
 */
function nodeLeaseNamespace(domain: string): string {
  return `${productName(domain)}-node-lease`;
}

/** The names the plugin derives from the domain, computed once. */
interface Names {
  mirrorAnnotation: string;
  leaseNamespace: string;
  kubeletSigners: readonly string[];
  labels: NodeLabelPolicy;
}

/** One request of a node agent. */
interface Request {
  attrs: AdmissionAttributes;
  node: string;
  services: AdmissionServices;
  names: Names;
}

type Check = (r: Request) => void | Promise<void>;

const deny = (r: Request, why: string) => admissionForbidden(r.attrs, why);
const spec = (object: unknown) => child(object, "spec");
const nodeNameOf = (object: unknown) => str(spec(object)["nodeName"]);
/** The object's name: the request's, else (on CREATE) the body's. */
const requestedName = (r: Request) => r.attrs.name || (r.attrs.operation === "CREATE" ? (r.attrs.object?.metadata.name ?? "") : "");

/** The stored pod `name` of the request's namespace, or 404 `pods "<name>" not found`. */
async function existingPod(r: Request, name: string): Promise<APIObject> {
  const pod = await r.services.get("", "pods", r.attrs.namespace, name);
  if (!pod) throw notFound({ group: "", resource: "pods" }, name);
  return pod;
}

// ---- pods ----

/** The mirror pod a node creates: annotated, bound to it, owned by its Node, referencing nothing. */
async function admitPodCreate(r: Request): Promise<void> {
  const pod = r.attrs.object;
  const node = quote(r.node);
  if (!pod) throw deny(r, "unexpected type <nil>");
  if (!Object.hasOwn(pod.metadata.annotations ?? {}, r.names.mirrorAnnotation)) {
    throw deny(r, `pod does not have ${quote(r.names.mirrorAnnotation)} annotation, node ${node} can only create mirror pods`);
  }
  if (nodeNameOf(pod) !== r.node) throw deny(r, `node ${node} can only create pods with spec.nodeName set to itself`);
  await checkMirrorOwner(r, pod);
  if (str(spec(pod)["serviceAccountName"]) !== "") throw deny(r, `node ${node} can not create pods that reference a service account`);
  if (podReferencesSecrets(pod)) throw deny(r, `node ${node} can not create pods that reference secrets`);
  if (podReferencesConfigMaps(pod)) throw deny(r, `node ${node} can not create pods that reference configmaps`);
  if (podReferencesClusterTrustBundles(pod)) throw deny(r, `node ${node} can not create pods that reference clustertrustbundles`);
  if (podReferencesClaims(pod)) throw deny(r, `node ${node} can not create pods that reference persistentvolumeclaims`);
}

/** A mirror pod has exactly one owner: its Node (`v1`), as controller, not blocking, with the Node's uid. */
async function checkMirrorOwner(r: Request, pod: APIObject): Promise<void> {
  const node = quote(r.node);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) throw deny(r, `node ${node} can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (!owner || owner.apiVersion !== "v1" || owner.kind !== "Node" || owner.name !== r.node) {
    throw deny(r, `node ${node} can only create pods with an owner reference set to itself`);
  }
  if (owner.controller !== true) throw deny(r, `node ${node} can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) throw deny(r, `node ${node} must not set blockOwnerDeletion on an owner reference`);
  const stored = await r.services.get("", "nodes", "", r.node);
  if (!stored) throw notFound({ group: "", resource: "nodes" }, r.node);
  const uid = stored.metadata.uid ?? "";
  if (owner.uid !== uid) throw deny(r, `node ${r.node} UID mismatch: expected ${owner.uid} got ${uid}`);
}

/** `pods`: a node creates mirror pods and deletes pods bound to it; nothing else. */
async function admitPod(r: Request): Promise<void> {
  const { operation, name } = r.attrs;
  if (operation === "CREATE") return admitPodCreate(r);
  if (operation !== "DELETE") throw deny(r, `unexpected operation ${quote(operation)}, node ${quote(r.node)} can only create and delete mirror pods`);
  const pod = r.attrs.oldObject ?? (await existingPod(r, name));
  if (nodeNameOf(pod) !== r.node) throw deny(r, `node ${quote(r.node)} can only delete pods with spec.nodeName set to itself`);
}

/** The `name`/`resourceClaimName` pairs of a pod's `status.resourceClaimStatuses`. */
function claimStatuses(pod: unknown): string[] {
  return records(child(pod, "status")["resourceClaimStatuses"]).map((s) => JSON.stringify([str(s["name"]), s["resourceClaimName"] ?? null]));
}

/** `pods/status`: only an update of a pod bound to the node, keeping its labels and claim statuses. */
function admitPodStatus(r: Request): void {
  const { operation, object, oldObject } = r.attrs;
  const node = quote(r.node);
  if (operation !== "UPDATE") throw deny(r, `unexpected operation ${quote(operation)}`);
  if (nodeNameOf(oldObject) !== r.node) throw deny(r, `node ${node} can only update pod status for pods with spec.nodeName set to itself`);
  if (!semanticEqual(oldObject?.metadata.labels, object?.metadata.labels)) throw deny(r, `node ${node} cannot update labels through pod status`);
  if (!semanticEqual(claimStatuses(oldObject), claimStatuses(object))) throw deny(r, `node ${node} cannot update resource claim statues`);
  if (!semanticEqual(child(oldObject, "status")["extendedResourceClaimStatus"], child(object, "status")["extendedResourceClaimStatus"])) {
    throw deny(r, `node ${node} cannot update extended resource claim status`);
  }
}

/** `pods/eviction`: only of a pod bound to the node. */
async function admitPodEviction(r: Request): Promise<void> {
  const { operation, object, name } = r.attrs;
  if (operation !== "CREATE") throw deny(r, `unexpected operation ${operation}`);
  const podName = name || (object?.metadata.name ?? "");
  if (podName === "") throw deny(r, "could not determine pod from request data");
  const pod = await existingPod(r, podName);
  if (nodeNameOf(pod) !== r.node) throw deny(r, `node ${r.node} can only evict pods with spec.nodeName set to itself`);
}

function podCheck(subresource: string): Check {
  if (subresource === "") return admitPod;
  if (subresource === "status") return admitPodStatus;
  if (subresource === "eviction") return admitPodEviction;
  return (r) => {
    throw deny(r, `unexpected pod subresource ${quote(subresource)}, only 'status' and 'eviction' are allowed`);
  };
}

// ---- nodes ----

/** `nodes` (and `nodes/status`): only its own Node; no config source, taints, owners or restricted labels. */
function admitNode(r: Request): void {
  const { operation, object, oldObject } = r.attrs;
  const node = quote(r.node);
  const requested = requestedName(r);
  if (requested !== r.node) throw deny(r, `node ${node} is not allowed to modify node ${quote(requested)}`);
  if (operation === "DELETE") throw deny(r, `node ${node} is not allowed to delete its own Node object`);
  if (operation === "CREATE") {
    if (spec(object)["configSource"] != null) throw deny(r, `node ${node} is not allowed to create pods with a non-nil configSource`);
    const bad = r.names.labels.forbidden(changedLabels(object?.metadata.labels, undefined));
    if (bad.length) throw deny(r, `node ${node} is not allowed to set the following labels: ${bad.join(", ")}`);
    return;
  }
  const source = spec(object)["configSource"];
  if (source != null && !semanticEqual(source, spec(oldObject)["configSource"])) {
    throw deny(r, `node ${node} is not allowed to update configSource to a new non-nil configSource`);
  }
  if (!semanticEqual(spec(object)["taints"], spec(oldObject)["taints"])) throw deny(r, `node ${node} is not allowed to modify taints`);
  if (!semanticEqual(object?.metadata.ownerReferences, oldObject?.metadata.ownerReferences))
    throw deny(r, `node ${node} is not allowed to modify ownerReferences`);
  const bad = r.names.labels.forbidden(changedLabels(object?.metadata.labels, oldObject?.metadata.labels));
  if (bad.length) throw deny(r, `is not allowed to modify labels: ${bad.join(", ")}`);
}

// ---- claims, tokens, leases, CSI nodes, resource slices, CSRs ----

/** The claim status fields a node may change (resize: capacity, conditions, allocated resources). */
const claimStatusFields = ["capacity", "conditions", "allocatedResources", "allocatedResourceStatuses"];

/** A claim without what a node may change: resourceVersion, managedFields and the resize status. */
function claimComparable(claim: APIObject | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = structuredClone(claim ?? {});
  const metadata = record(copy["metadata"]);
  if (metadata) {
    delete metadata["resourceVersion"];
    delete metadata["managedFields"];
  }
  const status = record(copy["status"]);
  if (status) for (const field of claimStatusFields) delete status[field];
  return copy;
}

/** `persistentvolumeclaims/status`: an update that changes only the resize status. */
function admitClaim(r: Request): void {
  const { operation, subresource } = r.attrs;
  if (subresource !== "status") throw deny(r, "may only update PVC status");
  if (operation !== "UPDATE") throw deny(r, `unexpected operation ${quote(operation)}`);
  const changed = differingPaths(claimComparable(r.attrs.oldObject), claimComparable(r.attrs.object));
  if (changed.length)
    throw deny(r, `node ${quote(r.node)} is not allowed to update fields other than status.quantity and status.conditions: ${changed.join(", ")}`);
}

/** `serviceaccounts/token`: only a token bound to a pod on this node, for an audience it uses. */
async function admitServiceAccount(r: Request): Promise<void> {
  const { operation, subresource, object, namespace } = r.attrs;
  if (operation !== "CREATE" || subresource !== "token") return;
  const ref = child(spec(object), "boundObjectRef");
  const name = str(ref["name"]);
  if (str(ref["apiVersion"]) !== "v1" || str(ref["kind"]) !== "Pod" || name === "") throw deny(r, "node requested token not bound to a pod");
  const uid = str(ref["uid"]);
  if (uid === "") throw deny(r, "node requested token with a pod binding without a uid");
  const pod = await existingPod(r, name);
  if (uid !== (pod.metadata.uid ?? "")) {
    throw deny(r, `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  if (nodeNameOf(pod) !== r.node) throw deny(r, "node requested token bound to a pod scheduled on a different node");
  const audiences = Array.isArray(spec(object)["audiences"]) ? (spec(object)["audiences"] as unknown[]) : [];
  if (audiences.length > 1) throw deny(r, "node may only request 0 or 1 audiences");
  const audience = str(audiences[0]);
  if (await podUsesAudience(r.services, pod, audience)) return;
  const decision = await r.services.authorize({
    user: r.attrs.user,
    verb: "request-serviceaccounts-token-audience",
    resourceRequest: true,
    apiGroup: "",
    resource: audience,
    namespace,
    name: r.attrs.name,
  });
  if (decision.decision !== "allow") {
    throw deny(r, `audience ${quote(audience)} not found in pod spec volume, ${nodeUserPrefix}${r.node} is not authorized to request tokens for this audience`);
  }
}

/** `leases` of `coordination.<domain>`: only its own, in the node lease namespace. */
function admitLease(r: Request): void {
  if (r.attrs.namespace !== r.names.leaseNamespace) throw deny(r, `can only access leases in the ${quote(r.names.leaseNamespace)} system namespace`);
  if (requestedName(r) !== r.node) throw deny(r, "can only access node lease with the same name as the requesting node");
}

/** `csinodes` of `storage.<domain>`: only its own. */
function admitCSINode(r: Request): void {
  if (requestedName(r) !== r.node) throw deny(r, "can only access CSINode with the same name as the requesting node");
}

/** `resourceslices` of `resource.<domain>`: create and delete only slices of this node. */
async function admitResourceSlice(r: Request): Promise<void> {
  const { operation, object, oldObject, name } = r.attrs;
  if (operation === "CREATE" && nodeNameOf(object) !== r.node) throw deny(r, "can only create ResourceSlice with the same NodeName as the requesting node");
  if (operation === "DELETE") {
    const slice = oldObject ?? (await r.services.get(r.attrs.resource.group, "resourceslices", "", name));
    if (nodeNameOf(slice) !== r.node) throw deny(r, "can only delete ResourceSlice with the same NodeName as the requesting node");
  }
}

/** The PEM text of a CSR's `spec.request` (base64 of the PEM bytes, or the PEM itself). */
function requestPEM(value: string): string {
  if (value.includes("-----BEGIN")) return value;
  return atob(value);
}

/** `certificatesigningrequests`: a kubelet CSR's subject must be this node. */
function admitCSR(r: Request): void {
  if (r.attrs.operation !== "CREATE") return;
  const s = spec(r.attrs.object);
  if (!r.names.kubeletSigners.includes(str(s["signerName"]))) return;
  let commonName: string;
  try {
    commonName = parseCertificateRequest(requestPEM(str(s["request"]))).commonName;
  } catch (error) {
    throw deny(r, `unable to parse csr: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (commonName !== `${nodeUserPrefix}${r.node}`) throw deny(r, `can only create a node CSR with CN=${nodeUserPrefix}${r.node}`);
}

/** The check for the request's resource, `undefined` when the plugin has no rule for it. */
function checkFor(attrs: AdmissionAttributes, domain: string): Check | undefined {
  const { group, resource } = attrs.resource;
  if (group === "") {
    if (resource === "pods") return podCheck(attrs.subresource);
    if (resource === "nodes") return admitNode;
    if (resource === "persistentvolumeclaims") return admitClaim;
    if (resource === "serviceaccounts") return admitServiceAccount;
    return undefined;
  }
  if (group === `coordination.${domain}` && resource === "leases") return admitLease;
  if (group === `storage.${domain}` && resource === "csinodes") return admitCSINode;
  if (group === `resource.${domain}` && resource === "resourceslices") return admitResourceSlice;
  if (group === `certificates.${domain}` && resource === "certificatesigningrequests") return admitCSR;
  return undefined;
}

/**
 * The NodeRestriction plugin (mutating phase, CREATE, UPDATE and DELETE; it never changes the
 * object). For a node agent `N` (`system:node:N` in `system:nodes`; a node user without a name is refused
 * with `could not determine node from user "<user>"`), with `p` the label prefix (`orch.io`,
 * `kubernetes.io` for domain `k8s.io`), every refusal a 403 with the reference's message:
 * - `pods`: CREATE only of mirror pods (annotation `p/config.mirror`) bound to `N`, owned by
 *   exactly its Node (`v1`, controller, not blocking owner deletion, the Node's uid: a missing
 *   Node is 404), referencing no service account, secret, config map, cluster trust bundle or
 *   claim; DELETE only of pods bound to `N` (a missing pod is 404); no other operation.
 *   `pods/status`: UPDATE of pods bound to `N`, labels, resource claim statuses and extended
 *   resource claim status unchanged. `pods/eviction`: CREATE for pods bound to `N`. Other pod
 *   sub-resources are refused.
 * - `nodes` (and `nodes/status`): only `N`; CREATE without `spec.configSource` and without
 *   forbidden labels; UPDATE without a new config source and without changing taints, owner
 *   references or forbidden labels; DELETE of its own Node refused. Forbidden labels:
 *   `node-restriction.p/` ones, and those under `p` (or the domain) other than the kubelet's
 *   (see `nodeLabelPolicy`).
 * - `persistentvolumeclaims`: only `status` updates changing nothing but `status.capacity`,
 *   `status.conditions`, `status.allocatedResources` and `status.allocatedResourceStatuses`.
 * - `serviceaccounts/token`: only bound to a pod (by name and uid) on `N`, for at most one
 *   audience, which the pod uses (a projected token volume, or a CSI driver asking for it)
 *   unless the node is authorized to `request-serviceaccounts-token-audience` it.
 * - `leases` of `coordination.<domain>`: only `N`'s, in `<short>-node-lease` (`orch-node-lease`,
 *   `kube-node-lease` for domain `k8s.io`).
 * - `csinodes` of `storage.<domain>`: only `N`'s. `resourceslices` of `resource.<domain>` (when
 *   served): CREATE and DELETE only with `spec.nodeName` `N`.
 * - `certificatesigningrequests` for the `p/kubelet-serving` and
 *   `p/kube-apiserver-client-kubelet` signers: the subject must be `CN=system:node:N`.
 */
export const nodeRestriction: PluginFactory = ({ services }) => {
  const p = labelDomain(services.domain);
  const names: Names = {
    mirrorAnnotation: `${p}/config.mirror`,
    leaseNamespace: nodeLeaseNamespace(services.domain),
    kubeletSigners: [`${p}/kubelet-serving`, `${p}/kube-apiserver-client-kubelet`],
    labels: nodeLabelPolicy(services.domain),
  };
  return {
    name: "NodeRestriction",
    operations: ["CREATE", "UPDATE", "DELETE"],
    async admit(attrs) {
      const node = nodeOfUser(attrs.user);
      if (node === undefined) return;
      if (node === "") throw admissionForbidden(attrs, `could not determine node from user ${quote(attrs.user.name)}`);
      const check = checkFor(attrs, services.domain);
      if (check) await check({ attrs, node, services, names });
    },
  };
};
