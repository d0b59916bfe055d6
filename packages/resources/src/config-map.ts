/**
 * ConfigMap (core `v1`, namespaced, short name `cm`): string `data` and base64 `binaryData`
 * under config keys, 1 MiB in total, frozen once `immutable` is true.
 * @module
 */
import { utf8ByteLength as utf8Length, FieldPath, invalidField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { base64ByteLength } from "./internal/base64.js";
import { maxDataBytes, record, validateConfigKeys, validateImmutableData } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { bytes, stringMap } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a ConfigMap in `v1`. */
export const configMapV1Schema = kindSchema(
  {
    binaryData: z.record(z.string(), bytes()).optional().describe("Binary data, base64 in JSON; keys as in data, none in both."),
    data: stringMap().optional().describe("Configuration data; keys of alphanumerics, '-', '_' or '.'."),
    immutable: z.boolean().optional().describe("If true, data and binaryData cannot be changed (only metadata can)."),
  },
  "ConfigMap holds configuration data for pods to consume.",
);

/**
 * The ConfigMap rules beyond metadata (pair with `validateObjectMeta`): config keys in `data`
 * and `binaryData`, no key in both, at most 1 MiB together (an error on the whole object,
 * `Too long: must have at most 1048576 bytes`, as the reference reports it).
 */
export function validateConfigMap(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  // Decoded objects hold only strings in these maps; read them in place, without copies.
  const data = (record(object["data"]) ?? {}) as Readonly<Record<string, string>>;
  const binary = (record(object["binaryData"]) ?? {}) as Readonly<Record<string, string>>;
  const dataPath = FieldPath.root("data");
  errors.push(...validateConfigKeys(data, dataPath));
  let units = 0;
  for (const key in data) {
    if (Object.hasOwn(binary, key)) errors.push(invalidField(dataPath.key(key), key, "duplicate of key present in binaryData"));
    units += (data[key] as string).length;
  }
  errors.push(...validateConfigKeys(binary, FieldPath.root("binaryData")));
  let binaryBytes = 0;
  for (const key in binary) binaryBytes += base64ByteLength(binary[key] as string);
  // A UTF-16 unit is 1 to 3 bytes of UTF-8 (a surrogate pair 4 for 2 units): the lengths decide
  // unless the text is near the limit, and only then are the bytes counted.
  let total = binaryBytes + units;
  if (total <= maxDataBytes && binaryBytes + units * 3 > maxDataBytes) {
    total = binaryBytes;
    for (const key in data) total += utf8Length(data[key] as string);
  }
  if (total > maxDataBytes) {
    // As the reference: the error is on the whole object (empty path) and shows no value.
    errors.push({ type: "FieldValueTooLong", field: "", detail: `must have at most ${maxDataBytes} bytes` });
  }
  return errors;
}

/**
 * The ConfigMap rules of an update beyond those of a create: once `immutable` is true it stays
 * true and `data`/`binaryData` cannot change (`field is immutable when \`immutable\` is set`).
 */
export function validateConfigMapUpdate(object: APIObject, old: APIObject): FieldError[] {
  return validateImmutableData(object, old, ["data", "binaryData"]);
}

/** The ConfigMap resource type. */
export const configMapType: ResourceType = {
  group: "",
  resource: "configmaps",
  singular: "configmap",
  kind: "ConfigMap",
  shortNames: ["cm"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: configMapV1Schema, storage: true }],
  strategy: {
    validate: (object) => validateConfigMap(object),
    validateUpdate: (object, old) => validateConfigMapUpdate(object, old),
    tableColumns: [
      {
        name: "Data",
        type: "integer",
        description: "Number of data entries (data plus binaryData).",
        priority: 0,
        cell: (object) => Object.keys(record(object["data"]) ?? {}).length + Object.keys(record(object["binaryData"]) ?? {}).length,
      },
    ],
  },
};
