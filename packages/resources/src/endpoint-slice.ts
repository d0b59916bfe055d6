/**
 * EndpointSlice (`discovery.<domain>/v1`, namespaced): a slice of the endpoints of a Service. The
 * reference's default (each port's protocol TCP), its validation (a supported, immutable
 * `addressType`; at most 1000 endpoints, each with 1 to 100 addresses in the format of the
 * address type, a node name, a DNS-label hostname and zone hints; at most 20000 ports with
 * distinct DNS-label names, a supported protocol and a qualified-name `appProtocol`), kubectl's
 * columns (ADDRESSTYPE, PORTS, ENDPOINTS), and the names of the labels the endpointslice
 * controller sets.
 * @module
 */
import {
  FieldPath,
  duplicateField,
  invalidField,
  listType,
  notSupportedField,
  requiredField,
  tooManyField,
  validateDNS1123Label,
  validateLabels,
  validateLabelValue,
  validateQualifiedName,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { dns1123LabelProblems, dns1123SubdomainProblems } from "./internal/access-rules.js";
import { parseIP } from "./internal/networking-common.js";
import { record, records, str, strings } from "./internal/rules.js";
import { workloadObjectReferenceSchema } from "./internal/workloads-common.js";
import { specialIPMessages } from "./endpoints.js";
import type { ResourceType } from "./resource-type.js";
import { int32, named, optionalBoolean, optionalString, stringMap } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ForZone`. */
const forZoneSchema = named(
  z.object({ name: optionalString("name represents the name of the zone.") }).meta({
    description: "ForZone provides information about which zones should consume this endpoint.",
    required: ["name"],
  }),
  "api.discovery.v1.ForZone",
);

/** `ForNode`. */
const forNodeSchema = named(
  z.object({ name: optionalString("name represents the name of the node.") }).meta({
    description: "ForNode provides information about which nodes should consume this endpoint.",
    required: ["name"],
  }),
  "api.discovery.v1.ForNode",
);

/** `EndpointHints`. */
const endpointHintsSchema = named(
  z
    .object({
      forNodes: listType(z.array(forNodeSchema), "atomic").optional().describe("forNodes indicates the node(s) this endpoint should be consumed by."),
      forZones: listType(z.array(forZoneSchema), "atomic").optional().describe("forZones indicates the zone(s) this endpoint should be consumed by."),
    })
    .meta({ description: "EndpointHints provides hints describing how an endpoint should be consumed." }),
  "api.discovery.v1.EndpointHints",
);

/** `EndpointConditions`. */
const endpointConditionsSchema = named(
  z
    .object({
      ready: optionalBoolean("ready indicates that this endpoint is ready to receive traffic."),
      serving: optionalBoolean("serving indicates that this endpoint is able to receive traffic, whether terminating or not."),
      terminating: optionalBoolean("terminating indicates that this endpoint is terminating."),
    })
    .meta({ description: "EndpointConditions represents the current condition of an endpoint." }),
  "api.discovery.v1.EndpointConditions",
);

/** `Endpoint`. */
const endpointSchema = named(
  z
    .object({
      addresses: listType(z.array(z.string()), "set").optional().describe("addresses of this endpoint, interpreted by the slice's addressType."),
      conditions: endpointConditionsSchema.optional().describe("conditions contains information about the current status of the endpoint."),
      deprecatedTopology: stringMap().optional().describe("deprecatedTopology contains topology information part of the v1beta1 API."),
      hints: endpointHintsSchema.optional().describe("hints contains information associated with how an endpoint should be consumed."),
      hostname: optionalString("hostname of this endpoint."),
      nodeName: optionalString("nodeName represents the name of the Node hosting this endpoint."),
      targetRef: workloadObjectReferenceSchema.optional().describe("targetRef is a reference to a Kubernetes object that represents this endpoint."),
      zone: optionalString("zone is the name of the Zone this endpoint exists in."),
    })
    .meta({ description: "Endpoint represents a single logical backend implementing a service.", required: ["addresses"] }),
  "api.discovery.v1.Endpoint",
);

/** `EndpointPort` of discovery `v1`. */
const endpointSlicePortSchema = named(
  z
    .object({
      appProtocol: optionalString("The application protocol for this port."),
      name: optionalString("name represents the name of this port; empty or a DNS label, unique within the slice."),
      port: int32().optional().describe("port represents the port number of the endpoint; unset means all ports."),
      protocol: optionalString("protocol represents the IP protocol for this port: TCP, UDP, or SCTP. Default is TCP."),
    })
    .meta({ description: "EndpointPort represents a Port used by an EndpointSlice" }),
  "api.discovery.v1.EndpointPort",
);

/** The zod schema of an EndpointSlice in `v1`. */
export const endpointSliceV1Schema = kindSchema(
  {
    addressType: optionalString("addressType specifies the type of address carried by this EndpointSlice: IPv4, IPv6 or FQDN. Immutable."),
    endpoints: listType(z.array(endpointSchema), "atomic").optional().describe("endpoints is a list of unique endpoints in this slice (at most 1000)."),
    ports: listType(z.array(endpointSlicePortSchema), "atomic")
      .optional()
      .describe("ports specifies the list of network ports exposed by each endpoint in this slice."),
  },
  "EndpointSlice represents a subset of the endpoints that implement a service.",
).meta({ required: ["addressType", "endpoints"] });

/** The address types a new EndpointSlice may have. */
export const endpointSliceAddressTypes = ["FQDN", "IPv4", "IPv6"] as const;

const protocols = ["SCTP", "TCP", "UDP"];
const maxAddresses = 100;
const maxPorts = 20000;
const maxEndpoints = 1000;
const maxTopologyLabels = 16;
const maxZoneHints = 8;

function labelDomainOf(domain: string): string {
  return domain === "k8s.io" ? "kubernetes.io" : domain;
}

/**
 * The label naming the Service of an EndpointSlice: `<d>/service-name`, where `<d>` is
 * `kubernetes.io` under `k8s.io` and the domain otherwise (`orch.io/service-name`).
 */
export function serviceNameLabel(domain: string): string {
  return `${labelDomainOf(domain)}/service-name`;
}

/** The label naming who manages an EndpointSlice: `endpointslice.<d>/managed-by` (`endpointslice.kubernetes.io/managed-by` under `k8s.io`). */
export function endpointSliceManagedByLabel(domain: string): string {
  return `endpointslice.${labelDomainOf(domain)}/managed-by`;
}

/** The value of {@link endpointSliceManagedByLabel} on the endpointslice controller's slices: `endpointslice-controller.<domain>`. */
export function endpointSliceControllerName(domain: string): string {
  return `endpointslice-controller.${domain}`;
}

/** The reference's EndpointSlice defaults: each port's `name` empty and `protocol` TCP. */
export function defaultEndpointSlice(object: APIObject): void {
  for (const port of records(object["ports"])) {
    if (port["name"] === undefined || port["name"] === null) port["name"] = "";
    if (port["protocol"] === undefined || port["protocol"] === null) port["protocol"] = "TCP";
  }
}

/** The reference's `IsFullyQualifiedDomainName`: a DNS subdomain of at least two labels (a trailing dot allowed). */
function validateFQDN(value: string, path: FieldPath): FieldError[] {
  if (value === "") return [requiredField(path)];
  const name = value.endsWith(".") ? value.slice(0, -1) : value;
  const problems = dns1123SubdomainProblems(name);
  if (problems.length > 0) return [invalidField(path, name, problems.join(","))];
  const labels = name.split(".");
  if (labels.length < 2) return [invalidField(path, name, "should be a domain with at least two segments separated by dots")];
  for (const label of labels) {
    const labelProblems = dns1123LabelProblems(label);
    if (labelProblems.length > 0) return [invalidField(path, label, labelProblems.join(","))];
  }
  return [];
}

function validateAddress(address: string, addressType: string, path: FieldPath): FieldError[] {
  if (addressType === "FQDN") return validateFQDN(address, path);
  if (addressType !== "IPv4" && addressType !== "IPv6") return [];
  const family = addressType === "IPv4" ? 4 : 6;
  const ip = parseIP(address);
  const errors: FieldError[] = [];
  if (!ip || ip.family !== family) errors.push(invalidField(path, address, `must be a valid ${addressType} address`));
  for (const m of specialIPMessages(address)) errors.push(invalidField(path, address, m));
  return errors;
}

function validateHints(hints: Record<string, unknown>, path: FieldPath): FieldError[] {
  const zonesPath = path.child("forZones");
  const zones = records(hints["forZones"]);
  if (zones.length > maxZoneHints) return [tooManyField(zonesPath, zones.length, maxZoneHints)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  zones.forEach((zone, i) => {
    const at = zonesPath.index(i).child("name");
    const name = str(zone["name"]);
    if (seen.has(name)) errors.push(duplicateField(at, name));
    else seen.add(name);
    errors.push(...validateLabelValue(name, at));
  });
  return errors;
}

function validateEndpoint(endpoint: Record<string, unknown>, addressType: string, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const addressPath = path.child("addresses");
  const addresses = strings(endpoint["addresses"]);
  if (addresses.length === 0) errors.push(requiredField(addressPath, "must contain at least 1 address"));
  else if (addresses.length > maxAddresses) errors.push(tooManyField(addressPath, addresses.length, maxAddresses));
  addresses.forEach((address, i) => errors.push(...validateAddress(address, addressType, addressPath.index(i))));
  if (typeof endpoint["nodeName"] === "string") {
    const nodeName = endpoint["nodeName"];
    for (const m of dns1123SubdomainProblems(nodeName)) errors.push(invalidField(path.child("nodeName"), nodeName, m));
  }
  const topology = record(endpoint["deprecatedTopology"]);
  if (topology) {
    const topologyPath = path.child("deprecatedTopology");
    const count = Object.keys(topology).length;
    if (count > maxTopologyLabels) errors.push(tooManyField(topologyPath, count, maxTopologyLabels));
    errors.push(...validateLabels(topology as Record<string, string>, topologyPath));
  }
  if (typeof endpoint["hostname"] === "string") errors.push(...validateDNS1123Label(endpoint["hostname"], path.child("hostname")));
  const hints = record(endpoint["hints"]);
  if (hints) errors.push(...validateHints(hints, path.child("hints")));
  return errors;
}

function validatePorts(ports: Record<string, unknown>[]): FieldError[] {
  const path = FieldPath.root("ports");
  if (ports.length > maxPorts) return [tooManyField(path, ports.length, maxPorts)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = path.index(i);
    const name = str(port["name"]);
    if (name !== "") errors.push(...validateDNS1123Label(name, at.child("name")));
    if (names.has(name)) errors.push(duplicateField(at.child("name"), name));
    else names.add(name);
    const protocol = port["protocol"];
    if (typeof protocol !== "string") errors.push(requiredField(at.child("protocol")));
    else if (!protocols.includes(protocol)) errors.push(notSupportedField(at.child("protocol"), protocol, protocols));
    if (typeof port["appProtocol"] === "string") errors.push(...validateQualifiedName(port["appProtocol"], at.child("appProtocol")));
  });
  return errors;
}

/**
 * The EndpointSlice rules beyond metadata (pair with `validateObjectMeta`): a supported
 * `addressType`; at most 1000 endpoints, each with 1 to 100 addresses valid for the address
 * type (IPv4 or IPv6 and not unspecified, loopback or link-local; an FQDN), a DNS-subdomain
 * `nodeName`, at most 16 valid topology labels, a DNS-label `hostname` and at most 8 distinct
 * zone hints; at most 20000 ports, each with a valid name, protocol and port.
 */
export function validateEndpointSlice(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const addressType = str(object["addressType"]);
  if (addressType === "") errors.push(requiredField("addressType"));
  else if (!(endpointSliceAddressTypes as readonly string[]).includes(addressType)) {
    errors.push(notSupportedField("addressType", addressType, endpointSliceAddressTypes));
  }
  const endpoints = records(object["endpoints"]);
  const endpointsPath = FieldPath.root("endpoints");
  if (endpoints.length > maxEndpoints) errors.push(tooManyField(endpointsPath, endpoints.length, maxEndpoints));
  else endpoints.forEach((endpoint, i) => errors.push(...validateEndpoint(endpoint, addressType, endpointsPath.index(i))));
  errors.push(...validatePorts(records(object["ports"])));
  return errors;
}

/** The EndpointSlice update rule beyond {@link validateEndpointSlice}: `addressType` is immutable. */
export function validateEndpointSliceUpdate(object: APIObject, old: APIObject): FieldError[] {
  const now = str(object["addressType"]);
  return now === str(old["addressType"]) ? [] : [invalidField("addressType", now, "field is immutable")];
}

/** The reference's `listWithMoreString`: up to three items, `+ N more...` beyond, `<unset>` for none. */
function listWithMore(items: string[]): string {
  if (items.length === 0) return "<unset>";
  return items.length > 3 ? `${items.slice(0, 3).join(",")} + ${items.length - 3} more...` : items.join(",");
}

/** The PORTS cell: each port's number (its name without one, `*` without either). */
export function endpointSlicePortsCell(object: APIObject): string {
  return listWithMore(
    records(object["ports"]).map((p) => (typeof p["port"] === "number" ? String(p["port"]) : typeof p["name"] === "string" ? p["name"] : "*")),
  );
}

/** The ENDPOINTS cell: every endpoint's addresses. */
export function endpointSliceEndpointsCell(object: APIObject): string {
  return listWithMore(records(object["endpoints"]).flatMap((e) => strings(e["addresses"])));
}

/** The EndpointSlice resource type. */
export const endpointSliceType: ResourceType = {
  group: "discovery.{domain}",
  resource: "endpointslices",
  singular: "endpointslice",
  kind: "EndpointSlice",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: endpointSliceV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultEndpointSlice(object),
    validate: (object) => validateEndpointSlice(object),
    validateUpdate: (object, old) => validateEndpointSliceUpdate(object, old),
    tracksGeneration: true,
    tableColumns: [
      {
        name: "AddressType",
        type: "string",
        description: "addressType specifies the type of address carried by this EndpointSlice.",
        priority: 0,
        cell: (o) => str(o["addressType"]),
      },
      {
        name: "Ports",
        type: "string",
        description: "ports specifies the list of network ports exposed by each endpoint in this slice.",
        priority: 0,
        cell: endpointSlicePortsCell,
      },
      {
        name: "Endpoints",
        type: "string",
        description: "endpoints is a list of unique endpoints in this slice.",
        priority: 0,
        cell: endpointSliceEndpointsCell,
      },
    ],
  },
};
