/**
 * The versions of one key. The newest version sits in two fields (`cur`, `rev`) so a key that
 * was written once costs no history array; older versions that a read at a past revision may
 * still need go to `hist`, oldest first, until compaction trims them.
 * @module
 */
import type { Entry } from "../store.js";
import type { Leaf } from "./key-index.js";

/** A deletion in a key's history: from `modRevision` on, the key was absent. */
export class Tombstone {
  constructor(readonly modRevision: number) {}
}

/** One retained version of a key: a value or a deletion. */
export type Version = Entry | Tombstone;

/** Everything the store keeps about one key. */
export class KeyRecord {
  /** Older retained versions in ascending revision order, or undefined when there are none. */
  hist: Version[] | undefined = undefined;
  /** The index leaf holding this record, maintained by the index. */
  leaf: Leaf | undefined = undefined;

  constructor(
    readonly key: string,
    /** The live entry, or undefined when the newest version is a deletion. */
    public cur: Entry | undefined,
    /** The revision of the newest version: `cur.modRevision`, or the deletion's revision. */
    public rev: number,
  ) {}

  /** Makes `entry` the newest version, keeping the previous one as history. */
  write(entry: Entry): void {
    const prev = this.cur === undefined ? new Tombstone(this.rev) : this.cur;
    if (this.hist === undefined) this.hist = [prev];
    else this.hist.push(prev);
    this.cur = entry;
    this.rev = entry.modRevision;
  }

  /** Makes a deletion at `revision` the newest version. The key must be live. */
  remove(revision: number): void {
    const prev = this.cur as Entry;
    if (this.hist === undefined) this.hist = [prev];
    else this.hist.push(prev);
    this.cur = undefined;
    this.rev = revision;
  }

  /** The entry as of `revision`, or undefined when the key was absent then. */
  at(revision: number): Entry | undefined {
    if (this.rev <= revision) return this.cur;
    const hist = this.hist;
    if (hist === undefined) return undefined;
    // The last version whose revision is at most `revision`.
    let lo = 0;
    let hi = hist.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((hist[mid] as Version).modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return undefined;
    const version = hist[lo - 1] as Version;
    return version instanceof Tombstone ? undefined : version;
  }

  /**
   * Forgets versions that no read at `compacted` or later can see: everything older than the
   * newest version at or before `compacted`. Returns true when nothing is left worth keeping
   * (the key is deleted as of `compacted` and not written since), so the caller drops the record.
   */
  trim(compacted: number): boolean {
    if (this.rev <= compacted) {
      this.hist = undefined;
      return this.cur === undefined;
    }
    const hist = this.hist;
    if (hist === undefined) return false;
    let lo = 0;
    let hi = hist.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((hist[mid] as Version).modRevision <= compacted) lo = mid + 1;
      else hi = mid;
    }
    // hist[lo - 1] is the version visible at `compacted`; a deletion there is the same as no version.
    let keepFrom = lo - 1;
    if (keepFrom < 0) return false;
    if (hist[keepFrom] instanceof Tombstone) keepFrom++;
    if (keepFrom >= hist.length) this.hist = undefined;
    else if (keepFrom > 0) hist.splice(0, keepFrom);
    return false;
  }
}
