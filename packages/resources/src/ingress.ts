/**
 * Ingress (`networking.<domain>/v1`, namespaced, short name `ing`, sub-resource `status`): HTTP
 * routes from outside the cluster to services. The reference's validation (rules or a default
 * backend; hosts DNS names, not IPs, `*.` wildcards allowed; each path with a `pathType` of
 * Exact, Prefix or ImplementationSpecific and an absolute path; a backend that is a service with
 * a name and a port number or name, or a resource; TLS hosts and secret names; the class name
 * and the legacy `kubernetes.io/ingress.class` annotation agreeing), the load-balancer status
 * rules and kubectl's columns (CLASS, HOSTS, ADDRESS, PORTS).
 * @module
 */
import {
  FieldPath,
  invalidField,
  listType,
  notSupportedField,
  requiredField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { statusHooks } from "./internal/cluster-rules.js";
import { parseIP, validateIngressHost, validateTypedLocalObjectReference } from "./internal/networking-common.js";
import { list, record, records, str } from "./internal/rules.js";
import { portNameMessages, validatePortNumber } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { atomicStrings, int32, named, optionalString } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `TypedLocalObjectReference` (atomic): a resource backend or class parameters. */
export const typedLocalObjectReferenceSchema = named(
  z
    .object({
      apiGroup: optionalString("The group for the resource being referenced; without it, the core group."),
      kind: optionalString("The type of resource being referenced."),
      name: optionalString("The name of resource being referenced."),
    })
    .meta({ description: "TypedLocalObjectReference contains enough information to let you locate the typed referenced object inside the same namespace." }),
  "api.core.v1.TypedLocalObjectReference",
);

/** `IngressBackend`. */
export const ingressBackendSchema = named(
  z
    .object({
      resource: typedLocalObjectReferenceSchema.optional().describe("A reference to another resource in the same namespace; exclusive with service."),
      service: named(
        z
          .object({
            name: optionalString("The referenced service. The service must exist in the same namespace as the Ingress object."),
            port: named(
              z
                .object({
                  name: optionalString("The name of the port on the Service; mutually exclusive with number."),
                  number: int32().optional().describe("The numerical port number on the Service; mutually exclusive with name."),
                })
                .meta({ description: "ServiceBackendPort is the service port being referenced." }),
              "api.networking.v1.ServiceBackendPort",
            )
              .optional()
              .describe("Port of the referenced service. A port name or port number is required."),
          })
          .meta({ description: "IngressServiceBackend references a Kubernetes Service as a Backend.", required: ["name"] }),
        "api.networking.v1.IngressServiceBackend",
      )
        .optional()
        .describe("A referenced service; exclusive with resource."),
    })
    .meta({ description: "IngressBackend describes all endpoints for a given service and port." }),
  "api.networking.v1.IngressBackend",
);

/** `HTTPIngressPath`. */
const httpIngressPathSchema = named(
  z
    .object({
      backend: ingressBackendSchema.optional().describe("The referenced service endpoint to which the traffic will be forwarded."),
      path: optionalString("Matched against the path of an incoming request."),
      pathType: optionalString("How the path is matched: Exact, Prefix or ImplementationSpecific."),
    })
    .meta({ description: "HTTPIngressPath associates a path with a backend.", required: ["pathType", "backend"] }),
  "api.networking.v1.HTTPIngressPath",
);

/** `IngressRule`. */
const ingressRuleSchema = named(
  z
    .object({
      host: optionalString("The fully qualified domain name of a network host, as defined by RFC 3986; `*.` wildcards allowed."),
      http: named(
        z
          .object({ paths: listType(z.array(httpIngressPathSchema), "atomic").optional().describe("A collection of paths that map requests to backends.") })
          .meta({ description: "HTTPIngressRuleValue is a list of http selectors pointing to backends.", required: ["paths"] }),
        "api.networking.v1.HTTPIngressRuleValue",
      ).optional(),
    })
    .meta({ description: "IngressRule represents the rules mapping the paths under a specified host to the related backend services." }),
  "api.networking.v1.IngressRule",
);

/** `IngressTLS`. */
const ingressTLSSchema = named(
  z
    .object({
      hosts: listType(atomicStrings("Hosts included in the TLS certificate."), "atomic").optional(),
      secretName: optionalString("The name of the secret used to terminate TLS traffic on port 443."),
    })
    .meta({ description: "IngressTLS describes the transport layer security associated with an ingress." }),
  "api.networking.v1.IngressTLS",
);

/** `IngressSpec`. */
export const ingressSpecSchema = named(
  z
    .object({
      defaultBackend: ingressBackendSchema.optional().describe("The backend that should handle requests that don't match any rule."),
      ingressClassName: optionalString("The name of an IngressClass cluster resource."),
      rules: listType(z.array(ingressRuleSchema), "atomic").optional().describe("A list of host rules used to configure the Ingress."),
      tls: listType(z.array(ingressTLSSchema), "atomic").optional().describe("TLS configuration."),
    })
    .meta({ description: "IngressSpec describes the Ingress the user wishes to exist." }),
  "api.networking.v1.IngressSpec",
);

/** `IngressStatus`. */
export const ingressStatusSchema = named(
  z
    .object({
      loadBalancer: named(
        z
          .object({
            ingress: listType(
              z.array(
                named(
                  z
                    .object({
                      hostname: optionalString("Set for load-balancer ingress points that are DNS based."),
                      ip: optionalString("Set for load-balancer ingress points that are IP based."),
                      ports: listType(
                        z.array(
                          named(
                            z
                              .object({
                                error: optionalString("Records a problem with the service port."),
                                port: int32().optional().describe("The port number of the ingress port."),
                                protocol: optionalString("The protocol of the ingress port: TCP, UDP or SCTP."),
                              })
                              .meta({ description: "IngressPortStatus represents the error condition of a service port", required: ["port", "protocol"] }),
                            "api.networking.v1.IngressPortStatus",
                          ),
                        ),
                        "atomic",
                      )
                        .optional()
                        .describe("Information about the ports exposed by this LoadBalancer."),
                    })
                    .meta({ description: "IngressLoadBalancerIngress represents the status of a load-balancer ingress point." }),
                  "api.networking.v1.IngressLoadBalancerIngress",
                ),
              ),
              "atomic",
            )
              .optional()
              .describe("A list containing ingress points for the load-balancer."),
          })
          .meta({ description: "IngressLoadBalancerStatus represents the status of a load-balancer." }),
        "api.networking.v1.IngressLoadBalancerStatus",
      )
        .optional()
        .describe("The current state of the load-balancer."),
    })
    .meta({ description: "IngressStatus describe the current state of the Ingress." }),
  "api.networking.v1.IngressStatus",
);

/** The zod schema of an Ingress in `networking/v1`. */
export const ingressV1Schema = kindSchema(
  {
    spec: ingressSpecSchema.optional().describe("Spec is the desired state of the Ingress."),
    status: ingressStatusSchema.optional().describe("Status is the current state of the Ingress."),
  },
  "Ingress is a collection of rules that allow inbound connections to reach the endpoints defined by a backend.",
);

/** The `pathType` values, sorted as the reference lists them. */
export const ingressPathTypes = ["Exact", "ImplementationSpecific", "Prefix"] as const;
const invalidPathSequences = ["//", "/./", "/../", "%2f", "%2F"];
const invalidPathSuffixes = ["/..", "/."];

/** The reference's `validateIngressBackend` for `backend` at `path`: a service (name, port) xor a resource. */
export function validateIngressBackend(backend: Record<string, unknown>, path: FieldPath): FieldError[] {
  const resource = record(backend["resource"]);
  const service = record(backend["service"]);
  if (resource && service) return [invalidField(path, "", "cannot set both resource and service backends")];
  if (resource) return validateTypedLocalObjectReference(resource, path.child("resource"));
  if (!service) return [invalidField(path, "", "resource or service backend is required")];
  const errors: FieldError[] = [];
  const name = str(service["name"]);
  const servicePath = path.child("service");
  if (name === "") errors.push(requiredField(servicePath.child("name")));
  else errors.push(...validateDNS1123Label(name, servicePath.child("name")));
  const port = record(service["port"]) ?? {};
  const portName = str(port["name"]);
  const portNumber = typeof port["number"] === "number" ? port["number"] : 0;
  if (portName !== "" && portNumber !== 0) errors.push(invalidField(path, "", "cannot set both port name & port number"));
  else if (portName !== "") for (const m of portNameMessages(portName)) errors.push(invalidField(servicePath.child("port").child("name"), portName, m));
  else if (portNumber !== 0) errors.push(...validatePortNumber(portNumber, servicePath.child("port").child("number")));
  else errors.push(requiredField(path, "port name or number is required"));
  return errors;
}

function validateIngressPath(p: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const pathType = p["pathType"];
  const value = str(p["path"]);
  if (typeof pathType !== "string") return [requiredField(path.child("pathType"), "pathType must be specified")];
  if (pathType === "Exact" || pathType === "Prefix") {
    if (!value.startsWith("/")) errors.push(invalidField(path.child("path"), value, "must be an absolute path"));
    for (const seq of invalidPathSequences) if (value.includes(seq)) errors.push(invalidField(path.child("path"), value, `must not contain '${seq}'`));
    for (const suffix of invalidPathSuffixes) if (value.endsWith(suffix)) errors.push(invalidField(path.child("path"), value, `cannot end with '${suffix}'`));
  } else if (pathType === "ImplementationSpecific") {
    if (value !== "" && !value.startsWith("/")) errors.push(invalidField(path.child("path"), value, "must be an absolute path"));
  } else errors.push(notSupportedField(path.child("pathType"), pathType, ingressPathTypes));
  errors.push(...validateIngressBackend(record(p["backend"]) ?? {}, path.child("backend")));
  return errors;
}

/** The legacy annotation that named an Ingress's class before `spec.ingressClassName`. */
export const ingressClassAnnotation = "kubernetes.io/ingress.class";

/**
 * The Ingress rules: `rules` or `defaultBackend`; the default backend; each rule's host (a DNS
 * name or `*.` wildcard, not an IP) and its HTTP paths; TLS hosts and secret names;
 * `ingressClassName` a DNS subdomain, agreeing with the `kubernetes.io/ingress.class`
 * annotation when both are set.
 */
export function validateIngress(object: APIObject): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const errors: FieldError[] = [];
  const rules = records(spec["rules"]);
  const defaultBackend = record(spec["defaultBackend"]);
  if (rules.length === 0 && !defaultBackend) errors.push(invalidField(path, spec["rules"] ?? null, "either `defaultBackend` or `rules` must be specified"));
  if (defaultBackend) errors.push(...validateIngressBackend(defaultBackend, path.child("defaultBackend")));
  rules.forEach((rule, i) => {
    const at = path.child("rules").index(i);
    const host = str(rule["host"]);
    if (host !== "") {
      if (parseIP(host)) errors.push(invalidField(at.child("host"), host, "must be a DNS name, not an IP address"));
      errors.push(...validateIngressHost(host, at.child("host")));
    }
    const http = record(rule["http"]);
    if (http) {
      const paths = records(http["paths"]);
      if (paths.length === 0) errors.push(requiredField(at.child("http").child("paths")));
      paths.forEach((p, j) => errors.push(...validateIngressPath(p, at.child("http").child("paths").index(j))));
    }
  });
  records(spec["tls"]).forEach((tls, i) => {
    const at = path.child("tls").index(i);
    list(tls["hosts"]).forEach((h, j) => errors.push(...validateIngressHost(str(h), at.child("hosts").index(j))));
    const secret = str(tls["secretName"]);
    if (secret !== "") errors.push(...validateDNS1123Subdomain(secret, at.child("secretName")));
  });
  const className = spec["ingressClassName"];
  if (typeof className === "string") errors.push(...validateDNS1123Subdomain(className, path.child("ingressClassName")));
  const annotation = object.metadata?.annotations?.[ingressClassAnnotation];
  if (annotation !== undefined && typeof className === "string" && annotation !== className) {
    errors.push(invalidField(`annotations.${ingressClassAnnotation}`, annotation, "must match `ingressClassName` when both are specified"));
  }
  return errors;
}

