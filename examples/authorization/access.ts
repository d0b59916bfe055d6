/**
 * "Can I?" for the authorization examples: the resources the examples write (RBAC kinds, pods)
 * and the two questions any user may ask about itself: a SelfSubjectAccessReview (what
 * `kubectl auth can-i` sends) and a SelfSubjectRulesReview (`kubectl auth can-i --list`).
 * @module
 */
import type { Client, ResourceRef } from "@orch/client";

/** Pods (core `v1`, namespaced). */
export const pods: ResourceRef = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true };
/** Roles (`rbac.authorization.{domain}/v1`, namespaced). */
export const roles: ResourceRef = { group: "rbac.authorization.{domain}", version: "v1", resource: "roles", kind: "Role", namespaced: true };
/** RoleBindings (`rbac.authorization.{domain}/v1`, namespaced). */
export const roleBindings: ResourceRef = {
  group: "rbac.authorization.{domain}",
  version: "v1",
  resource: "rolebindings",
  kind: "RoleBinding",
  namespaced: true,
};
/** ClusterRoles (`rbac.authorization.{domain}/v1`, cluster-scoped). */
export const clusterRoles: ResourceRef = {
  group: "rbac.authorization.{domain}",
  version: "v1",
  resource: "clusterroles",
  kind: "ClusterRole",
  namespaced: false,
};
/** ClusterRoleBindings (`rbac.authorization.{domain}/v1`, cluster-scoped). */
export const clusterRoleBindings: ResourceRef = {
  group: "rbac.authorization.{domain}",
  version: "v1",
  resource: "clusterrolebindings",
  kind: "ClusterRoleBinding",
  namespaced: false,
};

const selfSubjectAccessReviews: ResourceRef = {
  group: "authorization.{domain}",
  version: "v1",
  resource: "selfsubjectaccessreviews",
  kind: "SelfSubjectAccessReview",
  namespaced: false,
};
const selfSubjectRulesReviews: ResourceRef = {
  group: "authorization.{domain}",
  version: "v1",
  resource: "selfsubjectrulesreviews",
  kind: "SelfSubjectRulesReview",
  namespaced: false,
};

/** A resource question, as a review's `spec.resourceAttributes` asks it (empty means all). */
export interface ResourceAttributes {
  verb: string;
  group?: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** The answer of an access review (`status`). */
export interface AccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** One resource rule of a rules review. */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** The answer of a rules review (`status`). */
export interface RulesReviewStatus {
  resourceRules: ResourceRule[];
  nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[];
  incomplete: boolean;
  evaluationError?: string;
}

/** Whether `client`'s user may do what `attributes` say (a SelfSubjectAccessReview). */
export async function canI(client: Client, attributes: ResourceAttributes): Promise<AccessReviewStatus> {
  const review = await client.resource(selfSubjectAccessReviews).create({ metadata: {}, spec: { resourceAttributes: attributes } });
  return review["status"] as AccessReviewStatus;
}

/** What `client`'s user may do in `namespace` (a SelfSubjectRulesReview). */
export async function rulesIn(client: Client, namespace: string): Promise<RulesReviewStatus> {
  const review = await client.resource(selfSubjectRulesReviews).create({ metadata: {}, spec: { namespace } });
  return review["status"] as RulesReviewStatus;
}

/**
 * Asks {@link canI} every 10 ms until it allows, for at most `timeoutMs`: the RBAC authorizer
 * reads an index the server keeps by watching its store, so a binding just created grants its
 * rights a moment later, not within the create call.
 * @throws Error when the answer is still no after `timeoutMs`.
 */
export async function waitUntilAllowed(client: Client, attributes: ResourceAttributes, timeoutMs = 2000): Promise<AccessReviewStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await canI(client, attributes);
    if (status.allowed) return status;
    if (Date.now() > deadline) throw new Error(`still not allowed to ${attributes.verb} ${attributes.resource} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The code and message of a refused call, as one log line. */
export function refusal(error: unknown): string {
  const status = error as { code?: number; message?: string };
  return `${status.code ?? "?"} ${status.message ?? String(error)}`;
}
