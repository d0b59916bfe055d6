/**
 * IngressClass (`networking.<domain>/v1`, cluster-scoped): the controller that implements a class
 * of Ingresses and its parameters. The reference's default (`parameters.scope` Cluster), its
 * validation (`controller` a domain-prefixed path of at most 250 characters, immutable;
 * `parameters` a typed reference with a scope of Cluster or Namespace and a namespace exactly for
 * the latter) and kubectl's columns (CONTROLLER, PARAMETERS).
 * @module
 */
import {
  FieldPath,
  forbiddenField,
  invalidField,
  notSupportedField,
  requiredField,
  tooLongField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { immutable } from "./internal/cluster-rules.js";
import { validateTypedLocalObjectReference } from "./internal/networking-common.js";
import { record, str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { named, optionalString } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `IngressClassParametersReference`. */
export const ingressClassParametersReferenceSchema = named(
  z
    .object({
      apiGroup: optionalString("The group for the resource being referenced; without it, the core group."),
      kind: optionalString("The type of resource being referenced."),
      name: optionalString("The name of resource being referenced."),
      namespace: optionalString("The namespace of the resource being referenced; required when scope is Namespace."),
      scope: optionalString("Whether the resource is cluster- or namespace-scoped: Cluster (the default) or Namespace."),
    })
    .meta({ description: "IngressClassParametersReference identifies an API object.", required: ["kind", "name"] }),
  "api.networking.v1.IngressClassParametersReference",
);

/** `IngressClassSpec`. */
export const ingressClassSpecSchema = named(
  z
    .object({
      controller: optionalString("The name of the controller that should handle this class, a domain-prefixed path such as `example.com/ingress-controller`."),
      parameters: ingressClassParametersReferenceSchema
        .optional()
        .describe("A link to a custom resource containing additional configuration for the controller."),
    })
    .meta({ description: "IngressClassSpec provides information about the class of an Ingress." }),
  "api.networking.v1.IngressClassSpec",
);

/** The zod schema of an IngressClass in `networking/v1`. */
export const ingressClassV1Schema = kindSchema(
  { spec: ingressClassSpecSchema.optional().describe("Spec is the desired state of the IngressClass.") },
  "IngressClass represents the class of the Ingress, referenced by the Ingress Spec.",
);

/** The reference's IngressClass default: `spec.parameters.scope` Cluster when parameters are set. */
export function defaultIngressClass(object: APIObject): void {
  const parameters = record(record(object["spec"])?.["parameters"]);
  if (parameters && parameters["scope"] === undefined) parameters["scope"] = "Cluster";
}

const httpPath = /^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/;

/** The reference's `IsDomainPrefixedPath` for `value` at `path` (`acme.io/foo`). */
export function validateDomainPrefixedPath(value: string, path: FieldPath): FieldError[] {
  if (value === "") return [requiredField(path)];
  const slash = value.indexOf("/");
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? "" : value.slice(slash + 1);
  if (slash < 0 || host === "" || rest === "") return [invalidField(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errors = validateDNS1123Subdomain(host, path);
  if (!httpPath.test(rest)) errors.push(invalidField(path, rest, "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  return errors;
}

/** The `parameters.scope` values, sorted as the reference lists them. */
export const ingressClassParameterScopes = ["Cluster", "Namespace"] as const;

/**
 * The IngressClass rules: `spec.controller` a domain-prefixed path of at most 250 characters;
 * `spec.parameters` a typed reference whose scope is Cluster (no namespace) or Namespace (a
 * namespace name required).
 */
export function validateIngressClass(object: APIObject): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const errors: FieldError[] = [];
  const controller = str(spec["controller"]);
  if (controller.length > 250) errors.push(tooLongField(path.child("controller"), controller, 250));
  errors.push(...validateDomainPrefixedPath(controller, path.child("controller")));
  const parameters = record(spec["parameters"]);
  if (parameters) {
    const at = path.child("parameters");
    errors.push(...validateTypedLocalObjectReference(parameters, at));
    const scope = parameters["scope"];
    const namespace = parameters["namespace"];
    if (typeof scope !== "string") errors.push(requiredField(at.child("scope")));
    else if (!(ingressClassParameterScopes as readonly string[]).includes(scope))
      errors.push(notSupportedField(at.child("scope"), scope, ingressClassParameterScopes));
    else if (scope === "Namespace") {
      if (typeof namespace !== "string") errors.push(requiredField(at.child("namespace"), "`parameters.scope` is set to 'Namespace'"));
      else errors.push(...validateDNS1123Label(namespace, at.child("namespace")));
    } else if (namespace !== undefined) errors.push(forbiddenField(at.child("namespace"), "`parameters.scope` is set to 'Cluster'"));
  }
  return errors;
}

/** The rule an IngressClass update adds: `spec.controller` is immutable. */
export function validateIngressClassUpdate(object: APIObject, old: APIObject): FieldError[] {
  return immutable(record(object["spec"])?.["controller"], record(old["spec"])?.["controller"], FieldPath.root("spec").child("controller"));
}

/** The PARAMETERS cell: `Kind.group/name`, `<none>` without parameters. */
export function ingressClassParametersCell(object: APIObject): string {
  const p = record(record(object["spec"])?.["parameters"]);
  if (!p) return "<none>";
  const group = p["apiGroup"];
  return `${str(p["kind"])}${typeof group === "string" ? `.${group}` : ""}/${str(p["name"])}`;
}

/** The IngressClass resource type. */
export const ingressClassType: ResourceType = {
  group: "networking.{domain}",
  resource: "ingressclasses",
  singular: "ingressclass",
  kind: "IngressClass",
  scope: "Cluster",
  versions: [{ name: "v1", schema: ingressClassV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultIngressClass(object),
    validate: (object) => validateIngressClass(object),
    validateUpdate: (object, old) => validateIngressClassUpdate(object, old),
    tableColumns: [
      {
        name: "Controller",
        type: "string",
        description: "Controller that is responsible for handling this class",
        priority: 0,
        cell: (o) => str(record(o["spec"])?.["controller"]),
      },
      {
        name: "Parameters",
        type: "string",
        description: "A reference to a resource with additional parameters",
        priority: 0,
        cell: ingressClassParametersCell,
      },
    ],
  },
};
