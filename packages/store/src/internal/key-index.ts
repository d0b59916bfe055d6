/**
 * The ordered key index of the memory store: a B+tree of `KeyRecord`s keyed by their key, whose
 * nodes count the live records below them (order statistics), so a page seeks in O(log n) and
 * the number of live keys before any key is O(log n) too.
 *
 * Leaves are linked left to right for scans. Beside its records a leaf keeps their current
 * entries in a parallel array and the newest revision written to any of them (`maxRev`): a page
 * at the newest revision, or at a past revision that no key of the leaf has changed since, is
 * then a slice of that array, about as cheap as slicing one sorted array. Leaves filled by
 * appends (ascending names) grow large (2,048) so that a typical page is one slice of one leaf;
 * a leaf that takes an insert in its middle splits beyond a quarter of that (512), since every
 * such insert shifts the rest of the leaf's three arrays: where names arrive in no order
 * (generated names) leaves stay small and inserts cheap, where they ascend leaves stay large and
 * pages cheap.
 *
 * Separators satisfy `keys(child i) < seps[i] <= keys(child i+1)`; removing a node's smallest
 * key leaves its separator valid, so removal only touches separators when nodes merge. Deletion
 * never borrows: an underfull node merges with a sibling when both fit in one node, which keeps
 * occupancy reasonable at a fraction of the code.
 * @module
 */
import type { Entry } from "../store.js";
import type { KeyRecord } from "./key-record.js";

/**
 * Node capacities. Large leaves make a 500-entry page usually one slice of one leaf (the
 * benchmark's list case); a test passes small ones to exercise many levels cheaply.
 */
export interface KeyIndexSizes {
  /** The most keys a leaf holds. */
  leafMax: number;
  /** The most children a branch holds. */
  branchMax: number;
  /**
   * The most keys a leaf keeps after an insert that is not an append past the greatest key;
   * a quarter of `leafMax` by default (at least 2).
   */
  insertLeafMax?: number;
}

const defaultSizes: KeyIndexSizes = { leafMax: 2048, branchMax: 64 };

/** A leaf: parallel arrays of keys, records and current entries, and the next leaf in key order. */
export class Leaf {
  next: Leaf | undefined = undefined;
  parent: Branch | undefined = undefined;
  constructor(
    readonly keys: string[],
    readonly recs: KeyRecord[],
    /** `recs[i].cur` for every i: undefined where the key is deleted but its history retained. */
    readonly ents: (Entry | undefined)[],
    /** How many of `ents` are defined. */
    public live: number,
    /** No record of this leaf has a version newer than this revision. */
    public maxRev: number,
  ) {
    for (const rec of recs) rec.leaf = this;
  }
}

class Branch {
  parent: Branch | undefined = undefined;
  constructor(
    readonly seps: string[],
    readonly children: Node[],
    /** How many live records are below this node. */
    public live: number,
  ) {
    for (const child of children) child.parent = this;
  }
}

type Node = Leaf | Branch;

/** The position of the first key satisfying a seek; `pos` may equal `leaf.keys.length`. */
export interface Cursor {
  leaf: Leaf;
  pos: number;
  /** How many live records come before the position. */
  rank: number;
}

