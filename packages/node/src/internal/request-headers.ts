/**
 * The `Headers` of a request as the node adapter hands them to the server, read from Node's
 * `rawHeaders` only when they are: `get`, `has` and `forEach` read the raw name/value list, and
 * the first call that needs the whole set otherwise (an iterator, a change) copies it into the
 * `Headers` this object is. Most requests only ever ask for a few headers by name and have them
 * all visited once (the impersonation stage looks for `Impersonate-*` headers), and copying each
 * one into a validated `Headers` cost more than serving a GET.
 * @module
 */

/** Whether the raw header name `raw` is `lower` (already lower-case), ignoring case. */
function sameName(raw: string, lower: string): boolean {
  return raw.length === lower.length && (raw === lower || raw.toLowerCase() === lower);
}

/** A header name a `Headers` accepts (an HTTP token). */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Characters a `Headers` refuses in a value: NUL, CR, LF, and any above U+00FF (never in Node's Latin-1 header strings). */
const refused = /[\0\r\n\u0100-\uffff]/;

/** Whether the UTF-16 code unit `c` is whitespace a `Headers` strips from the ends of a value. */
function strippable(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/**
 * Whether a `Headers` keeps `value` as it is: none of the characters it refuses, and no leading
 * or trailing whitespace, which it would strip (Node's parser strips it already).
 */
function plainValue(value: string): boolean {
  const n = value.length;
  return n === 0 || (!strippable(value.charCodeAt(0)) && !strippable(value.charCodeAt(n - 1)) && !refused.test(value));
}

/**
 * The raw pairs as a `Headers` lists them, as a flat `[name, value, name, value, ...]` list, or
 * `undefined` when one of them is not as a `Headers` would keep it (never from Node's parser):
 * names lower-cased and sorted, repeated names joined with `, ` in the order they came, except
 * `set-cookie`, each of whose values is its own entry. A request has a handful of headers: a
 * linear search for repeats and an insertion sort cost less here than a `Map` and `Array.sort`.
 */
function sortedEntries(raw: readonly string[]): string[] | undefined {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    if (!token.test(name) || !plainValue(value)) return undefined;
    const lower = name.toLowerCase();
    let at = -1;
    if (lower !== "set-cookie") for (let j = 0; j < out.length; j += 2) if (out[j] === lower) at = j;
    if (at >= 0) {
      out[at + 1] = `${out[at + 1]!}, ${value}`;
      continue;
    }
    // Inserted after every name that sorts before it or is the same (so `set-cookie` entries
    // keep the order they came in): names are ASCII tokens, compared as a `Headers` compares them.
    let to = out.length;
    out.push(lower, value);
    for (; to > 0 && out[to - 2]! > lower; to -= 2) {
      out[to] = out[to - 2]!;
      out[to + 1] = out[to - 1]!;
    }
    out[to] = lower;
    out[to + 1] = value;
  }
  return out;
}

/**
 * A `Headers` over Node's `rawHeaders` (`[name, value, name, value, ...]`): the same answers as a
 * `Headers` filled by appending each pair (repeated names joined with `, `), and pairs a
 * `Headers` refuses are left out, as appending them would throw.
 */
export class RequestHeaders extends Headers {
  #raw: readonly string[] | undefined;

  /** Wraps `raw` (not copied: Node does not change it once the request is emitted). */
  constructor(raw: readonly string[]) {
    super();
    this.#raw = raw;
  }

  /** Copies the raw pairs into this `Headers` (once); from then on it is a plain `Headers`. */
  #filled(): this {
    const raw = this.#raw;
    if (raw === undefined) return this;
    this.#raw = undefined;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      try {
        super.append(raw[i]!, raw[i + 1]!);
      } catch {
        // A header Node's parser accepted but the Headers class does not: not ours to serve.
      }
    }
    return this;
  }

  override get(name: string): string | null {
    const raw = this.#raw;
    if (raw === undefined) return super.get(name);
    const lower = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (sameName(raw[i]!, lower)) value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
    }
    // A value the Headers class would refuse (never from Node's parser) is answered by it.
    return value !== null && /[\0\r\n]/.test(value) ? this.#filled().get(name) : value;
  }

  override has(name: string): boolean {
    const raw = this.#raw;
    if (raw === undefined) return super.has(name);
    const lower = name.toLowerCase();
    for (let i = 0; i + 1 < raw.length; i += 2) if (sameName(raw[i]!, lower)) return this.get(name) !== null;
    return false;
  }

  override append(name: string, value: string): void {
    this.#filled();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.#filled();
    super.set(name, value);
  }

  override delete(name: string): void {
    const raw = this.#raw;
    if (raw === undefined) return super.delete(name);
    // The pairs of other names are kept, still unread: the authentication stage deletes
    // `Authorization` from every authenticated request, which must not copy all the others.
    const lower = name.toLowerCase();
    let kept: string[] | undefined;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      if (sameName(raw[i]!, lower)) kept ??= raw.slice(0, i);
      else kept?.push(raw[i]!, raw[i + 1]!);
    }
    if (kept !== undefined) this.#raw = kept;
  }

  override getSetCookie(): string[] {
    return this.#filled() && super.getSetCookie();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    const raw = this.#raw;
    const entries = raw === undefined || typeof callback !== "function" ? undefined : sortedEntries(raw);
    if (entries === undefined) {
      this.#filled();
      super.forEach(callback, thisArg);
      return;
    }
    for (let i = 0; i < entries.length; i += 2) {
      callback.call(thisArg, entries[i + 1]!, entries[i]!, this);
      if (this.#raw === undefined) {
        // The callback changed the headers: a `Headers` visits the entries at the next positions
        // of its list as it is now, and so does this one from here on.
        for (let next = i / 2 + 1; ; next++) {
          const now = [...super.entries()][next];
          if (now === undefined) return;
          callback.call(thisArg, now[1], now[0], this);
        }
      }
    }
  }

  override entries(): HeadersIterator<[string, string]> {
    this.#filled();
    return super.entries();
  }

  override keys(): HeadersIterator<string> {
    this.#filled();
    return super.keys();
  }

  override values(): HeadersIterator<string> {
    this.#filled();
    return super.values();
  }

  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    this.#filled();
    return super[Symbol.iterator]();
  }
}
