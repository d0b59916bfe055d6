/**
 * The reference's resourceVersion decision tables of get, list and watch as one function:
 * the query parameters of a get, list or watch go in, a {@link ReadPlan} saying what to read
 * comes out, and every invalid cell is a 400 with the reference server's message.
 * @module
 */
import {
  badRequest,
  formatFieldError,
  fieldErrorCause,
  forbiddenField,
  invalidField,
  notSupportedField,
  parseResourceVersion,
  type FieldError,
} from "@orch/meta";
import { decodeContinueToken } from "./continue-token.js";

/** Consistent data at the newest revision (a quorum read). */
export interface MostRecentPlan {
  readonly kind: "MostRecent";
}

/** Data at any revision; orch serves the newest it has without waiting. */
export interface AnyPlan {
  readonly kind: "Any";
}

/** Data at `revision` or newer; the read waits (bounded) for the store to reach it. */
export interface NotOlderThanPlan {
  readonly kind: "NotOlderThan";
  readonly revision: number;
}

/** Data at exactly `revision`; 410 when it was compacted. */
export interface ExactPlan {
  readonly kind: "Exact";
  readonly revision: number;
}

/**
 * The next chunk of a paged list, at the `revision` of its first chunk, from `startKey`
 * (relative to the listed prefix, as the continue token carries it).
 */
export interface ContinuePlan {
  readonly kind: "Continue";
  readonly revision: number;
  readonly startKey: string;
}

/**
 * The rest of a paged list at the newest revision, from `startKey`: what a token with rv -1
 * (handed out by a 410 on an expired token) asks for. The result is not a consistent snapshot.
 */
export interface ContinueLatestPlan {
  readonly kind: "ContinueLatest";
  readonly startKey: string;
}

/** A watch that first sends the state at the newest revision as synthetic `ADDED` events. */
export interface StartMostRecentPlan {
  readonly kind: "StartMostRecent";
}

/** A watch that first sends the state at any revision as synthetic `ADDED` events. */
export interface StartAnyPlan {
  readonly kind: "StartAny";
}

/** A watch of every change after `revision`, without synthetic `ADDED` events. */
export interface StartExactPlan {
  readonly kind: "StartExact";
  readonly revision: number;
}

/** What a get reads. */
export type GetPlan = MostRecentPlan | AnyPlan | NotOlderThanPlan;

/** What a list reads. */
export type ListPlan = MostRecentPlan | AnyPlan | NotOlderThanPlan | ExactPlan | ContinuePlan | ContinueLatestPlan;

/** Where a watch starts. */
export type WatchPlan = StartMostRecentPlan | StartAnyPlan | StartExactPlan;

/** Any outcome of {@link planRead}, discriminated by `kind`. */
export type ReadPlan = ListPlan | WatchPlan;

/** The verbs {@link planRead} decides for. */
export type ReadVerb = "get" | "list" | "watch";

/**
 * The query parameters that decide a read, as the client sent them (absent when not sent).
 * An empty `resourceVersion`, `resourceVersionMatch` or `continue` counts as not sent, and a
 * `limit` of 0 as no limit, as in the reference server.
 */
export interface ReadParams {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
}

/** Options of {@link planRead}. */
export interface PlanReadOptions {
  /** The product domain continue tokens are versioned with (`meta.<domain>/v1`); default `orch.io`. */
  domain?: string;
}

const exactMatch = "Exact";
const notOlderThanMatch = "NotOlderThan";

/**
 * Decides what a get, list or watch reads from its query parameters: one cell of the three
 * resourceVersion tables of the reference (see the lists and watches guide).
 *
 * - get: rv unset is `MostRecent`, `0` is `Any`, anything else `NotOlderThan`.
 * - list: as get without a limit; with `limit > 0` a non-zero rv without a match is `Exact`;
 *   `resourceVersionMatch` `Exact`/`NotOlderThan` pick those (`NotOlderThan` with rv `0` is
 *   `Any`); a continue token gives `Continue` at the token's revision (rv `0` alongside it is
 *   tolerated), or `ContinueLatest` for a token with rv -1.
 * - watch: rv unset is `StartMostRecent`, `0` is `StartAny`, anything else `StartExact`.
 *
 * @param verb the verb being served.
 * @param params the query parameters; pass only those the client sent.
 * @param options the product domain of continue tokens.
 * @returns the plan, discriminated by `kind`.
 * @throws StatusError 400 BadRequest for every invalid cell: `resourceVersionMatch` without
 *   `resourceVersion`, with `continue`, with an unknown value, `Exact` with rv `0`, or on a get
 *   or watch; `continue` on a get or watch; `continue` with a non-zero rv (`specifying resource
 *   version is not allowed when using continue`); a malformed continue token (`invalid continue
 *   token: continue key is not valid: ...`); a negative or fractional `limit`; a resourceVersion
 *   that is not a decimal revision.
 */
