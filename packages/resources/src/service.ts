/**
 * Service (core `v1`, namespaced, short name `svc`, sub-resource `status`): a named set of
 * ports in front of the pods its selector matches. The server gives each one a cluster IP
 * (and node ports for `NodePort` and `LoadBalancer`), which then cannot change.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  forbiddenField,
  invalidField,
  listType,
  mapType,
  notSupportedField,
  patchStrategy,
  requiredField,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  validateLabels,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { jsonEqual, record, str } from "./internal/rules.js";
import { intOrString, list, validatePortNumber, validatePortNumOrName } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { int32, named, optionalString, stringMap, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ServicePort`. */
export const servicePortSchema = named(
  z
    .object({
      appProtocol: optionalString("The application protocol for this port."),
      name: optionalString("The name of this port within the service: a DNS label, required when there is more than one port."),
      nodePort: int32().optional().describe("The port on each node on which this service is exposed (NodePort, LoadBalancer)."),
      port: int32().optional().describe("The port that will be exposed by this service: 1 to 65535."),
      protocol: z.string().default("TCP").describe("TCP (default), UDP or SCTP."),
      targetPort: intOrString().optional().describe("Number or name of the port to access on the pods; defaults to port."),
    })
    .meta({ description: "ServicePort contains information on service's port.", required: ["port"] }),
  "api.core.v1.ServicePort",
);

/** `ServiceSpec`. */
export const serviceSpecSchema = named(
  z
    .object({
      allocateLoadBalancerNodePorts: z.boolean().optional().describe("Whether node ports are allocated for a LoadBalancer, default true."),
      clusterIP: optionalString("The IP address of the service, allocated by the server; None for a headless service. Immutable."),
      clusterIPs: listType(z.array(z.string()), "atomic").optional().describe("The IP addresses of the service; the first equals clusterIP."),
      externalIPs: listType(z.array(z.string()), "atomic").optional().describe("IP addresses for which nodes also accept traffic for this service."),
      externalName: optionalString("The external reference (a DNS name) returned as a CNAME record for ExternalName services."),
      externalTrafficPolicy: optionalString("Cluster (default for NodePort and LoadBalancer) or Local."),
      healthCheckNodePort: int32().optional().describe("The health check node port of a LoadBalancer with externalTrafficPolicy Local."),
      internalTrafficPolicy: optionalString("Cluster (default) or Local."),
      ipFamilies: listType(z.array(z.string()), "atomic").optional().describe("IPv4 and/or IPv6."),
      ipFamilyPolicy: optionalString("SingleStack, PreferDualStack or RequireDualStack."),
      loadBalancerClass: optionalString("The class of the load balancer implementation."),
      loadBalancerIP: optionalString("Deprecated: the requested IP of a LoadBalancer."),
      loadBalancerSourceRanges: listType(z.array(z.string()), "atomic").optional().describe("Client IP ranges allowed through a cloud load balancer."),
      ports: patchStrategy(listType(z.array(servicePortSchema), "map", ["port", "protocol"]), "merge", "port")
        .optional()
        .describe("The list of ports exposed by this service."),
      publishNotReadyAddresses: z.boolean().optional().describe("Publish addresses of pods that are not ready."),
      selector: mapType(stringMap(), "atomic").optional().describe("Route traffic to pods with labels matching this selector."),
      sessionAffinity: optionalString("ClientIP or None (default)."),
      sessionAffinityConfig: z
        .object({
          clientIP: z
            .object({ timeoutSeconds: int32().optional().describe("Seconds of ClientIP affinity: 1 to 86400, default 10800.") })
            .optional()
            .describe("Configurations of Client IP based session affinity."),
        })
        .optional()
        .describe("Configurations of session affinity."),
      trafficDistribution: optionalString("How traffic is distributed to service endpoints."),
      type: optionalString("ClusterIP (default), ExternalName, NodePort or LoadBalancer."),
    })
    .meta({ description: "ServiceSpec describes the attributes that a user creates on a service." }),
  "api.core.v1.ServiceSpec",
);

