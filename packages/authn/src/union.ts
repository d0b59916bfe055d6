/**
 * The union of authenticators the server runs on every request, with the anonymous fallback.
 * @module
 */
import { AuthenticationError, type AuthenticationRequest, type AuthenticationResult, type Authenticator } from "./authenticator.js";
import { anonymousUser, authenticatedGroup, unauthenticatedGroup, type UserInfo } from "./user.js";

/**
 * Tries each authenticator in turn (the reference's union): the first user wins and gets
 * `system:authenticated` added (once); a refusal is remembered and the next one tried; when
 * none accepted the request and some refused it, the refusals are thrown as one
 * {@link AuthenticationError}; when none had an opinion, `undefined`.
 */
export function unionAuthenticator(authenticators: readonly Authenticator[]): Authenticator {
  return {
    async authenticate(request: AuthenticationRequest): Promise<AuthenticationResult> {
      // Made only when an authenticator refuses: the common request is accepted or has no credential.
      let refusals: string[] | undefined;
      for (const authenticator of authenticators) {
        let result: AuthenticationResult;
        try {
          result = await authenticator.authenticate(request);
        } catch (error) {
          (refusals ??= []).push(error instanceof Error ? error.message : String(error));
          continue;
        }
        if (result) return { ...result, user: withAuthenticatedGroup(result.user) };
      }
      if (refusals !== undefined) throw new AuthenticationError(refusals.join("; "));
      return undefined;
    },
  };
}

/** `user` with `system:authenticated` among its groups (added last when missing; never for the anonymous user). */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === anonymousUser || user.groups.includes(authenticatedGroup) || user.groups.includes(unauthenticatedGroup)) return user;
  return { ...user, groups: [...user.groups, authenticatedGroup] };
}

/** The user of a request that presented no credential: `system:anonymous` in `system:unauthenticated`. */
export function anonymous(): UserInfo {
  return { name: anonymousUser, groups: [unauthenticatedGroup] };
}
