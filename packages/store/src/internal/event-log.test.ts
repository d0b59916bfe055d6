import { describe, expect, it } from "vitest";
import type { StoreEvent } from "../store.js";
import { EventLog } from "./event-log.js";

const event = (revision: number): StoreEvent => ({
  type: "create",
  entry: { key: `k${revision}`, value: {}, createRevision: revision, modRevision: revision },
});

describe("EventLog", () => {
  it("finds events by revision and revisions by time", () => {
    const log = new EventLog();
    expect(log.first).toBe(1);
    expect(log.revisionAtOrBefore(1e9)).toBe(0);
    for (let r = 1; r <= 5; r++) log.append(event(r), r * 10);
    expect(log.length).toBe(5);
    expect(log.at(3)).toEqual(event(3));
    expect(log.revisionAtOrBefore(5)).toBe(0);
    expect(log.revisionAtOrBefore(30)).toBe(3);
    expect(log.revisionAtOrBefore(35)).toBe(3);
    expect(log.revisionAtOrBefore(1e9)).toBe(5);
  });

  it("never lets time go backwards", () => {
    const log = new EventLog();
    log.append(event(1), 100);
    log.append(event(2), 50);
    expect(log.revisionAtOrBefore(99)).toBe(0);
    expect(log.revisionAtOrBefore(100)).toBe(2);
  });

  it("drops events through a revision, across its storage compaction", () => {
    const log = new EventLog();
    for (let r = 1; r <= 5000; r++) log.append(event(r), r);
    log.dropThrough(10);
    expect(log.first).toBe(11);
    expect(log.at(11)).toEqual(event(11));
    log.dropThrough(3000);
    expect(log.first).toBe(3001);
    expect(log.length).toBe(2000);
    expect(log.at(4000)).toEqual(event(4000));
    expect(log.revisionAtOrBefore(3500)).toBe(3500);
    log.dropThrough(2000);
    expect(log.first).toBe(3001);
    log.dropThrough(5000);
    expect(log.length).toBe(0);
    expect(log.first).toBe(5001);
    log.append(event(5001), 6000);
    expect(log.at(5001)).toEqual(event(5001));
  });
});