/** `ServiceStatus`. */
export const serviceStatusSchema = named(
  z
    .object({
      conditions: patchStrategy(
        listType(
          z.array(
            z
              .object({
                lastTransitionTime: time().optional(),
                message: optionalString("A human readable message."),
                observedGeneration: z.int().optional(),
                reason: optionalString("A CamelCase reason."),
                status: optionalString("True, False or Unknown."),
                type: optionalString("Type of condition."),
              })
              .meta({ required: ["type", "status", "lastTransitionTime", "reason", "message"] }),
          ),
          "map",
          ["type"],
        ),
        "merge",
        "type",
      )
        .optional()
        .describe("Current service state."),
      loadBalancer: z
        .object({
          ingress: listType(
            z.array(
              z.object({
                hostname: optionalString("Hostname of a DNS-based load-balancer ingress point."),
                ip: optionalString("IP of an IP-based load-balancer ingress point."),
                ipMode: optionalString("VIP or Proxy."),
                ports: listType(
                  z.array(
                    z
                      .object({
                        error: optionalString("The problem with this service port, in CamelCase, when there is one."),
                        port: int32().optional().describe("The port number of the service port."),
                        protocol: optionalString("TCP, UDP or SCTP."),
                      })
                      .meta({ description: "PortStatus represents the error condition of a service port", required: ["port", "protocol"] }),
                  ),
                  "atomic",
                )
                  .optional()
                  .describe("The ports of the load-balancer ingress point."),
              }),
            ),
            "atomic",
          )
            .optional()
            .describe("Ingress points of the load-balancer."),
        })
        .optional()
        .describe("The current status of the load-balancer, if one is present."),
    })
    .meta({ description: "ServiceStatus represents the current status of a service." }),
  "api.core.v1.ServiceStatus",
);

/** The zod schema of a Service in `v1`. */
export const serviceV1Schema = kindSchema(
  {
    spec: serviceSpecSchema.optional().describe("Spec defines the behavior of a service."),
    status: serviceStatusSchema.optional().describe("Most recently observed status of the service."),
  },
  "Service is a named abstraction of software service consisting of a local port that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
);

/** The service types. */
export const serviceTypes = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"] as const;
/** The lowest and highest node port the server allocates. */
export const nodePortRange = { min: 30000, max: 32767 } as const;

function spec(object: APIObject): Record<string, unknown> {
  const s = record(object["spec"]);
  if (s) return s;
  const fresh: Record<string, unknown> = {};
  object["spec"] = fresh;
  return fresh;
}

function setDefault(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === undefined) target[key] = value;
}

/**
 * The reference's Service defaults, in place: `type` ClusterIP, `sessionAffinity` None (with
 * ClientIP, `sessionAffinityConfig.clientIP.timeoutSeconds` 10800), per port `protocol` TCP and
 * `targetPort` = `port`; `externalTrafficPolicy` Cluster for NodePort and LoadBalancer,
 * `internalTrafficPolicy` Cluster, `allocateLoadBalancerNodePorts` true for LoadBalancer;
 * `clusterIPs` from `clusterIP`.
 */
export function defaultService(object: APIObject): void {
  const s = spec(object);
  setDefault(s, "type", "ClusterIP");
  setDefault(s, "sessionAffinity", "None");
  if (s["sessionAffinity"] === "ClientIP") {
    const config = record(s["sessionAffinityConfig"]) ?? {};
    const clientIP = record(config["clientIP"]) ?? {};
    setDefault(clientIP, "timeoutSeconds", 10800);
    config["clientIP"] = clientIP;
    s["sessionAffinityConfig"] = config;
  }
  for (const p of list(s["ports"])) {
    const port = record(p);
    if (!port) continue;
    setDefault(port, "protocol", "TCP");
    if (port["targetPort"] === undefined || port["targetPort"] === 0 || port["targetPort"] === "") port["targetPort"] = port["port"];
  }
  const type = s["type"];
  if (type === "NodePort" || type === "LoadBalancer") setDefault(s, "externalTrafficPolicy", "Cluster");
  if (type !== "ExternalName") setDefault(s, "internalTrafficPolicy", "Cluster");
  if (type === "LoadBalancer") setDefault(s, "allocateLoadBalancerNodePorts", true);
  const clusterIP = str(s["clusterIP"]);
  if (clusterIP !== "" && list(s["clusterIPs"]).length === 0) s["clusterIPs"] = [clusterIP];
  if (clusterIP === "" && list(s["clusterIPs"]).length > 0) s["clusterIP"] = str(list(s["clusterIPs"])[0]);
}

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * The cluster IP the server gives a service that asks for none: an address of 10.96.0.0/12
 * derived from its namespace, name and uid (stable, not guaranteed unique: the reference keeps
 * an allocation bitmap, this catalog does not).
 */
