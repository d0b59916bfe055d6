import { describe, expect, it } from "vitest";
import { main } from "./main.js";

describe("quickstart example", () => {
  it("pages through the selected objects and then sees the object that starts to match", async () => {
    const lines: string[] = [];
    const seen = await main((line) => lines.push(line));
    expect(seen).toEqual(["a", "c", "d", "b"]);
    expect(lines[0]).toBe("page at resourceVersion 4: a, c");
    expect(lines[1]).toBe("page at resourceVersion 4: d");
    expect(lines[2]).toBe("watch: ADDED b at 5");
  });
});
