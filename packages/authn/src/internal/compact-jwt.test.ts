import { describe, expect, it } from "vitest";
import { looksLikeCompactJWT } from "./compact-jwt.js";

describe("looksLikeCompactJWT", () => {
  it("accepts three base64url parts, the signature possibly empty (alg none)", () => {
    expect(looksLikeCompactJWT("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln-_")).toBe(true);
    expect(looksLikeCompactJWT("eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.")).toBe(true);
  });

  it.each(["static-token", "abcdef.0123456789abcdef", "a..c", ".b.c", "a.b.c.d", "a.b c.d", "a.b.c=", ""])("refuses %j", (token) => {
    expect(looksLikeCompactJWT(token)).toBe(false);
  });
});
