/**
 * The Node authorizer: what a kubelet (`system:node:<name>` in `system:nodes`) may read and
 * write, limited to the objects its own pods need (the reference's `--authorization-mode=Node`).
 * @module
 */
import type { UserInfo } from "@orch/authn";
import type { APIObject } from "@orch/meta";
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from "./authorizer.js";

/** The group every node's user is in (`system:nodes`). */
export const nodesGroup = "system:nodes";

/** The prefix of a node's user name: `system:node:<node name>`. */
export const nodeUserPrefix = "system:node:";

/**
 * The objects the Node authorizer follows from a node to what its pods reference; the server
 * implements it over its store (an index of pods by `spec.nodeName` keeps it cheap, as every
 * decision about a secret, config map, claim, volume or token asks for the node's pods).
 */
export interface NodeGraph {
  /**
   * The pods bound to `node` (`spec.nodeName` equal to it), whole objects: the authorizer reads
   * what they reference from their `spec`. Pods naming another node are ignored.
   */
  podsOnNode(node: string): Promise<readonly APIObject[]>;
  /** The PersistentVolumeClaim `namespace`/`name`, or `undefined` when there is none. */
  getPVC(namespace: string, name: string): Promise<APIObject | undefined>;
  /**
   * The PersistentVolume `name`, or `undefined` when there is none. Optional: with it, a claim's
   * `spec.volumeName` counts only when the volume's `spec.claimRef` names the claim back (as the
   * reference follows the volume's side of the binding), and the secrets the volume names for
   * the kubelet become readable; without it, a claim's `spec.volumeName` alone is trusted.
   */
  getPV?(name: string): Promise<APIObject | undefined>;
}

/** Options of {@link nodeAuthorizer}. */
export interface NodeAuthorizerOptions {
  /**
   * The product domain (default `orch.io`): leases are in group `coordination.<domain>` and
   * namespace {@link nodeLeaseNamespace}, mirror pods carry `<domain>/config.mirror`
   * (`kubernetes.io/config.mirror` for `k8s.io`).
   */
  domain?: string;
}

/**
 * The node a user is, as the reference's node identifier reads it: the name after
 * `system:node:` for a user also in `system:nodes` (`""` when nothing follows the prefix);
 * `undefined` for a user that is not a node.
 */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.groups.includes(nodesGroup)) return undefined;
  if (!user.name.startsWith(nodeUserPrefix)) return undefined;
  return user.name.slice(nodeUserPrefix.length);
}

/**
 * The namespace of the nodes' heartbeat leases: `<short>-node-lease`, where `<short>` is `kube`
 * for `k8s.io` (`kube-node-lease`), else the domain's first label (`orch-node-lease`), as the
 * built-in namespaces are named.
 */
export function nodeLeaseNamespace(domain: string): string {
  const short = domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? "orch");
  return `${short}-node-lease`;
}

/** The evaluation error a rules review reports for a node (the reference's wording). */
const noRuleResolution = "node authorizer does not support user rule resolution";

const noOpinion = (reason = ""): AuthorizationResult => ({ decision: "noOpinion", reason });
const allow = (): AuthorizationResult => ({ decision: "allow", reason: "" });

