/**
 * APIService (`apiregistration.{domain}/v1`, cluster-scoped, sub-resource `status`): registers a
 * group/version, served locally or proxied to a Service. The name must be `<version>.<group>`;
 * `groupPriorityMinimum` is 1 to 20000 and `versionPriority` 1 to 1000; a service port defaults
 * to 443; `insecureSkipTLSVerify` excludes `caBundle`, and a local APIService has neither.
 * @module
 */
import { FieldPath, invalidField, listType, patchStrategy, requiredField, validateDNS1123Subdomain, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { findCondition, statusHooks, validateConditionStatuses } from "./internal/cluster-rules.js";
import { base64ByteLength } from "./internal/base64.js";
import { record, str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { bytes, int32, named, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ServiceReference` of an APIService: where the proxied API lives. */
export const apiServiceServiceReferenceSchema = named(
  z
    .object({
      name: z.string().optional().describe("Name is the name of the service."),
      namespace: z.string().optional().describe("Namespace is the namespace of the service."),
      port: int32().optional().describe("If specified, the port on the service that hosting webhook; default 443. Valid range 1-65535."),
    })
    .meta({ description: "ServiceReference holds a reference to Service.legacy.k8s.io" }),
  "kube-aggregator.pkg.apis.apiregistration.v1.ServiceReference",
);

/** `APIServiceSpec`. */
export const apiServiceSpecSchema = named(
  z
    .object({
      caBundle: bytes().optional().describe("PEM encoded CA bundle used to validate the API server's serving certificate."),
      group: z.string().optional().describe("Group is the API group name this server hosts."),
      groupPriorityMinimum: int32().optional().describe("The priority this group should have at least (1 to 20000); higher is preferred."),
      insecureSkipTLSVerify: z
        .boolean()
        .optional()
        .describe("Disables TLS certificate verification when communicating with this server. Strongly discouraged."),
      service: apiServiceServiceReferenceSchema.optional().describe("Service is a reference to the service for this API server; nil means handled locally."),
      version: z.string().optional().describe("Version is the API version this server hosts, for example v1."),
      versionPriority: int32().optional().describe("The ordering of this version inside its group (1 to 1000); higher is preferred."),
    })
    .meta({
      description: "APIServiceSpec contains information for locating and communicating with a server.",
      required: ["groupPriorityMinimum", "versionPriority"],
    }),
  "kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec",
);

/** `APIServiceCondition`. */
export const apiServiceConditionSchema = named(
  z
    .object({
      lastTransitionTime: time().optional().describe("Last time the condition transitioned from one status to another."),
      message: z.string().optional().describe("Human-readable message indicating details about last transition."),
      reason: z.string().optional().describe("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: z.string().optional().describe("Status is the status of the condition: True, False or Unknown."),
      type: z.string().optional().describe("Type is the type of the condition (Available)."),
    })
    .meta({ description: "APIServiceCondition describes the state of an APIService at a particular point", required: ["type", "status"] }),
  "kube-aggregator.pkg.apis.apiregistration.v1.APIServiceCondition",
);

/** `APIServiceStatus`. */
export const apiServiceStatusSchema = named(
  z
    .object({
      conditions: patchStrategy(listType(z.array(apiServiceConditionSchema), "map", ["type"]), "merge", "type")
        .optional()
        .describe("Current service state of apiService."),
    })
    .meta({ description: "APIServiceStatus contains derived information about an API server" }),
  "kube-aggregator.pkg.apis.apiregistration.v1.APIServiceStatus",
);

/** The zod schema of an APIService in `v1`. */
export const apiServiceV1Schema = kindSchema(
  {
    spec: apiServiceSpecSchema.optional().describe("Spec contains information for locating and communicating with a server."),
    status: apiServiceStatusSchema.optional().describe("Status contains derived information about an API server."),
  },
  'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
);

/** The defaults of `v1`: `spec.service.port` 443 when a service is given. */
export function defaultAPIService(object: APIObject): void {
  const service = record(record(object["spec"])?.["service"]);
  if (service && service["port"] === undefined) service["port"] = 443;
}

const dns1035LabelPattern = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function dns1035LabelMessages(value: string): string[] {
  const messages: string[] = [];
  if (value.length > 63) messages.push("must be no more than 63 characters");
  if (!dns1035LabelPattern.test(value)) {
    messages.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return messages;
}

/**
 * The APIService rules beyond metadata, for create and update alike: `metadata.name` equal to
 * `spec.version + "." + spec.group`; `spec.group` a DNS subdomain (empty only for version
 * `v1`); `spec.version` a DNS-1035 label; the two priorities in range; without a service no
 * `caBundle` and no `insecureSkipTLSVerify`; with one, its `namespace` and `name` required, a
 * port in 1-65535, and not both `insecureSkipTLSVerify` and `caBundle`.
 */
export function validateAPIService(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const group = str(spec["group"]);
  const version = str(spec["version"]);
  const name = object.metadata?.name ?? "";
  const requiredName = `${version}.${group}`;
  if (name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("%") && name !== requiredName) {
    errors.push(invalidField(FieldPath.root("metadata").child("name"), name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  if (group === "" && version !== "v1") {
    errors.push(requiredField(path.child("group"), "only v1 may have an empty group and it better be legacy kube"));
  }
  if (group !== "") errors.push(...validateDNS1123Subdomain(group, path.child("group")));
  for (const msg of dns1035LabelMessages(version)) errors.push(invalidField(path.child("version"), version, msg));
  const groupPriority = typeof spec["groupPriorityMinimum"] === "number" ? spec["groupPriorityMinimum"] : 0;
  if (groupPriority <= 0 || groupPriority > 20000) {
    errors.push(invalidField(path.child("groupPriorityMinimum"), groupPriority, "must be positive and less than 20000"));
  }
  const versionPriority = typeof spec["versionPriority"] === "number" ? spec["versionPriority"] : 0;
  if (versionPriority <= 0 || versionPriority > 1000) {
    errors.push(invalidField(path.child("versionPriority"), versionPriority, "must be positive and less than 1000"));
  }
  const caBundle = str(spec["caBundle"]);
  const caBytes = caBundle === "" ? 0 : base64ByteLength(caBundle);
  const insecure = spec["insecureSkipTLSVerify"] === true;
  const service = record(spec["service"]);
  if (!service) {
    if (caBytes !== 0) errors.push(invalidField(path.child("caBundle"), `${caBytes} bytes`, "local APIServices may not have a caBundle"));
    if (insecure) errors.push(invalidField(path.child("insecureSkipTLSVerify"), true, "local APIServices may not have insecureSkipTLSVerify"));
    return errors;
  }
  const servicePath = path.child("service");
  if (str(service["namespace"]) === "") errors.push(requiredField(servicePath.child("namespace")));
  if (str(service["name"]) === "") errors.push(requiredField(servicePath.child("name")));
  const port = typeof service["port"] === "number" ? service["port"] : 0;
  if (port < 1 || port > 65535) errors.push(invalidField(servicePath.child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"));
  if (insecure && caBytes > 0) errors.push(invalidField(path.child("insecureSkipTLSVerify"), true, "may not be true if caBundle is present"));
  return errors;
}

/** The rule of a write to `/status`: each `status.conditions[i].status` `True`, `False` or `Unknown`. */
export function validateAPIServiceStatus(object: APIObject): FieldError[] {
  return validateConditionStatuses(object);
}

const hooks = statusHooks(() => ({}));

/** The APIService resource type. */
export const apiServiceType: ResourceType = {
  group: "apiregistration.{domain}",
  resource: "apiservices",
  singular: "apiservice",
  kind: "APIService",
  categories: ["api-extensions"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: apiServiceV1Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    defaults: (object) => defaultAPIService(object),
    // `v1.` (the core group's version) is a valid name: only a path segment is required, and
    // `validateAPIService` requires `<version>.<group>`.
    nameIsPathSegment: true,
    prepareForCreate: hooks.prepareForCreate,
    prepareForUpdate: hooks.prepareForUpdate,
    validate: (object) => validateAPIService(object),
    validateStatusUpdate: (object) => validateAPIServiceStatus(object),
    tableColumns: [
      {
        name: "Service",
        type: "string",
        description: "The reference to the service that hosts this API endpoint.",
        priority: 0,
        cell: (object) => {
          const service = record(record(object["spec"])?.["service"]);
          return service ? `${str(service["namespace"])}/${str(service["name"])}` : "Local";
        },
      },
      {
        name: "Available",
        type: "string",
        description: "Whether this service is available.",
        priority: 0,
        cell: (object) => {
          const condition = findCondition(object, "Available");
          if (!condition) return "Unknown";
          const status = str(condition["status"]);
          return status === "True" ? status : `${status} (${str(condition["reason"])})`;
        },
      },
    ],
  },
};
