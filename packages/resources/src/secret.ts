/**
 * Secret (core `v1`, namespaced, no short name): base64 `data` under config keys (1 MiB in
 * total), write-only `stringData` merged into `data`, a `type` (default `Opaque`, immutable)
 * with per-type required keys, and `immutable` as in ConfigMap.
 * @module
 */
import { FieldPath, invalidField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { bootstrapTokenSecretType, validateBootstrapTokenData } from "./bootstrap-token-secret.js";
import { base64ByteLength, decodeBase64, encodeBase64Text } from "./internal/base64.js";
import { jsonEqual, maxDataBytes, record, str, stringRecord, validateConfigKeys, validateImmutableData } from "./internal/rules.js";
import type { ResourceType, StrategyContext } from "./resource-type.js";
import { secretTypes } from "./secret-types.js";
import { serviceAccountClaimKey } from "./token-request.js";
import { bytes, stringMap } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a Secret in `v1`. */
export const secretV1Schema = kindSchema(
  {
    data: z.record(z.string(), bytes()).optional().describe("Secret data, base64 in JSON; keys of alphanumerics, '-', '_' or '.'."),
    immutable: z.boolean().optional().describe("If true, data cannot be changed (only metadata can)."),
    stringData: stringMap().optional().describe("Write-only: merged into data on write, overriding it; never returned."),
    type: z.string().optional().describe("Used to facilitate programmatic handling of secret data; default Opaque."),
  },
  "Secret holds secret data of a certain type.",
);

/**
 * Moves `stringData` into `data` (each value base64 of its UTF-8 bytes, overriding `data`) and
 * removes `stringData`, as the reference's conversion does on every write. Idempotent.
 */
export function mergeStringData(object: APIObject): void {
  const stringData = record(object["stringData"]);
  if (stringData !== undefined) {
    const data = { ...(record(object["data"]) ?? {}) };
    for (const [key, value] of Object.entries(stringData)) if (typeof value === "string") data[key] = encodeBase64Text(value);
    object["data"] = data;
  }
  delete object["stringData"];
}

function validDockerJSON(value: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(decodeBase64(value)));
    if (record(parsed) === undefined)
      return `json: cannot unmarshal ${Array.isArray(parsed) ? "array" : typeof parsed} into Go value of type map[string]interface {}`;
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * The Secret rules beyond metadata (pair with `validateObjectMeta`): config keys in `data`, at
 * most 1 MiB decoded (`data: Too long: must have at most 1048576 bytes`), and the keys each
 * type requires (`<domain>/service-account-token`: annotation `<domain>/service-account.name`;
 * `<domain>/dockercfg`/`dockerconfigjson`: a JSON object under `.dockercfg`/`.dockerconfigjson`;
 * `<domain>/basic-auth`: `username` or `password`; `<domain>/ssh-auth`: `ssh-privatekey`;
 * `<domain>/tls`: `tls.crt` and `tls.key`); the `data` of a Secret of the bootstrap token type
 * (`bootstrap.orch.io/token`, `bootstrap.kubernetes.io/token` under `k8s.io`) follows
 * {@link validateBootstrapTokenData}. The strategy runs this after `stringData` is merged into
 * `data` (its `defaults` and `prepareFor*` do that), so keys given as `stringData` are checked
 * and reported under `data[...]`.
 */
export function validateSecret(object: APIObject, ctx?: Pick<StrategyContext, "domain">): FieldError[] {
  const domain = ctx?.domain ?? "orch.io";
  // Type and annotation names carry the label domain: `kubernetes.io/tls` on a k8s.io server.
  const labelDomain = serviceAccountClaimKey(domain);
  const types = secretTypes(labelDomain);
  const errors: FieldError[] = [];
  const data = stringRecord(object["data"]);
  const dataPath = FieldPath.root("data");
  errors.push(...validateConfigKeys(data, dataPath));
  let total = 0;
  for (const value of Object.values(data)) total += base64ByteLength(value);
  if (total > maxDataBytes) errors.push({ type: "FieldValueTooLong", field: "data", detail: `must have at most ${maxDataBytes} bytes` });
  const has = (key: string) => Object.hasOwn(data, key);
  if (str(object["type"]) === bootstrapTokenSecretType(domain)) errors.push(...validateBootstrapTokenData(object));
  switch (str(object["type"])) {
    case types.serviceAccountToken: {
      const name = `${labelDomain}/service-account.name`;
      if (!object.metadata?.annotations?.[name]) errors.push(requiredField(FieldPath.root("metadata").child("annotations").key(name)));
      break;
    }
    case types.dockercfg:
    case types.dockerConfigJSON: {
      const key = str(object["type"]) === types.dockercfg ? ".dockercfg" : ".dockerconfigjson";
      if (!has(key)) {
        errors.push(requiredField(dataPath.key(key)));
        break;
      }
      const problem = validDockerJSON(data[key] as string);
      if (problem !== undefined) errors.push(invalidField(dataPath.key(key), "<secret contents redacted>", problem));
      break;
    }
    case types.basicAuth:
      if (!has("username") && !has("password")) {
        errors.push(requiredField(dataPath.key("username")), requiredField(dataPath.key("password")));
      }
      break;
    case types.sshAuth:
      if (!data["ssh-privatekey"]) errors.push(requiredField(dataPath.key("ssh-privatekey")));
      break;
    case types.tls:
      if (!has("tls.crt")) errors.push(requiredField(dataPath.key("tls.crt")));
      if (!has("tls.key")) errors.push(requiredField(dataPath.key("tls.key")));
      break;
    default:
      break;
  }
  return errors;
}

/**
 * The Secret rules of an update beyond those of a create: `type` cannot change
 * (`type: Invalid value: "...": field is immutable`), and `immutable` as in ConfigMap for `data`.
 */
export function validateSecretUpdate(object: APIObject, old: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  if (!jsonEqual(object["type"] ?? "", old["type"] ?? "")) errors.push(invalidField("type", object["type"] ?? "", "field is immutable"));
  errors.push(...validateImmutableData(object, old, ["data"]));
  return errors;
}

function defaults(object: APIObject): void {
  mergeStringData(object);
  if (!object["type"]) object["type"] = "Opaque";
}

/** The Secret resource type. */
export const secretType: ResourceType = {
  group: "",
  resource: "secrets",
  singular: "secret",
  kind: "Secret",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: secretV1Schema, storage: true }],
  strategy: {
    defaults,
    prepareForCreate: (object) => mergeStringData(object),
    prepareForUpdate: (object) => mergeStringData(object),
    validate: (object, ctx) => validateSecret(object, ctx),
    validateUpdate: (object, old) => validateSecretUpdate(object, old),
    selectableFields: (object) => ({ type: str(object["type"]) }),
    selectableFieldNames: ["type"],
    tableColumns: [
      { name: "Type", type: "string", description: "The type of the secret.", priority: 0, cell: (object) => str(object["type"]) },
      {
        name: "Data",
        type: "integer",
        description: "Number of data entries.",
        priority: 0,
        cell: (object) => Object.keys(record(object["data"]) ?? {}).length,
      },
    ],
  },
};
