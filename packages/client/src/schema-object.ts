/**
 * {@link SchemaObject}: the TypeScript type of a kind, derived from its zod schema in
 * `@orch/resources` at the type level only (no schema is loaded at run time).
 * @module
 */
import type { APIObject, ObjectMeta } from "@orch/meta";

/** The output type of a zod (v4) schema, read from its `_zod.output` type member, as `z.output` does. */
export type SchemaOutput<S> = S extends { _zod: { output: infer O } } ? O : never;

/**
 * The object type of a kind from its schema, with `metadata` as `@orch/meta`'s `ObjectMeta`
 * (required, as on every object the server returns).
 *
 * @example
 * import type { configMapV1Schema } from "@orch/resources";
 * type ConfigMap = SchemaObject<typeof configMapV1Schema>;
 * const cms = client.resource<ConfigMap>(configMapsRef);
 */
export type SchemaObject<S> = Omit<SchemaOutput<S>, "metadata"> & APIObject & { metadata: ObjectMeta };
