/**
 * Field schemas and rules the storage kinds share (PersistentVolume, PersistentVolumeClaim,
 * VolumeAttachment, the `storage` group): quantities, object and secret references, node
 * selectors, access modes, and the reference's messages for them.
 * @module
 */
import {
  forbiddenField,
  invalidField,
  labelSelectorFromObject,
  listType,
  notSupportedField,
  requiredField,
  structType,
  tooLongField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  validateLabelValue,
  validateQualifiedName,
  type FieldError,
  type FieldPath,
  type LabelSelectorObject,
  type Quantity,
} from "@orch/meta";
import { z } from "zod";
import { quantity, quantityOf } from "../schema/fields.js";
export { resourceList } from "../schema/fields.js";
export { quantity, quantityOf };
import { jsonEqual, record, records, str, strings } from "./rules.js";
export { records, strings } from "./rules.js";

/** `SecretReference` (atomic): `name` and `namespace` of a secret. */
export function secretReference(): z.ZodType {
  return structType(
    z
      .object({
        name: z.string().optional().describe("Name is unique within a namespace to reference a secret resource."),
        namespace: z.string().optional().describe("Namespace defines the space within which the secret name must be unique."),
      })
      .meta({ description: "SecretReference represents a Secret Reference. It has enough information to retrieve secret in any namespace." }),
    "atomic",
  );
}

const nodeSelectorRequirement = z
  .object({
    key: z.string().optional().describe("The label key that the selector applies to."),
    operator: z.string().optional().describe("Represents a key's relationship to a set of values: In, NotIn, Exists, DoesNotExist, Gt, Lt."),
    values: listType(z.array(z.string()), "atomic").optional().describe("An array of string values."),
  })
  .meta({ description: "A node selector requirement is a selector that contains values, a key, and an operator.", required: ["key", "operator"] });

/** `NodeSelector` (atomic): `nodeSelectorTerms`, ORed; each with `matchExpressions` and `matchFields`. */
export function nodeSelector(): z.ZodType {
  const term = structType(
    z
      .object({
        matchExpressions: listType(z.array(nodeSelectorRequirement), "atomic").optional().describe("A list of node selector requirements by node's labels."),
        matchFields: listType(z.array(nodeSelectorRequirement), "atomic").optional().describe("A list of node selector requirements by node's fields."),
      })
      .meta({ description: "A null or empty node selector term matches no objects; the requirements of a term are ANDed." }),
    "atomic",
  );
  return structType(
    z
      .object({
        nodeSelectorTerms: listType(z.array(term), "atomic").optional().describe("Required. A list of node selector terms. The terms are ORed."),
      })
      .meta({
        description: "A node selector represents the union of the results of one or more label queries over a set of nodes.",
        required: ["nodeSelectorTerms"],
      }),
    "atomic",
  );
}

/** `LabelSelector` (atomic): `matchLabels` and `matchExpressions`. */
export function labelSelector(): z.ZodType {
  return structType(
    z
      .object({
        matchExpressions: listType(
          z.array(
            z
              .object({
                key: z.string().optional().describe("The label key that the selector applies to."),
                operator: z.string().optional().describe("In, NotIn, Exists or DoesNotExist."),
                values: listType(z.array(z.string()), "atomic").optional().describe("An array of string values."),
              })
              .meta({ required: ["key", "operator"] }),
          ),
          "atomic",
        )
          .optional()
          .describe("A list of label selector requirements. The requirements are ANDed."),
        matchLabels: z.record(z.string(), z.string()).optional().describe("A map of {key,value} pairs."),
      })
      .meta({ description: "A label selector is a label query over a set of resources." }),
    "atomic",
  );
}

/** `TopologySelectorTerm` (atomic) of a storage class's `allowedTopologies`. */
export function topologySelectorTerm(): z.ZodType {
  return structType(
    z
      .object({
        matchLabelExpressions: listType(
          z.array(
            z
              .object({
                key: z.string().optional().describe("The label key that the selector applies to."),
                values: listType(z.array(z.string()), "atomic").optional().describe("An array of string values; one must match the label."),
              })
              .meta({ required: ["key", "values"] }),
          ),
          "atomic",
        )
          .optional()
          .describe("A list of topology selector requirements by labels."),
      })
      .meta({ description: "A topology selector term represents the result of label queries." }),
    "atomic",
  );
}

/** The access modes a volume or claim may have. */
export const accessModes = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"] as const;
/** The volume modes. */
export const volumeModes = ["Block", "Filesystem"] as const;

/** The reference's `must be greater than zero`. */
export const notPositiveMessage = "must be greater than zero";
/** The reference's `must be greater than or equal to 0`. */
export const negativeMessage = "must be greater than or equal to 0";
/** The reference's `field is immutable`. */
export const immutableMessage = "field is immutable";

/**
 * The access-mode rules of a volume or claim spec at `path` (`spec.accessModes`): at least one
 * (`Required value: at least 1 access mode is required` for claims, empty detail for volumes),
 * each supported, `ReadWriteOncePod` alone.
 */
export function validateAccessModes(value: unknown, path: FieldPath, requiredDetail: string): FieldError[] {
  const errors: FieldError[] = [];
  const modes = strings(value);
  if (modes.length === 0) errors.push(requiredField(path, requiredDetail));
  let foundOncePod = false;
  let foundOther = false;
  for (const mode of modes) {
    if (!(accessModes as readonly string[]).includes(mode)) errors.push(notSupportedField(path, mode, accessModes));
    if (mode === "ReadWriteOncePod") foundOncePod = true;
    else foundOther = true;
  }
  if (foundOncePod && foundOther) errors.push(forbiddenField(path, "may not use ReadWriteOncePod with other access modes"));
  return errors;
}