/** First index whose element is >= key. */
export function lowerBound(a: readonly string[], key: string, from = 0): number {
  let lo = from;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose element is > key. */
export function upperBound(a: readonly string[], key: string, from = 0): number {
  let lo = from;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as string) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function countLive(ents: readonly (Entry | undefined)[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (ents[i] !== undefined) n++;
  return n;
}

function addLiveUp(node: Node, delta: number): void {
  for (let n: Node | undefined = node; n !== undefined; n = n.parent) n.live += delta;
}

/**
 * See the module comment. Nodes point to their parents and records to their leaves, so a write
 * to a key already indexed (update, delete, re-create) reaches its leaf and the counts above it
 * without comparing a single key; only inserting a new key searches, and appending past the
 * greatest key (ascending names) does not even do that.
 */
export class KeyIndex {
  readonly #leafMax: number;
  readonly #insertLeafMax: number;
  readonly #branchMax: number;
  readonly #leafMin: number;
  readonly #branchMin: number;

  #root: Node = new Leaf([], [], [], 0, 0);
  /** The rightmost leaf. */
  #last: Leaf = this.#root as Leaf;
  #size = 0;

  constructor(sizes: KeyIndexSizes = defaultSizes) {
    this.#leafMax = sizes.leafMax;
    this.#insertLeafMax = Math.min(sizes.leafMax, sizes.insertLeafMax ?? Math.max(2, sizes.leafMax >> 2));
    this.#branchMax = sizes.branchMax;
    // Merging stops well below the insert limit, so deletes do not undo the splits of inserts.
    this.#leafMin = this.#insertLeafMax >> 2;
    this.#branchMin = sizes.branchMax >> 2;
  }

  /** Number of records (live or not). */
  get size(): number {
    return this.#size;
  }

  /** Number of live records. */
  get live(): number {
    return this.#root.live;
  }

  /** Levels from the root to the leaves (1 for a lone leaf). */
  get height(): number {
    let h = 1;
    for (let node = this.#root; node instanceof Branch; node = node.children[0] as Node) h++;
    return h;
  }

  /** Inserts `rec` under its key, which must not be present; `revision` is the write's. */
  insert(rec: KeyRecord, revision: number): void {
    const key = rec.key;
    const entry = rec.cur;
    let leaf = this.#last;
    let pos = leaf.keys.length;
    const append = this.#size === 0 || (pos > 0 && key > (leaf.keys[pos - 1] as string));
    if (!append) {
      let node = this.#root;
      while (node instanceof Branch) node = node.children[upperBound(node.seps, key)] as Node;
      leaf = node;
      pos = lowerBound(leaf.keys, key);
    }
    if (pos === leaf.keys.length) {
      leaf.keys.push(key);
      leaf.recs.push(rec);
      leaf.ents.push(entry);
    } else {
      leaf.keys.splice(pos, 0, key);
      leaf.recs.splice(pos, 0, rec);
      leaf.ents.splice(pos, 0, entry);
    }
    rec.leaf = leaf;
    if (entry !== undefined) addLiveUp(leaf, 1);
    leaf.maxRev = revision;
    this.#size++;
    if (leaf.keys.length > (append ? this.#leafMax : this.#insertLeafMax)) {
      // Appending past the greatest key (ascending names) leaves the left node full, not half full.
      const [sep, right] = splitLeaf(leaf, append);
      this.#insertAfter(leaf, sep, right, append);
      this.#last = this.#rightmost();
    }
  }

  /** Hangs `right` (split off `child`, separated by `sep`) next to `child`, splitting upward. */
  #insertAfter(child: Node, sep: string, right: Node, packed: boolean): void {
    const parent = child.parent;
    if (parent === undefined) {
      this.#root = new Branch([sep], [child, right], child.live + right.live);
      return;
    }
    const i = parent.children.indexOf(child);
    parent.seps.splice(i, 0, sep);
    parent.children.splice(i + 1, 0, right);
    right.parent = parent;
    if (parent.children.length > this.#branchMax) {
      const [upSep, upRight] = splitBranch(parent, packed);
      this.#insertAfter(parent, upSep, upRight, packed);
    }
  }

  #rightmost(): Leaf {
    let node = this.#root;
    while (node instanceof Branch) node = node.children[node.children.length - 1] as Node;
    return node;
  }

  /**
   * Records that `rec` (indexed) now has current entry `rec.cur`, written at `revision`;
   * `liveDelta` is +1 when the key turned live, -1 when it turned dead, else 0.
   */
  set(rec: KeyRecord, liveDelta: number, revision: number): void {
    const leaf = rec.leaf as Leaf;
    leaf.ents[lowerBound(leaf.keys, rec.key)] = rec.cur;
    leaf.maxRev = revision;
    if (liveDelta !== 0) addLiveUp(leaf, liveDelta);
  }

  /** Removes `rec` (indexed). */
  remove(rec: KeyRecord): void {
    const leaf = rec.leaf as Leaf;
    const pos = lowerBound(leaf.keys, rec.key);
    const live = leaf.ents[pos] !== undefined;
    leaf.keys.splice(pos, 1);
    leaf.recs.splice(pos, 1);
    leaf.ents.splice(pos, 1);
    rec.leaf = undefined;
    if (live) addLiveUp(leaf, -1);
    this.#size--;

    // Merge underfull nodes upward while a sibling can absorb them.
    let node: Node = leaf;
    let merged = false;
    for (let parent = node.parent; parent !== undefined; parent = node.parent) {
      const underfull = node instanceof Leaf ? node.keys.length < this.#leafMin : node.children.length < this.#branchMin;
      if (!underfull || parent.children.length < 2) break;
      const i = parent.children.indexOf(node);
      if (!mergeChildren(parent, i > 0 ? i - 1 : i, { leafMax: this.#leafMax, branchMax: this.#branchMax })) break;
      merged = true;
      node = parent;
    }
    if (!merged) return;
    let root = this.#root;
    while (root instanceof Branch && root.children.length === 1) root = root.children[0] as Node;
    root.parent = undefined;
    this.#root = root;
    this.#last = this.#rightmost();
  }

  /** The first key `>= key` (or `> key` when `strict`), with the live rank of that position. */
  seek(key: string, strict: boolean): Cursor {
    let rank = 0;
    let node = this.#root;
    while (node instanceof Branch) {
      const i = upperBound(node.seps, key);
      const children = node.children;
      for (let c = 0; c < i; c++) rank += (children[c] as Node).live;
      node = children[i] as Node;
    }
    const pos = strict ? upperBound(node.keys, key) : lowerBound(node.keys, key);
    rank += node.live === node.keys.length ? pos : countLive(node.ents, 0, pos);
    return { leaf: node, pos, rank };
  }

  /** The first leaf, for a scan from the start. */
  first(): Leaf {
    let node = this.#root;
    while (node instanceof Branch) node = node.children[0] as Node;
    return node;
  }

  /** How many live records have a key `< key` (or `<= key` when `inclusive`). */
  liveBelow(key: string, inclusive: boolean): number {
    let count = 0;
    let node = this.#root;
    while (node instanceof Branch) {
      const i = upperBound(node.seps, key);
      const children = node.children;
      for (let c = 0; c < i; c++) count += (children[c] as Node).live;
      node = children[i] as Node;
    }
    const pos = inclusive ? upperBound(node.keys, key) : lowerBound(node.keys, key);
    if (node.live === node.keys.length) return count + pos;
    return count + countLive(node.ents, 0, pos);
  }

  /** How many live records have a key in `(after, end)`; `end` undefined means unbounded. */
  liveBetween(after: string, end: string | undefined): number {
    const upTo = end === undefined ? this.#root.live : this.liveBelow(end, false);
    return upTo - this.liveBelow(after, true);
  }

  /** Checks the structural invariants; for tests. Returns the keys in order. */
  check(): string[] {
    const keys: string[] = [];
    const visit = (node: Node, parent: Branch | undefined, lo: string | undefined, hi: string | undefined): number => {
      if (node.parent !== parent) throw new Error("wrong parent pointer");
      if (node instanceof Leaf) {
        if (node.keys.length !== node.recs.length || node.keys.length !== node.ents.length) throw new Error("leaf arrays differ in length");
        if (node.keys.length > this.#leafMax) throw new Error("leaf overflow");
        for (const [i, k] of node.keys.entries()) {
          if (lo !== undefined && k < lo) throw new Error(`key ${k} below separator ${lo}`);
          if (hi !== undefined && k >= hi) throw new Error(`key ${k} not below separator ${hi}`);
          const rec = node.recs[i] as KeyRecord;
          if (rec.key !== k) throw new Error("record under the wrong key");
          if (rec.leaf !== node) throw new Error(`wrong leaf pointer for ${k}`);
          if (rec.cur !== node.ents[i]) throw new Error(`stale entry for ${k}`);
          if (rec.rev > node.maxRev) throw new Error(`leaf maxRev ${node.maxRev} below ${rec.rev} of ${k}`);
          keys.push(k);
        }
        const live = countLive(node.ents, 0, node.ents.length);
        if (live !== node.live) throw new Error(`leaf live ${node.live} != ${live}`);
        return live;
      }
      if (node.seps.length !== node.children.length - 1) throw new Error("separator count");
      if (node.children.length > this.#branchMax) throw new Error("branch overflow");
      let live = 0;
      node.children.forEach((c, i) => {
        live += visit(c, node, i === 0 ? lo : node.seps[i - 1], i === node.seps.length ? hi : node.seps[i]);
      });
      if (live !== node.live) throw new Error(`branch live ${node.live} != ${live}`);
      return live;
    };
    visit(this.#root, undefined, undefined, undefined);
    for (let i = 1; i < keys.length; i++) if ((keys[i - 1] as string) >= (keys[i] as string)) throw new Error("keys out of order");
    const scanned: string[] = [];
    let lastLeaf: Leaf | undefined;
    for (let leaf: Leaf | undefined = this.first(); leaf; leaf = leaf.next) {
      scanned.push(...leaf.keys);
      lastLeaf = leaf;
    }
    if (lastLeaf !== this.#last) throw new Error("stale rightmost leaf");
    if (scanned.join("\0") !== keys.join("\0")) throw new Error("leaf chain disagrees with the tree");
    if (keys.length !== this.#size) throw new Error("size");
    return keys;
  }
}

function splitLeaf(leaf: Leaf, packed: boolean): [string, Leaf] {
  const mid = packed ? leaf.keys.length - 1 : leaf.keys.length >> 1;
  const keys = leaf.keys.splice(mid);
  const recs = leaf.recs.splice(mid);
  const ents = leaf.ents.splice(mid);
  const live = countLive(ents, 0, ents.length);
  const right = new Leaf(keys, recs, ents, live, leaf.maxRev);
  leaf.live -= live;
  right.next = leaf.next;
  leaf.next = right;
  return [keys[0] as string, right];
}

function splitBranch(branch: Branch, packed: boolean): [string, Branch] {
  const mid = packed ? branch.children.length - 1 : branch.children.length >> 1;
  const children = branch.children.splice(mid);
  const seps = branch.seps.splice(mid);
  const sep = branch.seps.pop() as string;
  let live = 0;
  for (const c of children) live += c.live;
  branch.live -= live;
  return [sep, new Branch(seps, children, live)];
}

/** Merges `parent.children[left + 1]` into `parent.children[left]` when the result fits. */
function mergeChildren(parent: Branch, left: number, sizes: KeyIndexSizes): boolean {
  const a = parent.children[left] as Node;
  const b = parent.children[left + 1] as Node;
  if (a instanceof Leaf) {
    const bl = b as Leaf;
    if (a.keys.length + bl.keys.length > sizes.leafMax) return false;
    for (let i = 0; i < bl.keys.length; i++) {
      const rec = bl.recs[i] as KeyRecord;
      a.keys.push(bl.keys[i] as string);
      a.recs.push(rec);
      a.ents.push(bl.ents[i]);
      rec.leaf = a;
    }
    a.live += bl.live;
    if (bl.maxRev > a.maxRev) a.maxRev = bl.maxRev;
    a.next = bl.next;
  } else {
    const bb = b as Branch;
    if (a.children.length + bb.children.length > sizes.branchMax) return false;
    a.seps.push(parent.seps[left] as string);
    for (const s of bb.seps) a.seps.push(s);
    for (const c of bb.children) {
      a.children.push(c);
      c.parent = a;
    }
    a.live += bb.live;
  }
  parent.seps.splice(left, 1);
  parent.children.splice(left + 1, 1);
  return true;
}
