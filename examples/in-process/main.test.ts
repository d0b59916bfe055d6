import { describe, expect, it } from "vitest";
import { main } from "./main.js";

describe("in-process example", () => {
  it("keeps the patched value and refuses the stale update with 409 Conflict", async () => {
    const lines: string[] = [];
    expect(await main((l) => lines.push(l))).toEqual({ mode: "safe" });
    expect(lines[1]).toBe("stale update refused: 409 Conflict");
  });
});