export function allocateClusterIP(object: APIObject): string {
  const key = `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}/${object.metadata?.uid ?? ""}`;
  const offset = (hash(key) % ((1 << 20) - 2)) + 1;
  const ip = (10 << 24) | (96 << 16) | offset;
  return [(ip >>> 24) & 255, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join(".");
}

function allocateNodePort(object: APIObject, index: number, taken: Set<number>): number {
  const span = nodePortRange.max - nodePortRange.min + 1;
  let port = nodePortRange.min + (hash(`${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}/${index}`) % span);
  while (taken.has(port)) port = port === nodePortRange.max ? nodePortRange.min : port + 1;
  taken.add(port);
  return port;
}

function allocate(object: APIObject): void {
  const s = spec(object);
  const type = s["type"];
  if (type === "ExternalName") return;
  if (str(s["clusterIP"]) === "") {
    const ip = allocateClusterIP(object);
    s["clusterIP"] = ip;
    s["clusterIPs"] = [ip];
  }
  if (s["clusterIP"] !== "None") {
    setDefault(s, "ipFamilies", ["IPv4"]);
    setDefault(s, "ipFamilyPolicy", "SingleStack");
  } else setDefault(s, "ipFamilyPolicy", "SingleStack");
  if (type === "NodePort" || (type === "LoadBalancer" && s["allocateLoadBalancerNodePorts"] !== false)) {
    const ports = list(s["ports"]).map((p) => record(p) ?? {});
    const taken = new Set(ports.map((p) => p["nodePort"]).filter((n): n is number => typeof n === "number" && n !== 0));
    ports.forEach((p, i) => {
      if (p["nodePort"] === undefined || p["nodePort"] === 0) p["nodePort"] = allocateNodePort(object, i, taken);
    });
  }
}

function prepareForCreate(object: APIObject): void {
  // A new Service's status is the empty one, which the reference writes out as this.
  object["status"] = { loadBalancer: {} };
  allocate(object);
}

function portKey(p: Record<string, unknown>): string {
  return `${String(p["port"])}/${str(p["protocol"]) || "TCP"}`;
}

function prepareForUpdate(object: APIObject, old: APIObject): void {
  if (old["status"] !== undefined) object["status"] = structuredClone(old["status"]);
  else delete object["status"];
  const s = spec(object);
  const o = record(old["spec"]) ?? {};
  // As the reference's REST update: allocated values the request leaves out are kept.
  if (s["type"] !== "ExternalName" && o["type"] !== "ExternalName") {
    if (str(s["clusterIP"]) === "" && list(s["clusterIPs"]).length === 0 && o["clusterIP"] !== undefined) {
      s["clusterIP"] = o["clusterIP"];
      if (o["clusterIPs"] !== undefined) s["clusterIPs"] = structuredClone(o["clusterIPs"]);
    } else if (str(s["clusterIP"]) !== str(o["clusterIP"]) && jsonEqual(s["clusterIPs"], o["clusterIPs"]) && str(s["clusterIP"]) !== "") {
      s["clusterIPs"] = [s["clusterIP"], ...list(o["clusterIPs"]).slice(1)];
    }
    for (const k of ["ipFamilies", "ipFamilyPolicy"]) if (s[k] === undefined && o[k] !== undefined) s[k] = structuredClone(o[k]);
    const oldPorts = new Map(list(o["ports"]).map((p) => [portKey(record(p) ?? {}), record(p) ?? {}]));
    for (const p of list(s["ports"])) {
      const port = record(p);
      const before = port && oldPorts.get(portKey(port));
      if (port && before && (port["nodePort"] === undefined || port["nodePort"] === 0) && before["nodePort"] !== undefined) {
        if (s["type"] === "NodePort" || s["type"] === "LoadBalancer") port["nodePort"] = before["nodePort"];
      }
    }
  }
  if (s["type"] === "NodePort" || s["type"] === "LoadBalancer") allocate(object);
  if (s["type"] !== "ExternalName" && str(s["clusterIP"]) === "") allocate(object);
}

function prepareForStatusUpdate(object: APIObject, old: APIObject): void {
  if (old["spec"] !== undefined) object["spec"] = structuredClone(old["spec"]);
  else delete object["spec"];
}

function isIP(text: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255 && !/^0\d/.test(o));
  if (!text.includes(":") || !/^[0-9a-fA-F:.]+$/.test(text)) return false;
  const double = text.split("::").length - 1;
  if (double > 1) return false;
  const groups = text.split(":").filter((g) => g !== "");
  return groups.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g)) && (double === 1 ? groups.length < 8 : groups.length === 8);
}

const ipMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const protocols = ["SCTP", "TCP", "UDP"];

/**
 * The Service rules beyond metadata (pair with `validateObjectMeta`), for create and update
 * alike, as the reference's `ValidateService`: `type` supported; ports required unless
 * headless or ExternalName; each port's name a DNS label, required and unique when there is
 * more than one; `port` 1-65535; `protocol` supported; `targetPort` a port number or name; no
 * two ports with the same port and protocol; no `nodePort` for ClusterIP, in range otherwise;
 * `sessionAffinity` supported and its timeout within 1-86400; selector labels; `clusterIPs`
 * IPs (or None) starting with `clusterIP`; ExternalName services have a DNS `externalName` and no
 * cluster IP; `externalTrafficPolicy` only for NodePort and LoadBalancer.
 */
export function validateService(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const s = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const type = str(s["type"]);
  const clusterIP = str(s["clusterIP"]);
  const headless = clusterIP === "None";
  const ports = list(s["ports"]).map((p) => record(p) ?? {});
  if (!(serviceTypes as readonly string[]).includes(type)) errors.push(notSupportedField(path.child("type"), type, serviceTypes));
  if (type === "ExternalName") {
    if (list(s["clusterIPs"]).length > 0 || (clusterIP !== "" && !headless))
      errors.push(forbiddenField(path.child("clusterIPs"), "may not be set for ExternalName services"));
    const cname = str(s["externalName"]).replace(/\.$/, "");
    if (cname === "") errors.push(requiredField(path.child("externalName")));
    else errors.push(...validateDNS1123Subdomain(cname, path.child("externalName")));
  } else if (ports.length === 0 && !headless) {
    errors.push(requiredField(path.child("ports")));
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const at = path.child("ports").index(i);
    const name = str(p["name"]);
    if (ports.length > 1 && name === "") errors.push(requiredField(at.child("name")));
    else if (name !== "") {
      errors.push(...validateDNS1123Label(name, at.child("name")));
      if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
      names.add(name);
    }
    errors.push(...validatePortNumber(p["port"], at.child("port")));
    const protocol = str(p["protocol"]);
    if (protocol === "") errors.push(requiredField(at.child("protocol")));
    else if (!protocols.includes(protocol)) errors.push(notSupportedField(at.child("protocol"), protocol, protocols));
    errors.push(...validatePortNumOrName(p["targetPort"], at.child("targetPort")));
    const nodePort = p["nodePort"];
    if (typeof nodePort === "number" && nodePort !== 0) {
      if (type === "ClusterIP") errors.push(forbiddenField(at.child("nodePort"), "may not be used when `type` is 'ClusterIP'"));
      else if (nodePort < nodePortRange.min || nodePort > nodePortRange.max) {
        errors.push(
          invalidField(
            at.child("nodePort"),
            nodePort,
            `provided port is not in the valid range. The range of valid ports is ${nodePortRange.min}-${nodePortRange.max}`,
          ),
        );
      } else {
        const nk = `${nodePort}/${protocol}`;
        if (nodePorts.has(nk)) errors.push(duplicateField(at.child("nodePort"), nodePort));
        nodePorts.add(nk);
      }
    }
  });
  ports.forEach((p, i) => {
    const key = `${String(p["port"])}/${str(p["protocol"])}`;
    if (keys.has(key)) errors.push(duplicateField(path.child("ports").index(i), { port: p["port"], protocol: p["protocol"] }));
    keys.add(key);
  });
  const affinity = str(s["sessionAffinity"]);
  if (affinity !== "ClientIP" && affinity !== "None") errors.push(notSupportedField(path.child("sessionAffinity"), affinity, ["ClientIP", "None"]));
  const config = record(s["sessionAffinityConfig"]);
  if (affinity === "ClientIP") {
    const timeout = record(config?.["clientIP"])?.["timeoutSeconds"];
    if (typeof timeout === "number" && (timeout <= 0 || timeout > 86400)) {
      errors.push(
        invalidField(path.child("sessionAffinityConfig").child("clientIP").child("timeoutSeconds"), timeout, "must be greater than 0 and less than 86400"),
      );
    }
  } else if (affinity === "None" && config && Object.keys(config).length) {
    errors.push(invalidField(path.child("sessionAffinityConfig"), config, "must not be set when session affinity is None"));
  }
  if (type !== "ExternalName") {
    const selector = record(s["selector"]);
    if (selector) errors.push(...validateLabels(selector as Record<string, string>, path.child("selector")));
  }
  const ips = list(s["clusterIPs"]).map((ip) => str(ip));
  if (type !== "ExternalName") {
    ips.forEach((ip, i) => {
      if (ip === "None") {
        if (i > 0 || ips.length > 1) errors.push(invalidField(path.child("clusterIPs").index(i), ip, "'None' must be the first and only value"));
      } else if (!isIP(ip)) errors.push(invalidField(path.child("clusterIPs").index(i), ip, ipMessage));
    });
    if (ips.length > 0 && ips[0] !== clusterIP) errors.push(invalidField(path.child("clusterIPs"), ips, "must match `clusterIP` at index 0"));
    if (ips.length === 0 && clusterIP !== "" && !headless && !isIP(clusterIP)) errors.push(invalidField(path.child("clusterIP"), clusterIP, ipMessage));
  }
  list(s["externalIPs"]).forEach((ip, i) => {
    if (!isIP(str(ip))) errors.push(invalidField(path.child("externalIPs").index(i), ip, ipMessage));
  });
  const etp = s["externalTrafficPolicy"];
  if (etp !== undefined && etp !== "") {
    if (type !== "NodePort" && type !== "LoadBalancer") {
      errors.push(invalidField(path.child("externalTrafficPolicy"), etp, "may only be set when `type` is 'NodePort' or 'LoadBalancer'"));
    } else if (etp !== "Cluster" && etp !== "Local") errors.push(notSupportedField(path.child("externalTrafficPolicy"), etp, ["Cluster", "Local"]));
  }
  const itp = s["internalTrafficPolicy"];
  if (itp !== undefined && itp !== "Cluster" && itp !== "Local") errors.push(notSupportedField(path.child("internalTrafficPolicy"), itp, ["Cluster", "Local"]));
  const policy = s["ipFamilyPolicy"];
  const policies = ["PreferDualStack", "RequireDualStack", "SingleStack"];
  if (policy !== undefined && !policies.includes(str(policy))) errors.push(notSupportedField(path.child("ipFamilyPolicy"), policy, policies));
  list(s["ipFamilies"]).forEach((f, i) => {
    if (f !== "IPv4" && f !== "IPv6") errors.push(notSupportedField(path.child("ipFamilies").index(i), f, ["IPv4", "IPv6"]));
  });
  return errors;
}

