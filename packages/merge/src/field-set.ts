/**
 * `FieldSet`: a set of field paths stored as a trie, as the reference's `fieldpath.Set`. A node
 * holds the elements that are members themselves (`members`) and the subtrees under elements
 * (`children`); a path may be both a member and have members below it (a list entry owned as a
 * whole and through its fields).
 *
 * Sets are built with {@link FieldSet.insert} and then treated as values: the algebra
 * (`union`, `difference`, `intersection`) returns new sets and never changes its operands, so
 * decoded sets can be cached and shared.
 * @module
 */
import { compareElements, type FieldPathElements, type PathElement } from "./field-path.js";

/** A set of field paths (a trie of path elements). */
export class FieldSet {
  /** Elements at this level that are members of the set. */
  members: Set<PathElement> | undefined = undefined;
  /** Subtrees below elements at this level; never empty once built. */
  children: Map<PathElement, FieldSet> | undefined = undefined;

  /** A set holding `paths`. */
  static of(...paths: FieldPathElements[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Adds `path` (mutates: for building only). An empty path is ignored. */
  insert(path: FieldPathElements): this {
    if (path.length === 0) return this;
    if (path.length === 1) {
      this.addMember(path[0] as PathElement);
      return this;
    }
    let node = this.child(path[0] as PathElement);
    for (let i = 1; i < path.length - 1; i++) node = node.child(path[i] as PathElement);
    node.addMember(path[path.length - 1] as PathElement);
    return this;
  }

  /** Adds `element` as a member at this level (mutates: for building only). */
  addMember(element: PathElement): void {
    (this.members ??= new Set()).add(element);
  }

  /** The subtree under `element`, created when missing (mutates: for building only). */
  child(element: PathElement): FieldSet {
    const children = (this.children ??= new Map());
    let c = children.get(element);
    if (!c) {
      c = new FieldSet();
      children.set(element, c);
    }
    return c;
  }

  /** The subtree under `element`, if any. */
  get(element: PathElement): FieldSet | undefined {
    return this.children?.get(element);
  }

  /** Whether `element` is a member at this level. */
  hasMember(element: PathElement): boolean {
    return this.members?.has(element) ?? false;
  }

  /** Whether the set holds anything at or below `element` at this level. */
  touches(element: PathElement): boolean {
    return this.hasMember(element) || this.children?.has(element) === true;
  }

  /** Whether `path` is a member. */
  has(path: FieldPathElements): boolean {
    if (path.length === 0) return false;
    if (path.length === 1) return this.hasMember(path[0] as PathElement);
    let node = this.get(path[0] as PathElement);
    for (let i = 1; i < path.length - 1 && node; i++) node = node.get(path[i] as PathElement);
    return node?.hasMember(path[path.length - 1] as PathElement) ?? false;
  }

  /** Whether the set has no member. */
  isEmpty(): boolean {
    if (this.members && this.members.size > 0) return false;
    if (this.children) for (const c of this.children.values()) if (!c.isEmpty()) return false;
    return true;
  }

  /** The number of members. */
  get size(): number {
    let n = this.members?.size ?? 0;
    if (this.children) for (const c of this.children.values()) n += c.size;
    return n;
  }

  /** Every member path, in encoded order (fields, keys, values, indexes). */
  *leaves(prefix: PathElement[] = []): IterableIterator<FieldPathElements> {
    const elements = new Set<PathElement>([...(this.members ?? []), ...(this.children?.keys() ?? [])]);
    for (const e of [...elements].sort(compareElements)) {
      prefix.push(e);
      if (this.members?.has(e)) yield [...prefix];
      const c = this.children?.get(e);
      if (c) yield* c.leaves(prefix);
      prefix.pop();
    }
  }

  /**
   * The members of both sets. Subtrees `other` adds nothing to are shared with this set, and a
   * set that already holds all of `other` is returned as is.
   */
  union(other: FieldSet): FieldSet {
    if (this === other || other.isEmpty()) return this;
    if (this.isEmpty()) return other;
    let members = this.members;
    if (other.members) {
      for (const m of other.members) {
        if (members?.has(m)) continue;
        if (members === undefined || members === this.members) members = new Set(members);
        members.add(m);
      }
    }
    let children = this.children;
    if (other.children) {
      for (const [e, c] of other.children) {
        const mine = this.children?.get(e);
        const merged = mine ? mine.union(c) : c;
        if (merged === mine) continue;
        if (children === undefined || children === this.children) children = new Map(children);
        children.set(e, merged);
      }
    }
    if (members === this.members && children === this.children) return this;
    const out = new FieldSet();
    out.members = members;
    out.children = children;
    return out;
  }

  /**
   * The members of this set that are not members of `other` (subtrees are compared level by
   * level). Unchanged subtrees are shared with this set, and an unchanged set is returned as is.
   */
  difference(other: FieldSet): FieldSet {
    return this.#subtract(other, false);
  }

  /** The members of this set below none of the members of `other`: a member of `other` removes its whole subtree. */
  recursiveDifference(other: FieldSet): FieldSet {
    return this.#subtract(other, true);
  }

  #subtract(other: FieldSet, recursive: boolean): FieldSet {
    if (this === other) return new FieldSet();
    if (!other.members && !other.children) return this;
    let members = this.members;
    if (members && other.members) {
      for (const m of members) {
        if (other.members.has(m)) {
          // A new set of the members `other` lacks, built without intermediate arrays.
          const kept = new Set<PathElement>();
          for (const x of members) if (!other.members.has(x)) kept.add(x);
          members = kept;
          break;
        }
      }
    }
    let children = this.children;
    if (children && (other.children || (recursive && other.members))) {
      let copy: Map<PathElement, FieldSet> | undefined;
      for (const [e, c] of children) {
        let d: FieldSet | undefined = c;
        if (recursive && other.members?.has(e)) d = undefined;
        else {
          const theirs = other.children?.get(e);
          if (theirs) d = c.#subtract(theirs, recursive);
          if (d && d !== c && d.isEmpty()) d = undefined;
        }
        if (d === c) continue;
        copy ??= new Map(children);
        if (d) copy.set(e, d);
        else copy.delete(e);
      }
      if (copy) children = copy;
    }
    if (members === this.members && children === this.children) return this;
    const out = new FieldSet();
    if (members && members.size) out.members = members;
    if (children && children.size) out.children = children;
    return out;
  }

  /** The members of both this set and `other`. */
  intersection(other: FieldSet): FieldSet {
    if (this === other) return this;
    const out = new FieldSet();
    if (this.members && other.members) {
      const [small, large] = this.members.size <= other.members.size ? [this.members, other.members] : [other.members, this.members];
      for (const m of small) if (large.has(m)) out.addMember(m);
    }
    if (this.children && other.children) {
      const [small, large] = this.children.size <= other.children.size ? [this.children, other.children] : [other.children, this.children];
      for (const [e, c] of small) {
        const theirs = large.get(e);
        if (!theirs) continue;
        const i = c.intersection(theirs);
        if (!i.isEmpty()) (out.children ??= new Map()).set(e, i);
      }
    }
    return out;
  }

  /** Whether both sets hold the same members. */
  equals(other: FieldSet): boolean {
    if (this === other) return true;
    const a = this.members;
    const b = other.members;
    if ((a?.size ?? 0) !== (b?.size ?? 0)) return false;
    if (a && b) for (const m of a) if (!b.has(m)) return false;
    let n = 0;
    if (this.children) {
      for (const [e, c] of this.children) {
        const t = other.children?.get(e);
        if (t) {
          if (!c.equals(t)) return false;
          n++;
        } else if (!c.isEmpty()) return false;
      }
    }
    if (other.children && other.children.size !== n) {
      for (const [e, c] of other.children) if (!this.children?.has(e) && !c.isEmpty()) return false;
    }
    return true;
  }
}
