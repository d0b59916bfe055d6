/**
 * Schemas and rules the workload kinds share (Pod, Node, Service, LimitRange, ResourceQuota,
 * ServiceAccount, Binding): quantities and resource lists, int-or-string, object references,
 * tolerations and taints, port numbers and names, file modes and relative paths.
 * @module
 */
import { FieldPath, invalidField, notSupportedField, requiredField, structType, validateLabelValue, validateQualifiedName, type FieldError } from "@orch/meta";
import { z } from "zod";
import { quantity, quantityOf } from "../schema/fields.js";
export { resourceList } from "../schema/fields.js";
export { quantity, quantityOf };
import { objectReferenceSchema } from "../event.js";
import { int32, int64, named } from "../schema/fields.js";
import { record, str } from "./rules.js";
export { list } from "./rules.js";

/** A field path as a {@link FieldPath} or its printed form. */
export type PathLike = FieldPath | string;

/** An `IntOrString` (a port number or a port name); OpenAPI carries `format: int-or-string`. */
export function intOrString(): z.ZodType<number | string> {
  return z.union([int32(), z.string()]).meta({ format: "int-or-string" });
}

/** `LocalObjectReference`: the name of an object in the same namespace (atomic as a struct). */
export const localObjectReferenceSchema = named(
  structType(
    z
      .object({ name: z.string().optional().describe("Name of the referent.") })
      .meta({ description: "LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace." }),
    "atomic",
  ),
  "api.core.v1.LocalObjectReference",
);

/** `ObjectReference` (atomic as a struct): Event's schema, shared so core `v1` names it once. */
export const workloadObjectReferenceSchema = objectReferenceSchema;

/** `Toleration`: a pod tolerates the taints it matches. */
export const tolerationSchema = named(
  z
    .object({
      effect: z.string().optional().describe("The taint effect to match: NoSchedule, PreferNoSchedule or NoExecute; empty matches all."),
      key: z.string().optional().describe("The taint key; empty with operator Exists matches all taints."),
      operator: z.string().optional().describe("Exists or Equal (the default)."),
      tolerationSeconds: int64().optional().describe("For NoExecute: how long the pod stays bound after the taint appears."),
      value: z.string().optional().describe("The taint value to match; empty when the operator is Exists."),
    })
    .meta({ description: "The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect>." }),
  "api.core.v1.Toleration",
);

/** `Taint`: a node repels pods that do not tolerate it. */
export const taintSchema = named(
  z
    .object({
      effect: z.string().optional().describe("The effect of the taint: NoSchedule, PreferNoSchedule or NoExecute."),
      key: z.string().optional().describe("The taint key to be applied to a node."),
      timeAdded: z.string().optional().describe("The time the taint was added (NoExecute taints only)."),
      value: z.string().optional().describe("The taint value corresponding to the taint key."),
    })
    .meta({ description: "The node this Taint is attached to has the effect on any pod that does not tolerate the Taint.", required: ["key", "effect"] }),
  "api.core.v1.Taint",
);

/** The taint effects. */
export const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/** The reference's `InclusiveRangeError`: `must be between lo and hi, inclusive`. */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** A taint or toleration effect (`allowEmpty` for tolerations). */
export function validateTaintEffect(effect: string, allowEmpty: boolean, path: PathLike): FieldError[] {
  if (!allowEmpty && effect === "") return [requiredField(path)];
  if (effect !== "" && !(taintEffects as readonly string[]).includes(effect)) return [notSupportedField(path, effect, taintEffects)];
  return [];
}

/** The supported toleration operators, in the reference's order. */
export const tolerationOperators = ["Equal", "Exists"] as const;

/**
 * The reference's core `ValidateTolerations` for the list at `path` (`spec.tolerations`,
 * `scheduling.tolerations`): a key is a qualified name; an empty key needs operator `Exists`;
 * `tolerationSeconds` needs effect `NoExecute`; with `Equal` (or empty) the value is a label
 * value (reported on `operator`, as the reference does), with `Exists` it is empty; other
 * operators and effects are not supported.
 */
