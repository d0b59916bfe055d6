/**
 * Field schemas shared by the kinds: Go integer widths, RFC 3339 times and micro-times, base64
 * bytes, and the OpenAPI component names of named sub-schemas. Each one checks JSON types and
 * formats only (a wrong one is a 400 at decode, as in the reference); rules belong to validation.
 * @module
 */
import { listType, normalizeMicroTime, normalizeTime, parseQuantity, type Quantity } from "@orch/meta";
import { z } from "zod";
import { checkBase64 } from "../internal/base64.js";

/** A 32-bit signed integer (Go `int32`); OpenAPI `integer`/`int32`. */
export function int32(): z.ZodType<number> {
  return z.int32().meta({ format: "int32" });
}

/** An optional string field with its description (`z.string().optional().describe(...)`). */
export function optionalString(description: string): z.ZodOptional<z.ZodString> {
  return z.string().optional().describe(description);
}

/** An optional boolean field with its description. */
export function optionalBoolean(description: string): z.ZodOptional<z.ZodBoolean> {
  return z.boolean().optional().describe(description);
}

/** A list of strings replaced as a whole (`x-orch-list-type: atomic`), with a description if given. */
export function atomicStrings(description?: string): z.ZodArray<z.ZodString> {
  const strings = listType(z.array(z.string()), "atomic");
  return description === undefined ? strings : strings.describe(description);
}