/**
 * The Service rules an update adds: the primary cluster IP may not change
 * (`spec.clusterIPs[0]: may not change once set`) unless the service moves to or from
 * ExternalName.
 */
export function validateServiceUpdate(object: APIObject, old: APIObject): FieldError[] {
  const s = record(object["spec"]) ?? {};
  const o = record(old["spec"]) ?? {};
  if (s["type"] === "ExternalName" || o["type"] === "ExternalName") return [];
  const before = list(o["clusterIPs"]).map((ip) => str(ip));
  const after = list(s["clusterIPs"]).map((ip) => str(ip));
  const oldPrimary = before[0] ?? str(o["clusterIP"]);
  const newPrimary = after[0] ?? str(s["clusterIP"]);
  if (oldPrimary !== "" && oldPrimary !== newPrimary) {
    return [invalidField(FieldPath.root("spec").child("clusterIPs").index(0), after, "may not change once set")];
  }
  return [];
}

/** The EXTERNAL-IP cell as kubectl prints it. */
export function serviceExternalIP(object: APIObject): string {
  const s = record(object["spec"]) ?? {};
  const external = list(s["externalIPs"]).map((ip) => str(ip));
  switch (s["type"]) {
    case "ExternalName":
      return str(s["externalName"]);
    case "LoadBalancer": {
      const ingress = list(record(record(object["status"])?.["loadBalancer"])?.["ingress"]).map((i) => str(record(i)?.["ip"]) || str(record(i)?.["hostname"]));
      const all = [...ingress.filter((x) => x !== ""), ...external];
      return all.length ? all.join(",") : "<pending>";
    }
    default:
      return external.length ? external.join(",") : "<none>";
  }
}