/** `volumeMode`, when set, `Block` or `Filesystem`. */
export function validateVolumeMode(value: unknown, path: FieldPath): FieldError[] {
  if (value === undefined) return [];
  return (volumeModes as readonly string[]).includes(str(value)) ? [] : [notSupportedField(path, value, volumeModes)];
}

/** A storage class name, when set: a DNS subdomain. */
export function validateClassName(value: unknown, path: FieldPath): FieldError[] {
  const name = str(value);
  return name === "" ? [] : validateDNS1123Subdomain(name, path);
}

/** `must be greater than zero` for a quantity that is not positive. */
export function validatePositiveQuantity(q: Quantity, path: FieldPath): FieldError[] {
  return q.sign() <= 0 ? [invalidField(path, q.toString(), notPositiveMessage)] : [];
}

/** `must be greater than or equal to 0` for a negative quantity. */
export function validateNonNegativeQuantity(q: Quantity, path: FieldPath): FieldError[] {
  return q.sign() < 0 ? [invalidField(path, q.toString(), negativeMessage)] : [];
}

/**
 * A CSI driver name (`ValidateCSIDriverName`): required, at most 63 characters, a DNS subdomain
 * once lower-cased.
 */
export function validateCSIDriverName(name: string, path: FieldPath): FieldError[] {
  if (name.length === 0) return [requiredField(path)];
  const errors: FieldError[] = [];
  if (name.length > 63) errors.push(tooLongField(path, name, 63));
  for (const e of validateDNS1123Subdomain(name.toLowerCase(), path)) errors.push({ ...e, value: name });
  return errors;
}

/** `field is immutable` at `path` when `value` differs from `old`. */
export function validateImmutable(value: unknown, old: unknown, path: FieldPath | string): FieldError[] {
  return jsonEqual(value, old) ? [] : [invalidField(path, value ?? null, immutableMessage)];
}

/** The reference's `validatePathNoBacksteps`: no `..` element. */
export function validatePathNoBacksteps(path: string, at: FieldPath): FieldError[] {
  return path.split(/[\\/]/).includes("..") ? [invalidField(at, path, "must not contain '..'")] : [];
}

/** A `LabelSelector` object at `path` (`nodeTopology`), with the reference's errors; `undefined` is fine. */
export function validateLabelSelectorObject(value: unknown, path: FieldPath): FieldError[] {
  const selector = record(value);
  if (!selector) return [];
  const result = labelSelectorFromObject(selector as unknown as LabelSelectorObject, path);
  return result.ok ? [] : [...result.errors];
}

/**
 * A `NodeSelector` (`ValidateNodeSelector`): at least one term; each term's `matchExpressions`
 * (label keys, operators In/NotIn/Exists/DoesNotExist/Gt/Lt and their values) and `matchFields`
 * (`metadata.name` only, In/NotIn with one value).
 */
export function validateNodeSelector(value: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const termsPath = path.child("nodeSelectorTerms");
  const terms = records(value["nodeSelectorTerms"]);
  if (terms.length === 0) errors.push(requiredField(termsPath, "must have at least one node selector term"));
  terms.forEach((term, i) => {
    const at = termsPath.index(i);
    records(term["matchExpressions"]).forEach((req, j) => errors.push(...validateNodeSelectorRequirement(req, at.child("matchExpressions").index(j))));
    records(term["matchFields"]).forEach((req, j) => errors.push(...validateNodeFieldSelectorRequirement(req, at.child("matchFields").index(j))));
  });
  return errors;
}

function validateNodeSelectorRequirement(req: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const values = strings(req["values"]);
  const operator = str(req["operator"]);
  switch (operator) {
    case "In":
    case "NotIn":
      if (values.length === 0) errors.push(requiredField(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) errors.push(forbiddenField(path.child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case "Gt":
    case "Lt":
      if (values.length !== 1) errors.push(requiredField(path.child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errors.push(invalidField(path.child("operator"), operator, "not a valid selector operator"));
  }
  errors.push(...validateQualifiedName(str(req["key"]), path.child("key")));
  return errors;
}

function validateNodeFieldSelectorRequirement(req: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const operator = str(req["operator"]);
  if (operator === "In" || operator === "NotIn") {
    if (strings(req["values"]).length !== 1) {
      errors.push(requiredField(path.child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errors.push(invalidField(path.child("operator"), operator, "not a valid selector operator"));
  }
  const key = str(req["key"]);
  if (key !== "metadata.name") errors.push(invalidField(path.child("key"), key, "not a valid field selector key"));
  return errors;
}

/**
 * A secret reference with both parts required (CSI secret refs, cinder `secretRef`): `name`
 * required and a DNS subdomain, `namespace` required and a DNS label.
 */
export function validateSecretReference(value: Record<string, unknown>, path: FieldPath, requiredDetail?: (part: string) => string): FieldError[] {
  const errors: FieldError[] = [];
  const name = str(value["name"]);
  const namespace = str(value["namespace"]);
  if (name === "") errors.push(requiredField(path.child("name"), requiredDetail?.("name") ?? ""));
  else errors.push(...validateDNS1123Subdomain(name, path.child("name")));
  if (namespace === "") errors.push(requiredField(path.child("namespace"), requiredDetail?.("namespace") ?? ""));
  else errors.push(...validateDNS1123Label(namespace, path.child("namespace")));
  return errors;
}

/** Label values of a list, each at its index. */
export function validateLabelValues(values: readonly string[], path: FieldPath): FieldError[] {
  return values.flatMap((v, i) => validateLabelValue(v, path.index(i)));
}

/** The reference's `InclusiveRangeError`. */
export function inclusiveRange(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}
