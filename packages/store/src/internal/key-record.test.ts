import { describe, expect, it } from "vitest";
import type { Entry } from "../store.js";
import { KeyRecord } from "./key-record.js";

const entry = (revision: number, createRevision = revision): Entry => ({ key: "k", value: { revision }, createRevision, modRevision: revision });

describe("KeyRecord", () => {
  // Versions: live at 2, updated at 4, deleted at 6, re-created at 9, updated at 12.
  function history(): { rec: KeyRecord; e2: Entry; e4: Entry; e9: Entry; e12: Entry } {
    const e2 = entry(2);
    const rec = new KeyRecord("k", e2, 2);
    const e4 = entry(4, 2);
    rec.write(e4);
    rec.remove(6);
    const e9 = entry(9);
    rec.write(e9);
    const e12 = entry(12, 9);
    rec.write(e12);
    return { rec, e2, e4, e9, e12 };
  }

  it("keeps no history array for a key written once", () => {
    const rec = new KeyRecord("k", entry(1), 1);
    expect(rec.hist).toBeUndefined();
    expect(rec.at(1)).toBe(rec.cur);
    expect(rec.at(0)).toBeUndefined();
  });

  it("answers the version visible at each revision, deletions included", () => {
    const { rec, e2, e4, e9, e12 } = history();
    const seen = Array.from({ length: 14 }, (_, r) => rec.at(r));
    expect(seen).toEqual([undefined, undefined, e2, e2, e4, e4, undefined, undefined, undefined, e9, e9, e9, e12, e12]);
  });

  it("trims versions no read at or after the compacted revision can see", () => {
    const { rec, e4, e9, e12 } = history();
    expect(rec.trim(5)).toBe(false);
    expect(rec.at(5)).toBe(e4);
    expect(rec.at(10)).toBe(e9);
    expect(rec.hist).toHaveLength(3); // e4, the deletion, e9
    expect(rec.trim(7)).toBe(false);
    expect(rec.hist).toEqual([e9]); // the deletion visible at 7 means absence: nothing kept for it
    expect(rec.at(7)).toBeUndefined();
    expect(rec.trim(12)).toBe(false);
    expect(rec.hist).toBeUndefined();
    expect(rec.at(12)).toBe(e12);
  });

  it("tells the caller to drop a key deleted at or before the compacted revision", () => {
    const rec = new KeyRecord("k", entry(1), 1);
    rec.remove(3);
    expect(rec.trim(2)).toBe(false);
    expect(rec.trim(3)).toBe(true);
  });
});
