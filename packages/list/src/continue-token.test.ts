import { StatusError } from "@orch/meta";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeContinueToken, encodeContinueToken } from "./continue-token.js";

/** Base64url without padding of `text`, as a client forging a token would write it. */
function forge(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function rejection(token: string, domain?: string): StatusError {
  try {
    decodeContinueToken(token, domain === undefined ? {} : { domain });
  } catch (e) {
    expect(e).toBeInstanceOf(StatusError);
    const error = e as StatusError;
    expect(error.code).toBe(400);
    expect(error.reason).toBe("BadRequest");
    expect(error.message).toMatch(/^invalid continue token: continue key is not valid/);
    return error;
  }
  throw new Error(`expected ${JSON.stringify(token)} to be rejected`);
}

/** Relative keys as the lister writes them: clean path segments plus a trailing NUL. */
const segment = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes("/") && s !== "." && s !== "..");
const startKey = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `${parts.join("/")}\u0000`);
const revision = fc.oneof(fc.constant(-1), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }));

describe("continue tokens", () => {
  it("encodes its JSON as unpadded base64url", () => {
    const token = encodeContinueToken({ revision: 12, startKey: "default/web\u0000" });
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const json = new TextDecoder().decode(Uint8Array.from(atob(token.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));
    expect(JSON.parse(json)).toEqual({ v: "meta.orch.io/v1", rv: 12, start: "default/web\u0000" });
  });

  it("reads the tokens of the reference server when the domain is k8s.io", () => {
    // {"v":"meta.k8s.io/v1","rv":5,"start":"ns/name\u0000"} as the reference encodes it.
    const reference = forge('{"v":"meta.k8s.io/v1","rv":5,"start":"ns/name\\u0000"}');
    expect(decodeContinueToken(reference, { domain: "k8s.io" })).toEqual({ revision: 5, startKey: "ns/name\u0000" });
    expect(encodeContinueToken({ revision: 5, startKey: "ns/name\u0000" }, { domain: "k8s.io" })).toBe(reference);
  });

  it("round-trips every revision and start key", () => {
    fc.assert(
      fc.property(revision, startKey, fc.constantFrom("orch.io", "k8s.io", "example.com"), (rv, start, domain) => {
        const token = encodeContinueToken({ revision: rv, startKey: start }, { domain });
        expect(decodeContinueToken(token, { domain })).toEqual({ revision: rv, startKey: start });
      }),
    );
  });

  it("decodes arbitrary strings or rejects them with a 400, never another error", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.base64String(), fc.json().map(forge), fc.string().map(forge)), (input) => {
        try {
          const token = decodeContinueToken(input);
          expect(Number.isSafeInteger(token.revision)).toBe(true);
          expect(token.revision === -1 || token.revision >= 1).toBe(true);
          expect(typeof token.startKey).toBe("string");
        } catch (e) {
          expect(e).toBeInstanceOf(StatusError);
          expect((e as StatusError).code).toBe(400);
        }
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ["padding", `${forge('{"v":"meta.orch.io/v1","rv":1,"start":"a"}')}=`],
    ["the standard alphabet", "+/+/"],
    ["whitespace", " eyJ9"],
    ["an impossible length", "a"],
    ["bytes that are not UTF-8", "_w"],
  ])("rejects base64 with %s", (_what, token) => {
    rejection(token);
  });

  it.each([
    ["not JSON", "not json"],
    ["a JSON array", "[1,2]"],
    ["JSON null", "null"],
    ["a JSON string", '"a"'],
  ])("rejects a token that is %s", (_what, json) => {
    rejection(forge(json));
  });

  it("rejects a token of another version or domain", () => {
    expect(rejection(forge('{"v":"meta.orch.io/v2","rv":1,"start":"a"}')).message).toBe(
      'invalid continue token: continue key is not valid server does not recognize this encoded version "meta.orch.io/v2"',
    );
    rejection(forge('{"rv":1,"start":"a"}'));
    rejection(encodeContinueToken({ revision: 1, startKey: "a" }, { domain: "k8s.io" }));
  });

  it.each([
    ["missing", '{"v":"meta.orch.io/v1","start":"a"}'],
    ["zero", '{"v":"meta.orch.io/v1","rv":0,"start":"a"}'],
    ["below -1", '{"v":"meta.orch.io/v1","rv":-2,"start":"a"}'],
    ["fractional", '{"v":"meta.orch.io/v1","rv":1.5,"start":"a"}'],
    ["a string", '{"v":"meta.orch.io/v1","rv":"5","start":"a"}'],
    ["beyond the safe integers", '{"v":"meta.orch.io/v1","rv":9007199254740993,"start":"a"}'],
  ])("rejects an rv that is %s", (_what, json) => {
    rejection(forge(json));
  });

  it("names an rv of 0 as an incorrect start resourceVersion", () => {
    expect(rejection(forge('{"v":"meta.orch.io/v1","rv":0,"start":"a"}')).message).toBe(
      "invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.orch.io/v1)",
    );
  });

  it.each([
    ["missing", '{"v":"meta.orch.io/v1","rv":1}'],
    ["empty", '{"v":"meta.orch.io/v1","rv":1,"start":""}'],
    ["a number", '{"v":"meta.orch.io/v1","rv":1,"start":5}'],
  ])("rejects a start key that is %s", (_what, json) => {
    rejection(forge(json));
  });

  it.each(["../secrets/x", "a/../../b", "a//b", "a/./b", "/..", "a/", "./a", "a/.."])("rejects the path-traversing start key %j", (start) => {
    const error = rejection(forge(JSON.stringify({ v: "meta.orch.io/v1", rv: 1, start })));
    expect(error.message).toBe(`invalid continue token: continue key is not valid: ${start}`);
  });

  it.each(["a", "/a", "ns/name\u0000", "/", "a.b/c..d/.e"])("accepts the clean start key %j", (start) => {
    expect(decodeContinueToken(forge(JSON.stringify({ v: "meta.orch.io/v1", rv: 3, start })))).toEqual({ revision: 3, startKey: start });
  });

  it("ignores unknown fields, as the reference decoder does", () => {
    expect(decodeContinueToken(forge('{"v":"meta.orch.io/v1","rv":-1,"start":"a","x":1}'))).toEqual({ revision: -1, startKey: "a" });
  });
});