/** A 64-bit signed integer (Go `int64`, within JavaScript's safe range); OpenAPI `integer`/`int64`. */
export function int64(): z.ZodType<number> {
  return z.int().meta({ format: "int64" });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * An RFC 3339 time (`metav1.Time`), rewritten on decode to UTC with whole seconds
 * (`2026-11-21T20:49:14Z`); OpenAPI `string`/`date-time`.
 */
export function time(): z.ZodType<string, string> {
  return z
    .string()
    .transform((text, ctx) => {
      try {
        return normalizeTime(text);
      } catch (error) {
        ctx.issues.push({ code: "custom", message: errorMessage(error), input: text });
        return z.NEVER;
      }
    })
    .meta({ format: "date-time" });
}

/**
 * An RFC 3339 micro-time (`metav1.MicroTime`, Lease and Event times), rewritten on decode to UTC
 * with six fraction digits (`2026-11-21T20:49:14.123456Z`); OpenAPI `string`/`date-time`.
 */
export function microTime(): z.ZodType<string, string> {
  return z
    .string()
    .transform((text, ctx) => {
      try {
        return normalizeMicroTime(text);
      } catch (error) {
        ctx.issues.push({ code: "custom", message: errorMessage(error), input: text });
        return z.NEVER;
      }
    })
    .meta({ format: "date-time" });
}

/**
 * Bytes as JSON carries them (Go `[]byte`): padded standard base64, line breaks dropped on
 * decode; invalid base64 fails with `illegal base64 data at input byte N`. OpenAPI
 * `string`/`byte`.
 */
export function bytes(): z.ZodType<string, string> {
  return z
    .string()
    .transform((text, ctx) => {
      const check = checkBase64(text);
      if (!check.ok) {
        ctx.issues.push({ code: "custom", message: check.message, input: text });
        return z.NEVER;
      }
      return check.canonical;
    })
    .meta({ format: "byte" });
}

// A record that checks its input in place and passes it on as it is when every value decodes to
// itself (the common case: strings, canonical quantities); the copy a record makes would buy
// nothing, and labels, annotations, ConfigMap data and resource lists are in nearly every body.
// It is a record for everything else (JSON Schema, OpenAPI, clones). A changed value, an issue,
// an async value, a frozen map or a `__proto__` key takes the record's own copying path.
const ZodInPlaceRecord = z.core.$constructor("ZodInPlaceRecord", (inst: z.ZodRecord, def: z.core.$ZodRecordDef) => {
  z.ZodRecord.init(inst, def);
  const copying = inst._zod.parse;
  const values = def.valueType._zod;
  inst._zod.parse = (payload, ctx) => {
    const input = payload.value;
    // A frozen map (a stored value passed through a patch) is copied: strategies may edit the result.
    if (typeof input !== "object" || input === null || Object.getPrototypeOf(input) !== Object.prototype || Object.isFrozen(input)) {
      return copying(payload, ctx);
    }
    for (const key in input) {
      const value = (input as Record<string, unknown>)[key];
      if (key === "__proto__") return copying(payload, ctx);
      const result = values.run({ value, issues: [] }, ctx);
      if (result instanceof Promise || result.issues.length > 0 || result.value !== value) return copying(payload, ctx);
    }
    return payload;
  };
});

/**
 * A map from strings to `values` (Go `map[string]T`), as `z.record(z.string(), values)`, but
 * decoding keeps the input map when every value decodes to itself instead of copying it.
 */
export function mapOf<T extends z.ZodType>(values: T): z.ZodRecord<z.ZodString, T> {
  return new ZodInPlaceRecord({ type: "record", keyType: z.string(), valueType: values }) as unknown as z.ZodRecord<z.ZodString, T>;
}

/** A map of strings (Go `map[string]string`), merged per key. Decoding keeps the input map. */
export function stringMap(): z.ZodType<Record<string, string>> {
  return mapOf(z.string());
}

const componentNames = new WeakMap<object, string>();

/**
 * Names `schema` as an OpenAPI component (it is then a `$ref` in the documents instead of being
 * inlined); `name` is the reference's name without its reverse-domain prefix
 * (`api.core.v1.NamespaceSpec`, `apimachinery.pkg.apis.meta.v1.ObjectMeta`). The name belongs
 * to this very instance, not to copies (`.describe()` on the schema itself makes an unnamed copy:
 * describe the `.optional()` wrapper instead). Returns `schema`.
 */
export function named<T extends z.ZodType>(schema: T, name: string): T {
  componentNames.set(schema, name);
  return schema;
}

/** The component name given by {@link named} to exactly this schema, if any. */
export function componentNameOf(schema: z.core.$ZodType): string | undefined {
  return componentNames.get(schema);
}

// A quantity is a union of string and number to JSON Schema and OpenAPI, decoded in one step
// (no union, pipe and transform runs for each of the many quantities of a pod).
const ZodQuantity = z.core.$constructor("ZodQuantity", (inst: z.ZodUnion, def: z.core.$ZodUnionDef) => {
  z.ZodUnion.init(inst, def);
  inst._zod.parse = (payload) => {
    const value = payload.value;
    if (typeof value !== "string" && typeof value !== "number") {
      payload.issues.push({ code: "invalid_type", expected: "string", input: value, inst });
      return payload;
    }
    try {
      payload.value = parseQuantity(String(value)).toString();
    } catch (error) {
      payload.issues.push({ code: "custom", message: error instanceof Error ? error.message : String(error), input: value, inst });
    }
    return payload;
  };
});

/**
 * A quantity (`resource.Quantity`): a string such as `10Gi` or `500m`, or a JSON number, decoded
 * to its canonical string; a malformed one fails decoding with the quantity grammar's message.
 */
export function quantity(): z.ZodType<string, string | number> {
  const union = new ZodQuantity({ type: "union", options: [z.string(), z.number()] }) as unknown as z.ZodType<string, string | number>;
  return union.meta({ format: "int-or-string" });
}

/** The quantity at `value`, or `undefined` when it is absent or malformed. */
export function quantityOf(value: unknown): Quantity | undefined {
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  try {
    return parseQuantity(String(value));
  } catch {
    return undefined;
  }
}

/** A `ResourceList` (Go `map[ResourceName]resource.Quantity`): resource names to quantities. */
export function resourceList(): z.ZodType<Record<string, string>, Record<string, string | number>> {
  return mapOf(quantity());
}
