import { describe, expect, it } from "vitest";
import { randomAuditID } from "./audit-id.js";

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("randomAuditID", () => {
  it("makes version 4 UUIDs as crypto.randomUUID writes them, all different, across many draws of random bytes", () => {
    const ids = Array.from({ length: 2000 }, () => randomAuditID());
    for (const id of ids) expect(id).toMatch(uuidV4);
    expect(new Set(ids).size).toBe(ids.length);
    expect(globalThis.crypto.randomUUID()).toMatch(uuidV4);
  });

  it("uses every hex digit in every free position (the bytes are random, not constant)", () => {
    const ids = Array.from({ length: 2000 }, () => randomAuditID());
    for (const position of [0, 7, 9, 15, 20, 35]) {
      const digits = new Set(ids.map((id) => id[position]));
      expect(digits.size).toBe(16);
    }
    // The variant position takes only 8, 9, a and b.
    expect(new Set(ids.map((id) => id[19]))).toEqual(new Set(["8", "9", "a", "b"]));
  });
});
