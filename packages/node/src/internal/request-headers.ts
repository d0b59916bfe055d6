/**
 * The `Headers` of a request as the node adapter hands them to the server, read from Node's
 * `rawHeaders` only when they are: `get` and `has` scan the raw name/value list, and the first
 * call that needs the whole set (iteration, a change) copies it into the `Headers` this object
 * is. Most requests only ever ask for a few headers by name, and copying each one into a
 * validated `Headers` cost more than serving a GET.
 * @module
 */

/** Whether the raw header name `raw` is `lower` (already lower-case), ignoring case. */
function sameName(raw: string, lower: string): boolean {
  return raw.length === lower.length && (raw === lower || raw.toLowerCase() === lower);
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
    // Deleting a header the request does not have changes nothing (the authentication stage
    // deletes `Authorization` from every authenticated request).
    if (this.#raw !== undefined && !this.has(name)) return;
    this.#filled();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    return this.#filled() && super.getSetCookie();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#filled();
    super.forEach(callback, thisArg);
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