export function validateTolerations(list: unknown, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(list)) return errors;
  list.forEach((item, i) => {
    const t = record(item) ?? {};
    const at = path.index(i);
    const key = str(t["key"]);
    const operator = str(t["operator"]);
    const value = str(t["value"]);
    const effect = str(t["effect"]);
    if (key !== "") errors.push(...validateQualifiedName(key, at.child("key")));
    if (key === "" && operator !== "Exists") {
      errors.push(invalidField(at.child("operator"), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (t["tolerationSeconds"] !== undefined && effect !== "NoExecute") {
      errors.push(invalidField(at.child("effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case "":
      case "Equal": {
        const messages = validateLabelValue(value, at.child("operator")).map((e) => e.detail);
        if (messages.length) errors.push(invalidField(at.child("operator"), value, messages.join(";")));
        break;
      }
      case "Exists":
        if (value !== "") errors.push(invalidField(at.child("operator"), t, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errors.push(notSupportedField(at.child("operator"), operator, tolerationOperators));
    }
    errors.push(...validateTaintEffect(effect, true, at.child("effect")));
  });
  return errors;
}

/** The reference's `IsValidPortNum` for `port` at `path` (1 to 65535). */
export function validatePortNumber(port: unknown, path: PathLike): FieldError[] {
  if (typeof port !== "number" || port < 1 || port > 65535) return [invalidField(path, port, inclusiveRangeError(1, 65535))];
  return [];
}

/** The reference's `IsValidPortName` messages (an IANA service name). */
export function portNameMessages(name: string): string[] {
  const messages: string[] = [];
  if (name.length > 15) messages.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name)) messages.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) messages.push("must contain at least one letter (a-z)");
  if (name.includes("--")) messages.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) messages.push("must not begin or end with a hyphen");
  return messages;
}

/** A port number or IANA port name (`targetPort`, probes). */
export function validatePortNumOrName(value: unknown, path: PathLike): FieldError[] {
  if (typeof value === "number") return validatePortNumber(value, path);
  if (typeof value === "string") {
    if (value === "") return [requiredField(path)];
    return portNameMessages(value).map((m) => invalidField(path, value, m));
  }
  return [];
}

/** The message of a file mode out of range. */
export const fileModeErrorMessage = "must be a number between 0 and 0777 (octal), both inclusive";

/** A file mode (`defaultMode`, `mode`): 0 to 0777 octal (0 to 511 decimal). */
export function validateFileMode(mode: unknown, path: PathLike): FieldError[] {
  if (typeof mode === "number" && (mode < 0 || mode > 0o777)) return [invalidField(path, mode, fileModeErrorMessage)];
  return [];
}

/** No `..` element in `target` (`must not contain '..'`). */
export function validatePathNoBacksteps(target: string, path: PathLike): FieldError[] {
  if (target.split(/[\\/]/).includes("..")) return [invalidField(path, target, "must not contain '..'")];
  return [];
}

/** A relative path without `..` elements (the reference's `validateLocalDescendingPath`). */
export function validateLocalDescendingPath(target: string, path: PathLike): FieldError[] {
  const errors: FieldError[] = [];
  if (target.startsWith("/")) errors.push(invalidField(path, target, "must be a relative path"));
  errors.push(...validatePathNoBacksteps(target, path));
  return errors;
}

/** {@link validateLocalDescendingPath}, and not starting with `..` (`validateLocalNonReservedPath`). */
export function validateLocalNonReservedPath(target: string, path: PathLike): FieldError[] {
  const errors = validateLocalDescendingPath(target, path);
  if (target.startsWith("..") && !target.startsWith("../")) errors.push(invalidField(path, target, "must not start with '..'"));
  return errors;
}

const standardContainerResources = new Set(["cpu", "memory", "ephemeral-storage"]);
const standardResources = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "storage",
  "pods",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
  "requests.cpu",
  "requests.memory",
  "requests.storage",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
]);

/** True for the standard resource names (`cpu`, `memory`, `pods`, `requests.cpu`, `hugepages-2Mi`, ...). */
export function isStandardResourceName(name: string): boolean {
  return standardResources.has(name) || name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
}

/** True for the resources a container may request (`cpu`, `memory`, `ephemeral-storage`, `hugepages-*`). */
export function isStandardContainerResourceName(name: string): boolean {
  return standardContainerResources.has(name) || name.startsWith("hugepages-");
}

/**
 * A resource name (`validateResourceName`): a qualified name, and without a `/` a standard one
 * (`must be a standard resource type or fully qualified`).
 */
export function validateResourceName(name: string, path: PathLike): FieldError[] {
  const errors = validateQualifiedName(name, path);
  if (errors.length) return errors;
  if (!name.includes("/") && !isStandardResourceName(name)) return [invalidField(path, name, "must be a standard resource type or fully qualified")];
  return [];
}

/** A container resource name (`validateContainerResourceName`): standard for containers or qualified. */
export function validateContainerResourceName(name: string, path: PathLike): FieldError[] {
  const errors = validateQualifiedName(name, path);
  if (errors.length) return errors;
  if (!name.includes("/") && !isStandardContainerResourceName(name)) return [invalidField(path, name, "must be a standard resource for containers")];
  return [];
}

/** A quantity not below zero (`must be greater than or equal to 0`). */
export function validateNonNegativeQuantity(value: unknown, path: PathLike): FieldError[] {
  const q = quantityOf(value);
  if (q && q.sign() < 0) return [invalidField(path, q.toString(), "must be greater than or equal to 0")];
  return [];
}

/** The root path of a field of the spec: `spec.<name>`. */
export function specPath(...names: string[]): FieldPath {
  let p = FieldPath.root("spec");
  for (const n of names) p = p.child(n);
  return p;
}