/**
 * The rules of a write to an Ingress's `/status`: each load-balancer ingress point's `ip` an IP
 * address and `hostname` a DNS name that is not an IP.
 */
export function validateIngressStatus(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root("status").child("loadBalancer").child("ingress");
  records(record(record(object["status"])?.["loadBalancer"])?.["ingress"]).forEach((point, i) => {
    const ip = str(point["ip"]);
    if (ip !== "" && !parseIP(ip)) errors.push(invalidField(path.index(i).child("ip"), ip, "must be a valid IP address"));
    const hostname = str(point["hostname"]);
    if (hostname !== "") {
      errors.push(...validateDNS1123Subdomain(hostname, path.index(i).child("hostname")));
      if (parseIP(hostname)) errors.push(invalidField(path.index(i).child("hostname"), hostname, "must be a DNS name, not an IP address"));
    }
  });
  return errors;
}

/** The HOSTS cell: up to three rule hosts, `*` without any, `+ N more...` beyond. */
export function ingressHostsCell(object: APIObject): string {
  const rules = records(record(object["spec"])?.["rules"]);
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === 3) more = true;
    const host = str(rule["host"]);
    if (!more && host !== "") hosts.push(host);
  }
  if (hosts.length === 0) return "*";
  return more ? `${hosts.join(",")} + ${rules.length - 3} more...` : hosts.join(",");
}

