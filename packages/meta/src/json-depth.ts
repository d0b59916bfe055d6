/**
 * Nesting limits of request bodies: the reference's JSON decoder refuses a document nested more
 * than 10000 levels deep; this server refuses one nested more than 1000 levels deep, before
 * anything walks the decoded value. JavaScript's own recursive walks (`JSON.stringify`,
 * `structuredClone`, and the server's copies, merges and validations) exhaust the stack at a few
 * thousand levels, so a limit of 10000 would let bodies through that end in a 500. No object of
 * the catalog nests anywhere near 1000 levels.
 * @module
 */
import { badRequest, type StatusError } from "./status-error.js";

/** The deepest nesting of arrays and objects a request body may have (a tenth of the reference's limit, see above). */
export const maxJSONDepth = 1000;

/** The 400 of a body nested deeper than {@link maxJSONDepth}; `what` names the decoder. */
export function depthExceeded(what = "json"): StatusError {
  return badRequest(`${what}: exceeded max depth of ${maxJSONDepth}`);
}

/**
 * How deep the arrays and objects of the JSON text `text` nest, counted without parsing (brackets
 * inside strings do not count); stops counting, and answers `limit + 1`, past `limit`. Linear in
 * the text, without allocation; a text shorter than `2 * limit` characters cannot exceed it and
 * is not scanned.
 */
export function jsonTextDepth(text: string, limit = maxJSONDepth): number {
  if (text.length <= 2 * limit) return 0;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * True when the arrays and objects of the decoded value `value` nest deeper than `limit`. Walks
 * iteratively (no recursion, so any depth is safe) and visits a value shared by several parents
 * (a YAML alias) once per depth it is reached at, at most.
 */
export function exceedsDepth(value: unknown, limit = maxJSONDepth): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  const seen = new Map<object, number>();
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (typeof node !== "object" || node === null) continue;
    if (depth > limit) return true;
    const before = seen.get(node);
    if (before !== undefined && before >= depth) continue;
    seen.set(node, depth);
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
