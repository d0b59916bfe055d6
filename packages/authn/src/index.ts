export { anonymousUser, authenticatedGroup, mastersGroup, unauthenticatedGroup, type UserInfo } from "./user.js";
export {
  AuthenticationError,
  type Authenticated,
  type AuthenticationRequest,
  type AuthenticationResult,
  type Authenticator,
  type TokenAuthenticator,
} from "./authenticator.js";
export { authenticateToken, bearerTokenAuthenticator, bearerTokenOf, maxBearerTokenLength, type BearerTokenOptions } from "./bearer-token.js";
export { anonymous, unionAuthenticator, withAuthenticatedGroup } from "./union.js";
export { fetchHTTPClient, type HTTPClient, type HTTPRequest, type HTTPResponse } from "./http-client.js";
export type { ObjectGetter } from "./object-getter.js";
export { oidcAuthenticator, type OIDCAuthenticatorOptions } from "./oidc-authenticator.js";
export { parseCertificateBundle, verifyClientChain, type CertificateBundle, type VerifiedChain } from "./x509-verify.js";
export { x509Authenticator, type X509AuthenticatorOptions } from "./x509-authenticator.js";
export { requestHeaderAuthenticator, type RequestHeaderAuthenticatorOptions } from "./request-header-authenticator.js";
export { parseTokenFile, StaticTokenAuthenticator } from "./token-file.js";
export { tokenWebhookAuthenticator, type TokenWebhookAuthenticator, type TokenWebhookCacheStats, type TokenWebhookOptions } from "./token-webhook.js";
export { parseWebhookConfig, type PEMSource, type WebhookConfig } from "./webhook-config.js";
export {
  serviceAccountGroups,
  serviceAccountsGroup,
  serviceAccountTokenAlgorithms,
  serviceAccountTokenAuthenticator,
  serviceAccountTokenLeewayMs,
  serviceAccountUserName,
  type ServiceAccountTokenAuthenticatorOptions,
} from "./service-account-token.js";
export { publicKeysFromPEM } from "./service-account-keys.js";
export {
  bootstrapDefaultGroup,
  bootstrapTokenAuthenticator,
  bootstrapUserPrefix,
  parseBootstrapToken,
  type BootstrapToken,
  type BootstrapTokenAuthenticatorOptions,
} from "./bootstrap-token.js";
// The token Secret's format moved to `@orch/resources` (the Secret kind validates with it); these were this package's before.
export { bootstrapGroupPattern, bootstrapTokenPattern, bootstrapTokenSecretPrefix } from "@orch/resources";
export { ExpiringCache } from "./expiring-cache.js";
export { untilAborted } from "./until-aborted.js";
