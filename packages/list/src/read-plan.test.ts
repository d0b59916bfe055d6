import { StatusError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { encodeContinueToken } from "./continue-token.js";
import { planRead, type ReadParams, type ReadPlan, type ReadVerb } from "./read-plan.js";

const token = encodeContinueToken({ revision: 7, startKey: "default/b\u0000" });
const latestToken = encodeContinueToken({ revision: -1, startKey: "default/b\u0000" });

function badRequestOf(verb: ReadVerb, params: ReadParams): StatusError {
  try {
    planRead(verb, params);
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    const error = e as StatusError;
    expect(error.code).toBe(400);
    expect(error.reason).toBe("BadRequest");
    return error;
  }
  throw new Error("expected a 400");
}

type Row = readonly [cell: string, verb: ReadVerb, params: ReadParams, expected: ReadPlan | { error: string }];

/** One row per cell of the reference's three resourceVersion tables (get, list, watch). */
const table: readonly Row[] = [
  // get
  ["get, rv unset: Most Recent", "get", {}, { kind: "MostRecent" }],
  ["get, rv 0: Any", "get", { resourceVersion: "0" }, { kind: "Any" }],
  ["get, rv non-zero: Not older than", "get", { resourceVersion: "5" }, { kind: "NotOlderThan", revision: 5 }],

  // list, resourceVersionMatch unset, limit unset
  ["list, match unset, limit unset, rv unset: Most Recent", "list", {}, { kind: "MostRecent" }],
  ["list, match unset, limit unset, rv 0: Any", "list", { resourceVersion: "0" }, { kind: "Any" }],
  ["list, match unset, limit unset, rv non-zero: Not older than", "list", { resourceVersion: "5" }, { kind: "NotOlderThan", revision: 5 }],
  // list, match unset, limit n, no continue
  ["list, match unset, limit n, rv unset: Most Recent", "list", { limit: 2 }, { kind: "MostRecent" }],
  ["list, match unset, limit n, rv 0: Any", "list", { limit: 2, resourceVersion: "0" }, { kind: "Any" }],
  ["list, match unset, limit n, rv non-zero: Exact", "list", { limit: 2, resourceVersion: "5" }, { kind: "Exact", revision: 5 }],
  // list, match unset, limit n, continue token
  [
    "list, match unset, limit n + continue, rv unset: Continue Token, Exact",
    "list",
    { limit: 2, continue: token },
    { kind: "Continue", revision: 7, startKey: "default/b\u0000" },
  ],
  [
    "list, match unset, limit n + continue, rv 0: treated as Continue Token, Exact",
    "list",
    { limit: 2, continue: token, resourceVersion: "0" },
    { kind: "Continue", revision: 7, startKey: "default/b\u0000" },
  ],
  [
    "list, match unset, limit n + continue, rv non-zero: 400",
    "list",
    { limit: 2, continue: token, resourceVersion: "5" },
    { error: "specifying resource version is not allowed when using continue" },
  ],
  // list, match Exact
  [
    "list, match Exact, limit unset, rv unset: invalid",
    "list",
    { resourceVersionMatch: "Exact" },
    { error: "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided" },
  ],
  [
    "list, match Exact, limit unset, rv 0: invalid",
    "list",
    { resourceVersionMatch: "Exact", resourceVersion: "0" },
    { error: 'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"' },
  ],
  ["list, match Exact, limit unset, rv non-zero: Exact", "list", { resourceVersionMatch: "Exact", resourceVersion: "5" }, { kind: "Exact", revision: 5 }],
  [
    "list, match Exact, limit n, rv unset: invalid",
    "list",
    { resourceVersionMatch: "Exact", limit: 2 },
    { error: "resourceVersionMatch is forbidden unless resourceVersion is provided" },
  ],
  [
    "list, match Exact, limit n, rv 0: invalid",
    "list",
    { resourceVersionMatch: "Exact", limit: 2, resourceVersion: "0" },
    { error: 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"' },
  ],
  ["list, match Exact, limit n, rv non-zero: Exact", "list", { resourceVersionMatch: "Exact", limit: 2, resourceVersion: "5" }, { kind: "Exact", revision: 5 }],
  // list, match NotOlderThan
  [
    "list, match NotOlderThan, limit unset, rv unset: invalid",
    "list",
    { resourceVersionMatch: "NotOlderThan" },
    { error: "resourceVersionMatch is forbidden unless resourceVersion is provided" },
  ],
  ["list, match NotOlderThan, limit unset, rv 0: Any", "list", { resourceVersionMatch: "NotOlderThan", resourceVersion: "0" }, { kind: "Any" }],
  [
    "list, match NotOlderThan, limit unset, rv non-zero: Not older than",
    "list",
    { resourceVersionMatch: "NotOlderThan", resourceVersion: "5" },
    { kind: "NotOlderThan", revision: 5 },
  ],
  [
    "list, match NotOlderThan, limit n, rv unset: invalid",
    "list",
    { resourceVersionMatch: "NotOlderThan", limit: 2 },
    { error: "resourceVersionMatch is forbidden unless resourceVersion is provided" },
  ],
  ["list, match NotOlderThan, limit n, rv 0: Any", "list", { resourceVersionMatch: "NotOlderThan", limit: 2, resourceVersion: "0" }, { kind: "Any" }],
  [
    "list, match NotOlderThan, limit n, rv non-zero: Not older than",
    "list",
    { resourceVersionMatch: "NotOlderThan", limit: 2, resourceVersion: "5" },
    { kind: "NotOlderThan", revision: 5 },
  ],

  // watch
  ["watch, rv unset: Get State and Start at Most Recent", "watch", {}, { kind: "StartMostRecent" }],
  ["watch, rv 0: Get State and Start at Any", "watch", { resourceVersion: "0" }, { kind: "StartAny" }],
  ["watch, rv non-zero: Start at Exact", "watch", { resourceVersion: "5" }, { kind: "StartExact", revision: 5 }],
];

describe("planRead covers every cell of the resourceVersion tables", () => {
  it.each(table)("%s", (_cell, verb, params, expected) => {
    if ("error" in expected) {
      expect(badRequestOf(verb, params).message).toContain(expected.error);
    } else {
      expect(planRead(verb, params)).toEqual(expected);
    }
  });
});

describe("planRead outside the tables", () => {
  it("lists the rest at the newest revision for a continue token with rv -1", () => {
    expect(planRead("list", { limit: 2, continue: latestToken })).toEqual({ kind: "ContinueLatest", startKey: "default/b\u0000" });
  });

  it("continues without a limit, listing everything left at the token's revision", () => {
    expect(planRead("list", { continue: token })).toEqual({ kind: "Continue", revision: 7, startKey: "default/b\u0000" });
  });

  it("treats empty parameters and limit 0 as not sent", () => {
    expect(planRead("list", { resourceVersion: "", resourceVersionMatch: "", continue: "", limit: 0 })).toEqual({ kind: "MostRecent" });
    expect(planRead("list", { resourceVersion: "5", limit: 0 })).toEqual({ kind: "NotOlderThan", revision: 5 });
  });

  it("rejects an unknown resourceVersionMatch, listing the supported values", () => {
    const error = badRequestOf("list", { resourceVersionMatch: "Newest", resourceVersion: "5" });
    expect(error.message).toBe('resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""');
    expect(error.status.details?.causes).toEqual([
      {
        reason: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        message: 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
      },
    ]);
  });

  it("rejects resourceVersionMatch together with continue", () => {
    expect(badRequestOf("list", { resourceVersionMatch: "NotOlderThan", resourceVersion: "5", continue: token }).message).toBe(
      "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided",
    );
  });

  it("reports every invalid option at once, as the reference aggregate does", () => {
    expect(badRequestOf("list", { resourceVersionMatch: "Bogus", continue: token }).message).toBe(
      "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, " +
        "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, " +
        'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""]',
    );
  });

  it("rejects resourceVersionMatch on a watch", () => {
    expect(badRequestOf("watch", { resourceVersionMatch: "NotOlderThan", resourceVersion: "5" }).message).toContain(
      "resourceVersionMatch is forbidden for watch",
    );
  });

  it("rejects resourceVersionMatch on a get", () => {
    expect(badRequestOf("get", { resourceVersionMatch: "Exact", resourceVersion: "5" }).message).toContain("resourceVersionMatch is forbidden for get");
  });

  it.each(["get", "watch"] as const)("rejects continue on a %s", (verb) => {
    expect(badRequestOf(verb, { continue: token }).message).toBe(`continue: Forbidden: continue is forbidden for ${verb}`);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("rejects limit %s", (limit) => {
    expect(badRequestOf("list", { limit }).message).toContain("limit: Invalid value");
  });

  it.each(["abc", "-1", "01", "1e3", "99999999999999999999"])("rejects resourceVersion %j on every verb", (resourceVersion) => {
    for (const verb of ["get", "list", "watch"] as const) {
      expect(badRequestOf(verb, { resourceVersion }).message).toContain("resourceVersion");
    }
  });

  it("rejects a malformed continue token before looking at resourceVersion", () => {
    expect(badRequestOf("list", { continue: "%%%", resourceVersion: "5" }).message).toMatch(/^invalid continue token: continue key is not valid/);
  });

  it("checks continue tokens against the configured domain", () => {
    const k8s = encodeContinueToken({ revision: 3, startKey: "a\u0000" }, { domain: "k8s.io" });
    expect(planRead("list", { continue: k8s }, { domain: "k8s.io" })).toEqual({ kind: "Continue", revision: 3, startKey: "a\u0000" });
    expect(badRequestOf("list", { continue: k8s }).message).toContain('server does not recognize this encoded version "meta.k8s.io/v1"');
  });
});
