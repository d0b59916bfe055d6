/**
 * Who makes a request: the user information every authenticator produces and every later stage
 * (impersonation, authorization, admission, audit) reads.
 * @module
 */

/** The identity of a caller: the reference's `user.Info`. */
export interface UserInfo {
  /** The user name (`alice`, `system:serviceaccount:default:builder`, `system:anonymous`). */
  name: string;
  /** A value that identifies the user across time; optional. */
  uid?: string;
  /** The groups the user belongs to, in the order the authenticator gave them. */
  groups: string[];
  /** Further attributes (scopes, the pod a token was bound to); never secrets. */
  extra?: Record<string, string[]>;
}

/** The group of every authenticated user. */
export const authenticatedGroup = "system:authenticated";
/** The group of the anonymous user. */
export const unauthenticatedGroup = "system:unauthenticated";
/** The user of a request that presented no credential. */
export const anonymousUser = "system:anonymous";
/** The group whose members are administrators under the bootstrap RBAC policy. */
export const mastersGroup = "system:masters";
