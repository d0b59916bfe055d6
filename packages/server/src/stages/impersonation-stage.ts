/**
 * The impersonation stage (the reference's `WithImpersonation`): a caller with the right acts
 * as another user through the `Impersonate-*` headers.
 * @module
 */
import { anonymousUser, authenticatedGroup, unauthenticatedGroup, type UserInfo } from "@orch/authn";
import type { Attributes, Authorizer } from "@orch/authz";
import { badRequest } from "@orch/meta";
import { requireAllowed } from "./authorization-stage.js";
import type { APIResponse } from "../api-request.js";
import { userOf, type Handler, type ServerRequest, type Stage } from "./stage.js";

const userHeader = "impersonate-user";
const groupHeader = "impersonate-group";
const uidHeader = "impersonate-uid";
const impersonatePrefix = "impersonate-";
const extraPrefix = "impersonate-extra-";
const serviceAccountPrefix = "system:serviceaccount:";

/** The values of a header that may repeat (web `Headers` joins repeats with `, `). */
function values(headers: Headers, name: string): string[] {
  const value = headers.get(name);
  if (value === null) return [];
  return value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/** What the `Impersonate-*` headers ask for, or `undefined` when there are none. */
interface Impersonation {
  user: string;
  groups: string[];
  uid?: string;
  extra: Record<string, string[]>;
}

/** A percent-encoded header-name part, decoded; a bad escape is a 400. */
function decodeExtraKey(raw: string): string {
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    throw badRequest(`the impersonation header Impersonate-Extra-${raw} is not valid percent-encoding`);
  }
}

function requested(headers: Headers): Impersonation | undefined {
  const extra: Record<string, string[]> = {};
  let any = false;
  // One pass over the headers finds whether any asks to impersonate: most requests have none and
  // then cost no lookups by name (each of which validates and lower-cases its name).
  let impersonates = false;
  headers.forEach((value, name) => {
    if (!name.startsWith(impersonatePrefix)) return;
    impersonates = true;
    if (!name.startsWith(extraPrefix)) return;
    any = true;
    const key = decodeExtraKey(name.slice(extraPrefix.length));
    if (key === "") throw badRequest("an Impersonate-Extra- header needs a key after the prefix");
    (extra[key] ??= []).push(
      ...value
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== ""),
    );
  });
  if (!impersonates) return undefined;
  const user = headers.get(userHeader);
  const groups = values(headers, groupHeader);
  const uid = headers.get(uidHeader);
  if (user === null) {
    if (groups.length > 0 || any || uid !== null)
      throw badRequest("requested Impersonate-Group, Impersonate-Extra or Impersonate-Uid without impersonating a user (Impersonate-User)");
    return undefined;
  }
  if (user.trim() === "") throw badRequest("Impersonate-User must not be empty");
  const out: Impersonation = { user: user.trim(), groups, extra };
  if (uid !== null) out.uid = uid.trim();
  return out;
}

function strip(headers: Headers): void {
  const names: string[] = [];
  headers.forEach((_value, name) => {
    if (name.startsWith(impersonatePrefix)) names.push(name);
  });
  for (const name of names) headers.delete(name);
}

/**
 * Serves a request with `Impersonate-User` (and optionally `Impersonate-Group`,
 * `Impersonate-Extra-<key>`, `Impersonate-Uid`) as that user, after checking that the caller
 * may `impersonate` each: `users` (or `serviceaccounts` in the account's namespace for
 * `system:serviceaccount:<ns>:<name>`) and `groups` in the core group, `userextras/<key>` and
 * `uids` in `authentication.<domain>`, by name; any refusal is 403. Groups, extra or uid without
 * a user are 400. An impersonated service account gets its two groups when no group is asked
 * for; every impersonated user but `system:anonymous` gets `system:authenticated`. The caller is
 * kept as `request.impersonator`; the headers are removed.
 */
export function withImpersonation(authorizer: Authorizer, domain: string): Stage {
  const authenticationGroup = `authentication.${domain}`;
  // Most requests impersonate no one: they pass on without an async frame of this stage.
  return (request: ServerRequest, next) => {
    let wanted: Impersonation | undefined;
    try {
      wanted = requested(request.headers);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return wanted ? impersonate(request, next, wanted) : next(request);
  };

  async function impersonate(request: ServerRequest, next: Handler, wanted: Impersonation): Promise<APIResponse> {
    const caller = userOf(request);
    const check = async (attributes: Omit<Attributes, "user" | "verb" | "resourceRequest">) => {
      const full: Attributes = { ...attributes, user: caller, verb: "impersonate", resourceRequest: true };
      requireAllowed(full, await authorizer.authorize(full));
    };
    let groups = [...wanted.groups];
    if (wanted.user.startsWith(serviceAccountPrefix)) {
      const [namespace = "", name = ""] = wanted.user.slice(serviceAccountPrefix.length).split(":");
      await check({ apiGroup: "", resource: "serviceaccounts", namespace, name });
      if (groups.length === 0) groups = ["system:serviceaccounts", `system:serviceaccounts:${namespace}`];
    } else {
      await check({ apiGroup: "", resource: "users", name: wanted.user });
    }
    for (const group of wanted.groups) await check({ apiGroup: "", resource: "groups", name: group });
    for (const [key, extraValues] of Object.entries(wanted.extra)) {
      for (const value of extraValues) await check({ apiGroup: authenticationGroup, resource: "userextras", subresource: key, name: value });
    }
    if (wanted.uid !== undefined) await check({ apiGroup: authenticationGroup, resource: "uids", name: wanted.uid });
    if (wanted.user === anonymousUser) {
      if (!groups.includes(unauthenticatedGroup)) groups.push(unauthenticatedGroup);
    } else if (!groups.includes(authenticatedGroup)) groups.push(authenticatedGroup);
    const user: UserInfo = { name: wanted.user, groups };
    if (wanted.uid !== undefined) user.uid = wanted.uid;
    if (Object.keys(wanted.extra).length > 0) user.extra = wanted.extra;
    request.impersonator = caller;
    request.user = user;
    strip(request.headers);
    return next(request);
  }
}
