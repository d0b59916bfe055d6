/**
 * A small scanner over raw JSON text that reports object keys given twice, with their paths
 * (`metadata.name`, `spec.items[0].name`). It never throws: on malformed JSON it stops and
 * returns what it found (the parser reports the syntax error).
 * @module
 */

class Stop extends Error {}

/** The paths of every key that occurs more than once in its object, in document order. */
export function scanDuplicateKeys(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const str = (): string => {
    if (text[i] !== '"') throw new Stop();
    const start = i;
    i++;
    let simple = true;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") {
        simple = false;
        i += 2;
      } else i++;
    }
    if (i >= text.length) throw new Stop();
    i++;
    const raw = text.slice(start, i);
    if (simple) return raw.slice(1, -1);
    try {
      return JSON.parse(raw) as string;
    } catch {
      throw new Stop();
    }
  };
  const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);
  const value = (path: string, depth: number): void => {
    if (depth > 1000) throw new Stop();
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const keyPath = join(path, key);
        if (seen.has(key)) found.push(keyPath);
        else seen.add(key);
        ws();
        if (text[i] !== ":") throw new Stop();
        i++;
        value(keyPath, depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return;
        }
        throw new Stop();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`, depth + 1);
        ws();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return;
        }
        throw new Stop();
      }
    }
    if (c === '"') {
      str();
      return;
    }
    const start = i;
    while (i < text.length && /[-+.\w]/.test(text.charAt(i))) i++;
    if (i === start) throw new Stop();
  };
  try {
    value("", 0);
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
  }
  return found;
}
