/**
 * Binding (core `v1`, namespaced, create only): ties a pod to a node. `POST bindings` performs
 * the Pod `binding` sub-resource on the pod of the same name; nothing is stored as a Binding.
 * @module
 */
import { FieldPath, notSupportedField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { record, str } from "./internal/rules.js";
import { workloadObjectReferenceSchema } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { kindSchema } from "./schema/object-meta.js";

/** The zod schema of a `Binding` in `v1` (the body of `bindings` and of `pods/{name}/binding`). */
export const bindingV1Schema = kindSchema(
  { target: workloadObjectReferenceSchema.optional().describe("The target object to bind to: a Node.") },
  "Binding ties one object to another; for example, a pod is bound to a node by a scheduler.",
).meta({ required: ["target"] });

/**
 * The Binding rules (the reference's `ValidatePodBinding`): `target.kind` Node or empty
 * (`NotSupported` at `target.kind`), `target.name` required (`Required` at `target.name`).
 */
export function validateBinding(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const target = record(object["target"]) ?? {};
  const path = FieldPath.root("target");
  const kind = str(target["kind"]);
  if (kind !== "" && kind !== "Node") errors.push(notSupportedField(path.child("kind"), kind, ["Node", "<empty>"]));
  if (str(target["name"]) === "") errors.push(requiredField(path.child("name")));
  return errors;
}

/**
 * The Binding resource type: only `create`, which the server turns into the `binding` action of
 * the pod of the same name and namespace (a pod already bound is a 409 Conflict).
 */
export const bindingType: ResourceType = {
  group: "",
  resource: "bindings",
  singular: "binding",
  kind: "Binding",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: bindingV1Schema, storage: true }],
  verbs: ["create"],
  actionOn: { resource: "pods", action: "binding" },
  strategy: { validate: (object) => validateBinding(object) },
};
