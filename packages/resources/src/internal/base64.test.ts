import { describe, expect, it } from "vitest";
import { base64ByteLength, checkBase64, decodeBase64, encodeBase64Text } from "./base64.js";

describe("base64", () => {
  it.each([
    ["", 0],
    ["YQ==", 1],
    ["YWI=", 2],
    ["YWJj", 3],
    ["YWJj\nZGVm", 6],
  ])("accepts %j as %d bytes", (text, bytes) => {
    expect(checkBase64(text)).toMatchObject({ ok: true, bytes });
  });

  it.each([
    ["YQ", "illegal base64 data at input byte 0"],
    ["YWJj!", "illegal base64 data at input byte 4"],
    ["Y===", "illegal base64 data at input byte 1"],
    ["YQ==YQ==", "illegal base64 data at input byte 4"],
    ["not base64", "illegal base64 data at input byte 3"],
  ])("rejects %j with %j", (text, message) => {
    expect(checkBase64(text)).toEqual({ ok: false, message });
  });

  it("round-trips UTF-8 text", () => {
    const encoded = encodeBase64Text("héllo ✓");
    expect(new TextDecoder().decode(decodeBase64(encoded))).toBe("héllo ✓");
    expect(base64ByteLength(encoded)).toBe(new TextEncoder().encode("héllo ✓").length);
    expect(encodeBase64Text("ab")).toBe("YWI=");
  });
});
