/**
 * The authorization port: an {@link Authorizer} decides whether the user of a request may do
 * what the request's {@link Attributes} say, or has no opinion.
 * @module
 */
import type { UserInfo } from "@orch/authn";

/**
 * What a request asks to do, as the reference's `authorizer.Attributes`: who, which verb, and
 * either a resource (group, version, resource, sub-resource, namespace, name) or a non-resource
 * path.
 */
export interface Attributes {
  /** Who asks. */
  user: UserInfo;
  /**
   * The verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`
   * for resources; `impersonate`, `approve`, `sign`, `escalate`, `bind` for the special checks;
   * the lower-cased HTTP method (`get`, `post`, ...) for a non-resource path.
   */
  verb: string;
  /** True for a resource request, false for a non-resource path. */
  resourceRequest: boolean;
  /** The API group (`""` for core) of a resource request. */
  apiGroup?: string;
  /** The API version of a resource request (informational: rules do not match versions). */
  apiVersion?: string;
  /** The resource (`pods`, `users`, `signers`) of a resource request. */
  resource?: string;
  /** The sub-resource (`status`, `log`), `""` for none. */
  subresource?: string;
  /** The namespace, `""` for cluster scope (and for a list across all namespaces). */
  namespace?: string;
  /** The object's name, `""` for a collection. */
  name?: string;
  /** The path of a non-resource request (`/healthz`, `/version`). */
  path?: string;
}

/** What an authorizer decided. */
export type Decision = "allow" | "deny" | "noOpinion";

/** A decision with its reason (why it allowed or denied; empty when there is nothing to say). */
export interface AuthorizationResult {
  /** The decision. */
  decision: Decision;
  /** Why; shown in reviews (`status.reason`) and in a 403's message where the reference shows it. */
  reason: string;
  /** A failure that kept the authorizer from deciding (a webhook down); the decision is then `noOpinion` or `deny`. */
  error?: string;
}

/** Decides on requests (the reference's `authorizer.Authorizer`). */
export interface Authorizer {
  /**
   * The decision on `attributes`. Never rejects for a request it cannot decide: that is
   * `noOpinion` (with `error` set when a failure is the cause).
   */
  authorize(attributes: Attributes): Promise<AuthorizationResult>;
}

/** One rule as a rules review reports it: resource rules and non-resource rules. */
export interface ResourceRuleInfo {
  /** Verbs, `*` for all. */
  verbs: string[];
  /** API groups, `*` for all. */
  apiGroups: string[];
  /** Resources (`pods`, `pods/log`, `*`). */
  resources: string[];
  /** Object names the rule is limited to; empty for all. */
  resourceNames: string[];
}

/** A non-resource rule of a rules review. */
export interface NonResourceRuleInfo {
  /** Verbs, `*` for all. */
  verbs: string[];
  /** Paths, with a trailing `*` for a prefix. */
  nonResourceURLs: string[];
}

/** What a user may do in a namespace, as a rules review reports it. */
export interface RulesResult {
  /** The resource rules. */
  resourceRules: ResourceRuleInfo[];
  /** The non-resource rules. */
  nonResourceRules: NonResourceRuleInfo[];
  /** True when an authorizer of the chain cannot list its rules (the list is then partial). */
  incomplete: boolean;
  /** Why the list may be partial. */
  evaluationError?: string;
}

/** An authorizer that can also list a user's rules (RBAC), for SelfSubjectRulesReview. */
export interface RuleResolver {
  /** The rules `user` holds in `namespace` (cluster-wide rules included). */
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
}
