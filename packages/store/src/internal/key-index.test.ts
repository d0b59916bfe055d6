import { describe, expect, it } from "vitest";
import type { Entry } from "../store.js";
import { KeyIndex, type Leaf } from "./key-index.js";
import { KeyRecord } from "./key-record.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function entry(key: string, revision: number): Entry {
  return { key, value: {}, createRevision: revision, modRevision: revision };
}

/** Every key from the cursor on, by walking the leaves. */
function scanFrom(leaf: Leaf | undefined, pos: number): string[] {
  const out: string[] = [];
  for (let i = pos; leaf !== undefined; leaf = leaf.next, i = 0) out.push(...leaf.keys.slice(i));
  return out;
}

describe("KeyIndex", () => {
  it("keeps ascending appends packed and ordered", () => {
    const index = new KeyIndex({ leafMax: 512, branchMax: 64 });
    let revision = 0;
    for (let i = 0; i < 40_000; i++) {
      const key = `k${String(i).padStart(6, "0")}`;
      index.insert(new KeyRecord(key, entry(key, ++revision), revision), revision);
    }
    const keys = index.check();
    expect(keys).toHaveLength(40_000);
    expect(index.live).toBe(40_000);
    let leaves = 0;
    for (let leaf: Leaf | undefined = index.first(); leaf; leaf = leaf.next) leaves++;
    // Packed splits leave every leaf but the last full.
    expect(leaves).toBe(Math.ceil(40_000 / 512));
  });

  it("splits a leaf that takes an insert in its middle beyond insertLeafMax, and only such a leaf", () => {
    const index = new KeyIndex({ leafMax: 64, branchMax: 8, insertLeafMax: 16 });
    let revision = 0;
    const add = (key: string) => index.insert(new KeyRecord(key, entry(key, ++revision), revision), revision);
    // Ascending appends fill leaves to leafMax.
    for (let i = 0; i < 640; i += 2) add(`k${String(i).padStart(4, "0")}`);
    const sizes = () => {
      const out: number[] = [];
      for (let leaf: Leaf | undefined = index.first(); leaf; leaf = leaf.next) out.push(leaf.keys.length);
      return out;
    };
    expect(sizes()).toEqual([64, 64, 64, 64, 64]);
    // Inserts between the keys of the first leaf split that leaf, and no other.
    for (let i = 1; i < 128; i += 2) add(`k${String(i).padStart(4, "0")}`);
    const after = sizes();
    expect(after.slice(-4)).toEqual([64, 64, 64, 64]);
    expect(Math.max(...after.slice(0, -4))).toBeLessThanOrEqual(16);
    expect(index.check()).toHaveLength(320 + 64);
  });

  it("matches a sorted model under random inserts, liveness changes and removals", () => {
    const random = rng(42);
    const index = new KeyIndex({ leafMax: 32, branchMax: 8 });
    const records = new Map<string, KeyRecord>();
    let revision = 0;
    const name = (): string => `/r/${Math.floor(random() * 200_000).toString(36)}`;
    const checkAgainstModel = (): void => {
      const keys = index.check();
      expect(keys).toEqual([...records.keys()].sort());
      const liveKeys = keys.filter((k) => records.get(k)?.cur !== undefined);
      expect(index.live).toBe(liveKeys.length);
      expect(index.size).toBe(keys.length);
      for (let probe = 0; probe < 40; probe++) {
        const k = probe % 2 === 0 ? name() : (keys[Math.floor(random() * keys.length)] ?? "");
        const below = liveKeys.filter((x) => x < k).length;
        const atOrBelow = liveKeys.filter((x) => x <= k).length;
        expect(index.liveBelow(k, false)).toBe(below);
        expect(index.liveBelow(k, true)).toBe(atOrBelow);
        const strict = index.seek(k, true);
        const loose = index.seek(k, false);
        expect(scanFrom(strict.leaf, strict.pos)).toEqual(keys.filter((x) => x > k));
        expect(scanFrom(loose.leaf, loose.pos)).toEqual(keys.filter((x) => x >= k));
        expect(strict.rank).toBe(atOrBelow);
        expect(loose.rank).toBe(below);
      }
    };

    let tallest = 0;
    for (let round = 0; round < 3; round++) {
      // Grow well past one leaf and one branch level.
      for (let i = 0; i < 30_000; i++) {
        const k = name();
        const rec = records.get(k);
        revision++;
        if (rec === undefined) {
          const fresh = new KeyRecord(k, entry(k, revision), revision);
          records.set(k, fresh);
          index.insert(fresh, revision);
        } else if (rec.cur === undefined) {
          rec.write(entry(k, revision));
          index.set(rec, 1, revision);
        } else if (random() < 0.5) {
          rec.write(entry(k, revision));
          index.set(rec, 0, revision);
        } else {
          rec.remove(revision);
          index.set(rec, -1, revision);
        }
      }
      tallest = Math.max(tallest, index.height);
      checkAgainstModel();
      // Shrink: drop most dead records and a share of live ones, forcing merges.
      for (const [k, rec] of [...records]) {
        if (rec.cur === undefined || random() < 0.7) {
          if (rec.cur !== undefined) {
            rec.remove(++revision);
            index.set(rec, -1, revision);
          }
          index.remove(rec);
          records.delete(k);
        }
      }
      checkAgainstModel();
    }
    expect(tallest).toBeGreaterThanOrEqual(3);
    for (const rec of [...records.values()]) index.remove(rec);
    expect(index.check()).toEqual([]);
    expect(index.live).toBe(0);
    const again = new KeyRecord("/again", entry("/again", ++revision), revision);
    index.insert(again, revision);
    expect(index.check()).toEqual(["/again"]);
  });
});
