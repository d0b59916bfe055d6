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