/** The PORT(S) cell: `80/TCP`, `80:30080/TCP`, comma-separated, `<none>` without ports. */
export function servicePorts(object: APIObject): string {
  const ports = list(record(object["spec"])?.["ports"]).map((p) => record(p) ?? {});
  if (ports.length === 0) return "<none>";
  return ports
    .map((p) => {
      const nodePort = p["nodePort"];
      const protocol = str(p["protocol"]) || "TCP";
      return typeof nodePort === "number" && nodePort !== 0 ? `${String(p["port"])}:${nodePort}/${protocol}` : `${String(p["port"])}/${protocol}`;
    })
    .join(",");
}

function selectorCell(object: APIObject): string {
  const selector = record(record(object["spec"])?.["selector"]) ?? {};
  const entries = Object.entries(selector).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? entries.map(([k, v]) => `${k}=${str(v)}`).join(",") : "<none>";
}

/** The Service resource type. */
export const serviceType: ResourceType = {
  group: "",
  resource: "services",
  singular: "service",
  kind: "Service",
  shortNames: ["svc"],
  categories: ["all"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: serviceV1Schema, storage: true }],
  subresources: ["status"],
  strategy: {
    defaults: (object) => defaultService(object),
    prepareForCreate,
    prepareForUpdate,
    prepareForStatusUpdate,
    deleteReturnsObject: true,
    validate: (object) => validateService(object),
    validateUpdate: (object, old) => validateServiceUpdate(object, old),
    validateStatusUpdate: () => [],
    selectableFields: (object) => {
      const s = record(object["spec"]) ?? {};
      return { "spec.clusterIP": str(s["clusterIP"]), "spec.type": str(s["type"]) };
    },
    selectableFieldNames: ["spec.clusterIP", "spec.type"],
    tableColumns: [
      { name: "Type", type: "string", description: "The type of the service.", priority: 0, cell: (o) => str(record(o["spec"])?.["type"]) },
      {
        name: "Cluster-IP",
        type: "string",
        description: "The IP address of the service.",
        priority: 0,
        cell: (o) => str(record(o["spec"])?.["clusterIP"]) || "<none>",
      },
      { name: "External-IP", type: "string", description: "The external IP addresses of the service.", priority: 0, cell: serviceExternalIP },
      { name: "Port(s)", type: "string", description: "The ports of the service.", priority: 0, cell: servicePorts },
      { name: "Selector", type: "string", description: "The selector of the service.", priority: 1, cell: selectorCell },
    ],
  },
};