/**
 * An {@link Authorizer} for kubelets, as the reference's Node authorizer (with its
 * `AuthorizeNodeWithSelectors` behaviour). It only ever allows or has no opinion, so RBAC
 * later in the chain may still allow what it does not; users that are not nodes (see
 * {@link nodeIdentity}) always get no opinion, and so does a node user with no name.
 *
 * What a node `N` is allowed (everything else, non-resource paths included, is no opinion):
 * - `secrets`, `configmaps`: `get`, `list`, `watch` of one named object (list and watch carry
 *   the name of a `metadata.name` field selector) in a namespace, no sub-resource, when a pod
 *   bound to `N` references it: image pull secrets; each container's, init container's and
 *   ephemeral container's `env[].valueFrom.secretKeyRef`/`configMapKeyRef` and
 *   `envFrom[].secretRef`/`configMapRef`; volumes' `secret.secretName`, `configMap.name`,
 *   `projected.sources[].secret.name`/`configMap.name`, and the `secretRef.name` of `cephfs`,
 *   `cinder`, `flexVolume`, `rbd`, `scaleIO`, `iscsi`, `storageos`, `azureFile.secretName`,
 *   `csi.nodePublishSecretRef.name`. With {@link NodeGraph.getPV}, also the secrets a
 *   volume bound to such a pod's claim names for the kubelet (the CSI node-publish, node-stage
 *   and node-expand secrets, and the other plugins' `secretRef`, in the secret's own namespace
 *   or the claim's).
 * - `persistentvolumeclaims`: `get` of a claim a pod bound to `N` names (a volume's
 *   `persistentVolumeClaim.claimName`, or `<pod>-<volume>` for an `ephemeral` volume);
 *   `update`/`patch` of such a claim's `status`.
 * - `persistentvolumes`: `get` of the volume bound to such a claim (see {@link NodeGraph.getPV}).
 * - `serviceaccounts/token`: `create` for the service account a pod bound to `N` runs as
 *   (`spec.serviceAccountName`).
 * - `pods`: `get` (and `list`/`watch` of one named pod), `delete`, `status` `update`/`patch` and
 *   `eviction` `create` of a pod bound to `N`. Listing every pod is no opinion: the attributes
 *   carry no `spec.nodeName` field selector to check.
 * - `nodes`: `get`/`list`/`watch`/`update`/`patch` of `N` itself and `update`/`patch` of its
 *   `status`; `create` of a node named `N`, or unnamed (the body is not checked here).
 * - `leases` of `coordination.<domain>` in {@link nodeLeaseNamespace}: `get`, `update`,
 *   `patch`, `delete` of the lease named `N`, and `create` (unnamed, or named `N`).
 *
 * Mirror pods (annotated `<domain>/config.mirror`) count as bound to their node, but what they
 * reference grants nothing, as in the reference. A pod's objects are read when the question is
 * asked (no graph is kept), so a pod unbound or deleted stops granting at once. A failing
 * {@link NodeGraph} gives no opinion with `error` set; the authorizer never rejects.
 *
 * Stricter than the reference, which leaves these to its NodeRestriction admission plugin:
 * `update`/`patch` of other nodes and of their status, and writes to pods not bound to `N`,
 * are no opinion; creating pods (mirror pods) is no opinion, as the pod's body is not seen
 * here. Not covered: the reference's static node rules for resources it does not subdivide
 * (services, events, certificate signing requests, token and access reviews, ...), which RBAC
 * must grant, and the resource, storage and CSI objects (resource claims and slices, volume
 * attachments, CSI nodes).
 */
