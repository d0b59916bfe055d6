import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { Expectations, expectationsTimeoutMs } from "./expectations.js";

describe("Expectations", () => {
  it("holds a key until every expected creation is observed", () => {
    const e = new Expectations(new FakeClock());
    expect(e.satisfied("default/web")).toBe(true);
    e.expectCreations("default/web", 2);
    expect(e.satisfied("default/web")).toBe(false);
    e.creationObserved("default/web");
    expect(e.satisfied("default/web")).toBe(false);
    e.creationObserved("default/web");
    expect(e.satisfied("default/web")).toBe(true);
  });

  it("counts only the deletions it expects, each once", () => {
    const e = new Expectations(new FakeClock());
    e.expectDeletions("default/web", ["default/a", "default/b"]);
    e.deletionObserved("default/web", "default/other");
    e.deletionObserved("default/web", "default/a");
    e.deletionObserved("default/web", "default/a");
    expect(e.satisfied("default/web")).toBe(false);
    e.deletionObserved("default/web", "default/b");
    expect(e.satisfied("default/web")).toBe(true);
  });

  it("gives up on expectations older than the timeout, and forgets deleted keys", () => {
    const clock = new FakeClock();
    const e = new Expectations(clock);
    e.expectCreations("default/web", 1);
    clock.advance(expectationsTimeoutMs);
    expect(e.satisfied("default/web")).toBe(false);
    clock.advance(1);
    expect(e.satisfied("default/web")).toBe(true);
    e.expectCreations("default/db", 1);
    e.delete("default/db");
    expect(e.satisfied("default/db")).toBe(true);
  });
});