/** The ADDRESS cell: the load-balancer's IPs or hostnames, cut at 16 characters. */
export function ingressAddressCell(object: APIObject): string {
  const points = records(record(record(object["status"])?.["loadBalancer"])?.["ingress"]);
  const text = points
    .map((p) => str(p["ip"]) || str(p["hostname"]))
    .filter((a) => a !== "")
    .join(",");
  return text.length > 16 ? `${text.slice(0, 13)}...` : text;
}

/** The Ingress resource type. */
export const ingressType: ResourceType = {
  group: "networking.{domain}",
  resource: "ingresses",
  singular: "ingress",
  kind: "Ingress",
  scope: "Namespaced",
  shortNames: ["ing"],
  subresources: ["status"],
  versions: [{ name: "v1", schema: ingressV1Schema, storage: true }],
  strategy: {
    ...statusHooks(() => ({ loadBalancer: {} })),
    validate: (object) => validateIngress(object),
    validateStatusUpdate: (object) => validateIngressStatus(object),
    tableColumns: [
      {
        name: "Class",
        type: "string",
        description: "The name of the IngressClass cluster resource.",
        priority: 0,
        cell: (o) => {
          const c = record(o["spec"])?.["ingressClassName"];
          return typeof c === "string" ? c : "<none>";
        },
      },
      {
        name: "Hosts",
        type: "string",
        description: "Hosts that incoming requests are matched against before the ingress rule",
        priority: 0,
        cell: ingressHostsCell,
      },
      {
        name: "Address",
        type: "string",
        description: "Address is a list containing ingress points for the load-balancer",
        priority: 0,
        cell: ingressAddressCell,
      },
      {
        name: "Ports",
        type: "string",
        description: "Ports of TLS configurations that open",
        priority: 0,
        cell: (o) => (list(record(o["spec"])?.["tls"]).length > 0 ? "80, 443" : "80"),
      },
    ],
  },
};