export function planRead(verb: "get", params: ReadParams, options?: PlanReadOptions): GetPlan;
export function planRead(verb: "list", params: ReadParams, options?: PlanReadOptions): ListPlan;
export function planRead(verb: "watch", params: ReadParams, options?: PlanReadOptions): WatchPlan;
export function planRead(verb: ReadVerb, params: ReadParams, options?: PlanReadOptions): ReadPlan;
export function planRead(verb: ReadVerb, params: ReadParams, options: PlanReadOptions = {}): ReadPlan {
  const rv = params.resourceVersion ?? "";
  const match = params.resourceVersionMatch ?? "";
  const token = params.continue ?? "";
  switch (verb) {
    case "get": {
      rejectIfAny(notForVerb("get", match, token));
      if (rv === "") return { kind: "MostRecent" };
      const revision = parseResourceVersion(rv);
      return revision === 0 ? { kind: "Any" } : { kind: "NotOlderThan", revision };
    }
    case "watch": {
      rejectIfAny(notForVerb("watch", match, token));
      if (rv === "") return { kind: "StartMostRecent" };
      const revision = parseResourceVersion(rv);
      return revision === 0 ? { kind: "StartAny" } : { kind: "StartExact", revision };
    }
    case "list":
      return planList(rv, match, token, params.limit, options.domain);
  }
}

function planList(rv: string, match: string, token: string, limit: number | undefined, domain: string | undefined): ListPlan {
  // The handler's ListOptions validation first (all its errors at once), then the storage
  // layer's checks, in the reference server's order.
  const errors: FieldError[] = [];
  if (match !== "") {
    if (rv === "") errors.push(forbiddenField("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    if (token !== "") errors.push(forbiddenField("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    if (match !== exactMatch && match !== notOlderThanMatch) {
      errors.push(notSupportedField("resourceVersionMatch", match, [exactMatch, notOlderThanMatch, ""]));
    }
    if (match === exactMatch && rv === "0") {
      errors.push(forbiddenField("resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) {
    errors.push(invalidField("limit", limit, "must be a non-negative integer"));
  }
  rejectIfAny(errors);

  if (token !== "") {
    const decoded = decodeContinueToken(token, domain === undefined ? {} : { domain });
    if (rv !== "" && rv !== "0") throw badRequest("specifying resource version is not allowed when using continue");
    return decoded.revision === -1
      ? { kind: "ContinueLatest", startKey: decoded.startKey }
      : { kind: "Continue", revision: decoded.revision, startKey: decoded.startKey };
  }
  if (rv === "") return { kind: "MostRecent" };
  const revision = parseResourceVersion(rv);
  if (match === exactMatch) return { kind: "Exact", revision };
  if (revision === 0) return { kind: "Any" };
  if (match === notOlderThanMatch) return { kind: "NotOlderThan", revision };
  return limit !== undefined && limit > 0 ? { kind: "Exact", revision } : { kind: "NotOlderThan", revision };
}

function notForVerb(verb: "get" | "watch", match: string, token: string): FieldError[] {
  const errors: FieldError[] = [];
  if (match !== "") {
    errors.push(
      forbiddenField(
        "resourceVersionMatch",
        verb === "watch" ? "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided" : "resourceVersionMatch is forbidden for get",
      ),
    );
  }
  if (token !== "") errors.push(forbiddenField("continue", `continue is forbidden for ${verb}`));
  return errors;
}

/** Throws the field errors as one 400, printed as the reference aggregate prints them. */
function rejectIfAny(errors: readonly FieldError[]): void {
  if (errors.length === 0) return;
  const printed = errors.map(formatFieldError);
  const message = printed.length === 1 ? (printed[0] as string) : `[${printed.join(", ")}]`;
  throw badRequest(message, errors.map(fieldErrorCause));
}
