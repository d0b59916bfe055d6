import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sparseObjectParse } from "./sparse-objects.js";

// Two instances of one schema: zod's own parse, and the sparse one.
function schema() {
  const item = z.object({ name: z.string(), port: z.int32().optional(), protocol: z.enum(["TCP", "UDP"]).optional(), extra: z.string().optional() });
  const inner = z.object({
    a: z.string().optional(),
    b: z.number().optional(),
    c: z.boolean().optional(),
    d: z.string().optional(),
    e: z.string().optional(),
    f: z.string().optional(),
  });
  return z.object({
    kind: z.string().optional(),
    name: z.string(),
    items: z.array(item).optional(),
    inner: inner.optional(),
    map: z.record(z.string(), inner).optional(),
    t1: z.string().optional(),
    t2: z.string().optional(),
    t3: z.string().optional(),
    t4: z.string().optional(),
    t5: z.string().optional(),
  });
}

const value = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom("TCP", "UDP"));
const object = (keys: string[]) =>
  fc.dictionary(fc.constantFrom(...keys), fc.oneof(value, fc.dictionary(fc.constantFrom("a", "b", "c", "zz"), value, { maxKeys: 3 })), { maxKeys: 5 });
const body = fc.record(
  {
    kind: value,
    name: value,
    items: fc.array(object(["name", "port", "protocol", "extra", "bogus"]), { maxLength: 3 }),
    inner: object(["a", "b", "c", "d", "e", "f", "bogus"]),
    map: fc.dictionary(fc.string({ maxLength: 2 }), object(["a", "b", "c"]), { maxKeys: 2 }),
    t3: value,
    bogus: value,
  },
  { requiredKeys: [] },
);

describe("sparseObjectParse", () => {
  it("parses exactly as zod does: the same data in the same key order, the same issues", () => {
    const dense = schema();
    const sparse = schema();
    sparseObjectParse(sparse);
    fc.assert(
      fc.property(body, (input) => {
        const a = dense.safeParse(input);
        const b = sparse.safeParse(input);
        expect(b.success).toBe(a.success);
        if (a.success && b.success) expect(JSON.stringify(b.data)).toBe(JSON.stringify(a.data));
        else expect(b.error?.issues.map((i) => [i.code, i.path.join(".")])).toEqual(a.error?.issues.map((i) => [i.code, i.path.join(".")]));
      }),
      { numRuns: 2000 },
    );
  });

  it("leaves a schema it patched once alone the second time", () => {
    const s = schema();
    sparseObjectParse(s);
    const parse = (s as unknown as { _zod: { parse: unknown } })._zod.parse;
    sparseObjectParse(s);
    expect((s as unknown as { _zod: { parse: unknown } })._zod.parse).toBe(parse);
  });
});
