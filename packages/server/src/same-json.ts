/**
 * Equality of JSON values as their text: what `JSON.stringify(a) === JSON.stringify(b)` says
 * (members in the same order, `undefined` members left out), without serialising either. The
 * server compares every update with the stored object (a no-op writes nothing) and the spec of
 * both (generation), so this runs on every write.
 * @module
 */

type Members = Record<string, unknown>;

/** Whether the member `key` of `m` is left out of its JSON (undefined, or skipped); a function, not a closure per call. */
function absent(m: Members, key: string, skip: ReadonlySet<string> | undefined): boolean {
  return m[key] === undefined || (skip !== undefined && skip.has(key));
}

/**
 * True when `a` and `b` serialise to the same JSON text. With `skip`, top-level members of those
 * names are left out of the comparison (the spec without `metadata` and `status`).
 */
export function sameJSON(a: unknown, b: unknown, skip?: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJSON(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ma = a as Members;
  const mb = b as Members;
  const ka = Object.keys(ma);
  const kb = Object.keys(mb);
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < ka.length && absent(ma, ka[i] as string, skip)) i++;
    while (j < kb.length && absent(mb, kb[j] as string, skip)) j++;
    if (i === ka.length || j === kb.length) return i === ka.length && j === kb.length;
    const key = ka[i] as string;
    if (key !== kb[j] || !sameJSON(ma[key], mb[key])) return false;
    i++;
    j++;
  }
}
