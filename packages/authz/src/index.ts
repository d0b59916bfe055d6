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