export function nodeAuthorizer(graph: NodeGraph, options: NodeAuthorizerOptions = {}): Authorizer & RuleResolver {
  const domain = options.domain ?? "orch.io";
  const coordinationGroup = `coordination.${domain}`;
  const leaseNamespace = nodeLeaseNamespace(domain);
  const mirrorAnnotation = `${domain === "k8s.io" ? "kubernetes.io" : domain}/config.mirror`;

  /** The pods bound to `node`, with what each references. */
  async function podsOf(node: string): Promise<PodInfo[]> {
    const pods = await graph.podsOnNode(node);
    const out: PodInfo[] = [];
    for (const pod of pods) {
      const info = podInfoOf(pod, mirrorAnnotation);
      if (info !== undefined && info.nodeName === node) out.push(info);
    }
    return out;
  }

  /** The volume bound to the claim `namespace`/`claim`, checked from both sides when the graph can. */
  async function volumeOfClaim(namespace: string, claim: string): Promise<{ name: string; volume?: Record<string, unknown> } | undefined> {
    const pvc = await graph.getPVC(namespace, claim);
    const volumeName = stringAt(record(pvc?.["spec"]), "volumeName");
    if (volumeName === "") return undefined;
    if (graph.getPV === undefined) return { name: volumeName };
    const pv = await graph.getPV(volumeName);
    if (pv === undefined) return undefined;
    const claimRef = record(record(pv["spec"])["claimRef"]);
    if (stringAt(claimRef, "namespace") !== namespace || stringAt(claimRef, "name") !== claim) return undefined;
    return { name: volumeName, volume: pv as Record<string, unknown> };
  }

  /** Whether a pod bound to `node` (not a mirror pod) references the secret `namespace`/`name`, directly or through a bound volume. */
  async function reachesSecret(node: string, namespace: string, name: string): Promise<boolean> {
    const pods = (await podsOf(node)).filter((p) => !p.mirror);
    if (pods.some((p) => p.namespace === namespace && p.secrets.has(name))) return true;
    if (graph.getPV === undefined) return false;
    for (const pod of pods) {
      for (const claim of pod.claims) {
        const bound = await volumeOfClaim(pod.namespace, claim);
        if (bound?.volume === undefined) continue;
        for (const secret of volumeSecrets(bound.volume, pod.namespace)) {
          if (secret.namespace === namespace && secret.name === name) return true;
        }
      }
    }
    return false;
  }

  /** Whether `node` has a path to the object `resource` `namespace`/`name`. */
  async function related(node: string, resource: Related, namespace: string, name: string): Promise<boolean> {
    switch (resource) {
      case "secrets":
        return reachesSecret(node, namespace, name);
      case "configmaps":
        return (await podsOf(node)).some((p) => !p.mirror && p.namespace === namespace && p.configMaps.has(name));
      case "persistentvolumeclaims":
        return (await podsOf(node)).some((p) => !p.mirror && p.namespace === namespace && p.claims.has(name));
      case "serviceaccounts":
        return (await podsOf(node)).some((p) => !p.mirror && p.namespace === namespace && p.serviceAccount === name);
      case "pods":
        return (await podsOf(node)).some((p) => p.namespace === namespace && p.name === name);
      case "persistentvolumes":
        for (const pod of await podsOf(node)) {
          if (pod.mirror) continue;
          for (const claim of pod.claims) {
            if ((await volumeOfClaim(pod.namespace, claim))?.name === name) return true;
          }
        }
        return false;
    }
  }

  /** Allows when `node` is related to the named object of `attributes`. */
  async function authorizeRelated(node: string, resource: Related, attributes: Attributes): Promise<AuthorizationResult> {
    const name = attributes.name ?? "";
    if (name === "") return noOpinion("No Object name found");
    if (await related(node, resource, attributes.namespace ?? "", name)) return allow();
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  async function authorizeRead(node: string, resource: "secrets" | "configmaps", attributes: Attributes): Promise<AuthorizationResult> {
    if (!["get", "list", "watch"].includes(attributes.verb)) return noOpinion("can only read resources of this type");
    if (attributes.subresource) return noOpinion("cannot read subresource");
    if (!attributes.namespace) return noOpinion("can only read namespaced object of this type");
    return authorizeRelated(node, resource, attributes);
  }

  async function authorizeGet(node: string, resource: Related, attributes: Attributes): Promise<AuthorizationResult> {
    if (attributes.verb !== "get") return noOpinion("can only get individual resources of this type");
    if (attributes.subresource) return noOpinion("cannot get subresource");
    return authorizeRelated(node, resource, attributes);
  }

  async function authorizeClaim(node: string, attributes: Attributes): Promise<AuthorizationResult> {
    if (attributes.subresource !== "status") return authorizeGet(node, "persistentvolumeclaims", attributes);
    if (attributes.verb !== "update" && attributes.verb !== "patch") return noOpinion("can only get/update/patch this type");
    return authorizeRelated(node, "persistentvolumeclaims", attributes);
  }

  async function authorizeToken(node: string, attributes: Attributes): Promise<AuthorizationResult> {
    if (attributes.verb !== "create" || !attributes.name) return noOpinion("can only create tokens for individual service accounts");
    if (attributes.subresource !== "token") return noOpinion("can only create token subresource of serviceaccount");
    return authorizeRelated(node, "serviceaccounts", attributes);
  }

  function authorizeLease(node: string, attributes: Attributes): AuthorizationResult {
    const verb = attributes.verb;
    if (!["get", "create", "update", "patch", "delete"].includes(verb)) return noOpinion("can only get, create, update, patch, or delete a node lease");
    if (attributes.subresource) return noOpinion("cannot access a subresource of a node lease");
    if (attributes.namespace !== leaseNamespace) return noOpinion(`can only access leases in the ${JSON.stringify(leaseNamespace)} system namespace`);
    const name = attributes.name ?? "";
    if (verb === "create" ? name !== "" && name !== node : name !== node)
      return noOpinion("can only access node lease with the same name as the requesting node");
    return allow();
  }

  function authorizeNode(node: string, attributes: Attributes): AuthorizationResult {
    const name = attributes.name ?? "";
    const verb = attributes.verb;
    if (!attributes.subresource) {
      if (verb === "create") return name === "" || name === node ? allow() : noOpinion(`node '${node}' can only create its own Node object`);
      if (["get", "list", "watch"].includes(verb)) {
        if (name === node) return allow();
        if (name === "") return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${name}', only its own Node object`);
      }
      if (verb === "update" || verb === "patch") return name === node ? allow() : noOpinion(`node '${node}' can only modify its own Node object`);
      return noOpinion();
    }
    if (attributes.subresource === "status" && (verb === "update" || verb === "patch")) {
      return name === node ? allow() : noOpinion(`node '${node}' can only update the status of its own Node object`);
    }
    return noOpinion();
  }

  async function authorizePod(node: string, attributes: Attributes): Promise<AuthorizationResult> {
    const verb = attributes.verb;
    switch (attributes.subresource ?? "") {
      case "":
        if (verb === "get" || verb === "delete") return authorizeRelated(node, "pods", attributes);
        if (verb === "list" || verb === "watch") {
          if (attributes.name) return authorizeRelated(node, "pods", attributes);
          return noOpinion("can only list/watch pods with spec.nodeName field selector");
        }
        break;
      case "status":
        if (verb === "update" || verb === "patch") return authorizeRelated(node, "pods", attributes);
        break;
      case "eviction":
        if (verb === "create") return authorizeRelated(node, "pods", attributes);
        break;
    }
    return noOpinion();
  }

  async function decide(node: string, attributes: Attributes): Promise<AuthorizationResult> {
    if (!attributes.resourceRequest) return noOpinion();
    const group = attributes.apiGroup ?? "";
    if (group === coordinationGroup) return attributes.resource === "leases" ? authorizeLease(node, attributes) : noOpinion();
    if (group !== "") return noOpinion();
    switch (attributes.resource) {
      case "secrets":
      case "configmaps":
        return authorizeRead(node, attributes.resource, attributes);
      case "persistentvolumeclaims":
        return authorizeClaim(node, attributes);
      case "persistentvolumes":
        return authorizeGet(node, "persistentvolumes", attributes);
      case "serviceaccounts":
        return authorizeToken(node, attributes);
      case "nodes":
        return authorizeNode(node, attributes);
      case "pods":
        return authorizePod(node, attributes);
      default:
        return noOpinion();
    }
  }

  return {
    async authorize(attributes: Attributes): Promise<AuthorizationResult> {
      const node = nodeIdentity(attributes.user);
      if (node === undefined) return noOpinion();
      if (node === "") return noOpinion(`unknown node for user ${JSON.stringify(attributes.user.name)}`);
      try {
        return await decide(node, attributes);
      } catch (error) {
        return { decision: "noOpinion", reason: "", error: `node authorizer: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
    async rulesFor(user: UserInfo): Promise<RulesResult> {
      if (nodeIdentity(user) === undefined) return { resourceRules: [], nonResourceRules: [], incomplete: false };
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: noRuleResolution };
    },
  };
}

/** The resources the authorizer follows from a node to decide. */
type Related = "secrets" | "configmaps" | "persistentvolumeclaims" | "persistentvolumes" | "serviceaccounts" | "pods";

/** A pod as the authorizer sees it: where it is bound and what it references in its namespace. */
interface PodInfo {
  readonly name: string;
  readonly namespace: string;
  readonly nodeName: string;
  /** A mirror pod: bound to its node, but granting nothing it references. */
  readonly mirror: boolean;
  readonly secrets: ReadonlySet<string>;
  readonly configMaps: ReadonlySet<string>;
  readonly claims: ReadonlySet<string>;
  readonly serviceAccount: string;
}

/** What `pod` references (names in its namespace); `undefined` for an object without a name or namespace. */
function podInfoOf(pod: APIObject, mirrorAnnotation: string): PodInfo | undefined {
  const metadata = record(pod.metadata);
  const name = stringAt(metadata, "name");
  const namespace = stringAt(metadata, "namespace");
  if (name === "" || namespace === "") return undefined;
  const spec = record(pod["spec"]);
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const claims = new Set<string>();
  const add = (set: Set<string>, value: unknown): void => {
    if (typeof value === "string" && value !== "") set.add(value);
  };

  for (const ref of records(spec["imagePullSecrets"])) add(secrets, ref["name"]);
  for (const field of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const container of records(spec[field])) {
      for (const from of records(container["envFrom"])) {
        add(secrets, record(from["secretRef"])["name"]);
        add(configMaps, record(from["configMapRef"])["name"]);
      }
      for (const env of records(container["env"])) {
        const valueFrom = record(env["valueFrom"]);
        add(secrets, record(valueFrom["secretKeyRef"])["name"]);
        add(configMaps, record(valueFrom["configMapKeyRef"])["name"]);
      }
    }
  }
  for (const volume of records(spec["volumes"])) {
    add(secrets, record(volume["secret"])["secretName"]);
    add(configMaps, record(volume["configMap"])["name"]);
    for (const source of records(record(volume["projected"])["sources"])) {
      add(secrets, record(source["secret"])["name"]);
      add(configMaps, record(source["configMap"])["name"]);
    }
    add(secrets, record(volume["azureFile"])["secretName"]);
    for (const plugin of ["cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"]) {
      add(secrets, record(record(volume[plugin])["secretRef"])["name"]);
    }
    add(secrets, record(record(volume["csi"])["nodePublishSecretRef"])["name"]);
    add(claims, record(volume["persistentVolumeClaim"])["claimName"]);
    const volumeName = volume["name"];
    if (isRecord(volume["ephemeral"]) && typeof volumeName === "string" && volumeName !== "") claims.add(`${name}-${volumeName}`);
  }
  const annotations = record(metadata["annotations"]);
  return {
    name,
    namespace,
    nodeName: stringAt(spec, "nodeName"),
    mirror: Object.hasOwn(annotations, mirrorAnnotation),
    secrets,
    configMaps,
    claims,
    serviceAccount: stringAt(spec, "serviceAccountName"),
  };
}

/**
 * The secrets a PersistentVolume names for the kubelet (the reference's kubelet-visible ones:
 * not the CSI controller secrets). Where the reference falls back to the claim's namespace for
 * a reference without one (`azureFile`, `cephfs`, `flexVolume`, `rbd`, `scaleIO`, `iscsi`), so
 * does this, with `claimNamespace`; the others (`cinder`, `storageos`, `csi`) use theirs as is.
 */
function volumeSecrets(pv: Record<string, unknown>, claimNamespace: string): Array<{ namespace: string; name: string }> {
  const spec = record(pv["spec"]);
  const out: Array<{ namespace: string; name: string }> = [];
  const add = (ref: Record<string, unknown>, fallback: string, nameField = "name", namespaceField = "namespace"): void => {
    const name = stringAt(ref, nameField);
    if (name === "") return;
    const namespace = stringAt(ref, namespaceField);
    out.push({ namespace: namespace === "" ? fallback : namespace, name });
  };
  add(record(spec["azureFile"]), claimNamespace, "secretName", "secretNamespace");
  for (const plugin of ["cephfs", "flexVolume", "rbd", "scaleIO", "iscsi"]) add(record(record(spec[plugin])["secretRef"]), claimNamespace);
  for (const plugin of ["cinder", "storageos"]) add(record(record(spec[plugin])["secretRef"]), "");
  const csi = record(spec["csi"]);
  for (const field of ["nodePublishSecretRef", "nodeStageSecretRef", "nodeExpandSecretRef"]) add(record(csi[field]), "");
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is an object, else an empty one. */
function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

/** The objects of `value` when it is a list (other items skipped), else none. */
function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** `object[field]` when it is a string, else `""`. */
function stringAt(object: Record<string, unknown>, field: string): string {
  const value = object[field];
  return typeof value === "string" ? value : "";
}
