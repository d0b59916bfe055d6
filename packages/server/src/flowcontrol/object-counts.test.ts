import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { ObjectCounts } from "./object-counts.js";

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe("ObjectCounts", () => {
  it("knows no count until the first count arrives, then counts again only once the last is old", async () => {
    const clock = new FakeClock();
    let stored = 503;
    const asked: string[] = [];
    const counts = new ObjectCounts(
      async (group, resource) => {
        asked.push(`${resource}.${group}`);
        return stored;
      },
      clock,
      10_000,
    );
    expect(counts.get("", "configmaps")).toBeUndefined();
    await flush();
    expect(counts.get("", "configmaps")).toBe(503);
    stored = 900;
    clock.advance(9_999);
    expect(counts.get("", "configmaps")).toBe(503);
    expect(asked).toEqual(["configmaps."]);
    clock.advance(1);
    // The request that finds the count old is estimated with it; the next sees the new count.
    expect(counts.get("", "configmaps")).toBe(503);
    await flush();
    expect(counts.get("", "configmaps")).toBe(900);
    expect(asked).toEqual(["configmaps.", "configmaps."]);
  });

  it("counts each resource of each group apart, and keeps the last count when a count fails", async () => {
    const clock = new FakeClock();
    let fail = false;
    const counts = new ObjectCounts(
      async (group, resource) => {
        if (fail) throw new Error("store away");
        return group === "apps" ? 7 : resource === "pods" ? 3 : undefined;
      },
      clock,
      1000,
    );
    counts.get("apps", "deployments");
    counts.get("", "pods");
    counts.get("", "nothing");
    await flush();
    expect(counts.get("apps", "deployments")).toBe(7);
    expect(counts.get("", "pods")).toBe(3);
    expect(counts.get("", "nothing")).toBeUndefined();
    fail = true;
    clock.advance(1000);
    counts.get("", "pods");
    await flush();
    expect(counts.get("", "pods")).toBe(3);
  });
});
