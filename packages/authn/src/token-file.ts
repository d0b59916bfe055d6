/**
 * Static bearer tokens from a CSV token file (the reference's `token/tokenfile`, behind
 * `--token-auth-file`).
 * @module
 */
import type { AuthenticationResult, TokenAuthenticator } from "./authenticator.js";
import type { UserInfo } from "./user.js";

/**
 * A {@link TokenAuthenticator} over a fixed set of tokens: a known token is its user, any other
 * token is no opinion (`undefined`). Static tokens carry no audience. Build it with
 * {@link parseTokenFile}.
 */
export class StaticTokenAuthenticator implements TokenAuthenticator {
  readonly #tokens: ReadonlyMap<string, UserInfo>;
  /** What the file had that a reader should be told of (duplicate tokens), one message each, naming lines, never tokens. */
  readonly warnings: readonly string[];

  /** @param tokens the users by token; copied. */
  constructor(tokens: ReadonlyMap<string, UserInfo>, warnings: readonly string[] = []) {
    this.#tokens = new Map(tokens);
    this.warnings = [...warnings];
  }

  /** How many distinct tokens there are. */
  get size(): number {
    return this.#tokens.size;
  }

  /** The user of `token` (a fresh copy), or `undefined` when the token is not one of the file's. */
  authenticateToken(token: string): Promise<AuthenticationResult> {
    const user = this.#tokens.get(token);
    if (!user) return Promise.resolve(undefined);
    const copy: UserInfo = { name: user.name, groups: [...user.groups] };
    if (user.uid !== undefined) copy.uid = user.uid;
    return Promise.resolve({ user: copy });
  }
}

/**
 * Parses a token file: CSV (RFC 4180: double-quoted fields, `""` for a quote inside one, quoted
 * fields may span lines; leading white space of a field is ignored, as Go's `TrimLeadingSpace`)
 * whose records are `token,user,uid[,"group1,group2,..."]`, further fields ignored; blank
 * lines are skipped. The uid is omitted when empty; groups are split on commas, trimmed, empties
 * dropped. When a token appears twice the later record wins and a warning is recorded.
 * @throws Error naming the line (`token file line 3: ...`) for a record with fewer than 3
 *   fields, an empty token or user name, or malformed quoting. Messages never contain a token.
 */
export function parseTokenFile(text: string): StaticTokenAuthenticator {
  const tokens = new Map<string, UserInfo>();
  const lines = new Map<string, number>();
  const warnings: string[] = [];
  for (const { line, fields } of readCsv(text)) {
    const [token = "", name = "", uid = "", groups] = fields;
    if (fields.length < 3) throw new Error(`token file line ${line}: expected at least 3 fields (token, user name, uid), found ${fields.length}`);
    if (token === "") throw new Error(`token file line ${line}: empty token`);
    if (name === "") throw new Error(`token file line ${line}: empty user name`);
    const user: UserInfo = { name, groups: splitGroups(groups) };
    if (uid !== "") user.uid = uid;
    const earlier = lines.get(token);
    if (earlier !== undefined) warnings.push(`token file line ${line}: duplicate token (also on line ${earlier}); this later record wins`);
    tokens.set(token, user);
    lines.set(token, line);
  }
  return new StaticTokenAuthenticator(tokens, warnings);
}

function splitGroups(groups: string | undefined): string[] {
  if (groups === undefined) return [];
  return groups
    .split(",")
    .map((group) => group.trim())
    .filter((group) => group !== "");
}

/** One CSV record and the line it starts on (1-based). */
interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * The records of a CSV text, as Go's `encoding/csv` reads them with `TrimLeadingSpace` and
 * `FieldsPerRecord = -1`: `\n` or `\r\n` ends a record outside quotes (a quoted `\r\n` becomes
 * `\n`); white-space-only lines are skipped; a quote inside an unquoted field, or anything but a
 * comma or line end after a closing quote, is an error.
 */
function readCsv(text: string): CsvRecord[] {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const length = source.length;
  const records: CsvRecord[] = [];
  let pos = 0;
  let line = 1;
  const fail = (at: number, message: string): never => {
    throw new Error(`token file line ${at}: ${message}`);
  };
  /** Whether `at` ends a line: `\n`, `\r\n`, a `\r` right before the end, or the end. */
  const lineEndAt = (at: number): boolean => {
    const c = source[at];
    return c === undefined || c === "\n" || (c === "\r" && (source[at + 1] === "\n" || at + 1 === length));
  };
  /** Moves past the line end at `pos`. */
  const skipLineEnd = (): void => {
    if (source[pos] === "\r") pos++;
    if (source[pos] === "\n") pos++;
    line++;
  };

  while (pos < length) {
    const newline = source.indexOf("\n", pos);
    const physicalEnd = newline < 0 ? length : newline;
    if (source.slice(pos, physicalEnd).trim() === "") {
      pos = physicalEnd;
      skipLineEnd();
      continue;
    }
    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      while (!lineEndAt(pos) && /\s/.test(source[pos] as string)) pos++;
      if (source[pos] === '"') {
        const opened = line;
        pos++;
        let value = "";
        for (;;) {
          const quote = source.indexOf('"', pos);
          if (quote < 0) fail(opened, "quoted field is not closed");
          const chunk = source.slice(pos, quote);
          line += chunk.split("\n").length - 1;
          value += chunk.replace(/\r\n/g, "\n");
          pos = quote + 1;
          if (source[pos] === '"') {
            value += '"';
            pos++;
            continue;
          }
          break;
        }
        record.fields.push(value);
        if (source[pos] === ",") {
          pos++;
          continue;
        }
        if (lineEndAt(pos)) break;
        fail(line, 'extraneous or missing " in quoted field');
      } else {
        let end = pos;
        while (!lineEndAt(end) && source[end] !== ",") end++;
        const value = source.slice(pos, end);
        if (value.includes('"')) fail(line, 'bare " in non-quoted field');
        record.fields.push(value);
        pos = end;
        if (source[pos] === ",") {
          pos++;
          continue;
        }
        break;
      }
    }
    records.push(record);
    if (pos < length) skipLineEnd();
  }
  return records;
}
