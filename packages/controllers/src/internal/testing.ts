/**
 * Test helpers: polling until a condition holds.
 * @module
 */

/** Polls `cond` (on real timers) until it holds, for at most `ms`; false when it never did. */
export async function eventually(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
}
