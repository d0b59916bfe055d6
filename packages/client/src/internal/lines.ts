/** Splits a stream of text chunks into lines, dropping empty ones and the `\n` terminators. */
export async function* splitLines(chunks: AsyncIterable<string>): AsyncGenerator<string, void, undefined> {
  let pending = "";
  for await (const chunk of chunks) {
    pending += chunk;
    let nl = pending.indexOf("\n");
    while (nl >= 0) {
      const line = pending.slice(0, nl).replace(/\r$/, "");
      pending = pending.slice(nl + 1);
      if (line.trim() !== "") yield line;
      nl = pending.indexOf("\n");
    }
  }
  if (pending.trim() !== "") yield pending;
}

/**
 * Iterates `source` until it ends or `signal` aborts. On abort the pending `next()` is abandoned
 * and the source is asked to `return()` without waiting (an async generator blocked in an
 * `await` would only return once that await settles).
 */
export async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  if (!signal) {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      void iterator.return?.()?.catch(() => undefined);
    }
  }
  if (signal.aborted) {
    void iterator.return?.()?.catch(() => undefined);
    return;
  }
  let onAbort: () => void = () => undefined;
  try {
    for (;;) {
      const next = iterator.next();
      // The abandoned next() may reject later (an aborted fetch): keep that from being unhandled.
      next.catch(() => undefined);
      // One abort listener per step, removed once the step settles. (A race against one promise
      // that settles only on abort would leave a reaction on it per step, each holding its
      // result: a watch stream would keep every line it ever read.)
      const result = await new Promise<IteratorResult<T> | "aborted">((resolve, reject) => {
        onAbort = () => resolve("aborted");
        signal.addEventListener("abort", onAbort, { once: true });
        next.then(resolve, reject);
      }).finally(() => signal.removeEventListener("abort", onAbort));
      if (result === "aborted") return;
      if (result.done) return;
      yield result.value;
    }
  } catch (error) {
    if (signal.aborted) return;
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    void iterator.return?.()?.catch(() => undefined);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Text of UTF-8 `bytes`. */
export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
