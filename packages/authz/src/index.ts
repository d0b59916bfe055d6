export {
  type Attributes,
  type AuthorizationResult,
  type Authorizer,
  type Decision,
  type NonResourceRuleInfo,
  type ResourceRuleInfo,
  type RuleResolver,
  type RulesResult,
} from "./authorizer.js";
export { alwaysAllow, alwaysDeny, chainAuthorizer, privilegedGroup, privilegedGroupAuthorizer, rulesFor } from "./chain.js";
export { webhookAuthorizer, type WebhookAuthorizerOptions } from "./webhook-authorizer.js";
export { nodeAuthorizer, nodeIdentity, nodeLeaseNamespace, nodesGroup, nodeUserPrefix, type NodeAuthorizerOptions, type NodeGraph } from "./node-authorizer.js";
export {
  type AggregationRule,
  type ClusterRole,
  type ClusterRoleBinding,
  type PolicyRule,
  type RBACObjectMeta,
  type Role,
  type RoleBinding,
  type RoleRef,
  type Subject,
  type SubjectKind,
} from "./rbac-types.js";
export {
  apiGroupMatches,
  nonResourceURLMatches,
  requestOf,
  resourceMatches,
  resourceNameMatches,
  ruleAllows,
  verbMatches,
  type RBACRequest,
} from "./rule-match.js";
export { RBACIndex, type RBACEvent, type RBACEventType, type RBACGrant, type RBACKind, type RBACSnapshot } from "./rbac-index.js";
export { rbacAuthorizer, type RBACAuthorizerOptions } from "./rbac-authorizer.js";
export { breakdownRule, covers, uncoveredRules } from "./escalation.js";
export { aggregatedRules } from "./aggregation.js";
export { bootstrapPolicy, reconcileBinding, reconcileRole, type BootstrapPolicy } from "./bootstrap-policy.js";
