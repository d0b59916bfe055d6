/**
 * Endpoints (core `v1`, namespaced, short name `ep`): the addresses and ports that implement a
 * Service. The reference's default (each port's protocol TCP), its validation (each subset with
 * `addresses` or `notReadyAddresses`; addresses that are IPs and not unspecified, loopback or
 * link-local, DNS-label hostnames, node names; ports with a number, a protocol and a name when
 * there are several) and kubectl's ENDPOINTS column.
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
import { parseIP, type ParsedIP } from "./internal/networking-common.js";
import { records, str } from "./internal/rules.js";
import { validatePortNumber, workloadObjectReferenceSchema } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { int32, named, optionalString } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `EndpointAddress`. */
const endpointAddressSchema = named(
  z
    .object({
      hostname: optionalString("The Hostname of this endpoint."),
      ip: optionalString("The IP of this endpoint."),
      nodeName: optionalString("The node hosting this endpoint."),
      targetRef: workloadObjectReferenceSchema.optional().describe("Reference to object providing the endpoint."),
    })
    .meta({ description: "EndpointAddress is a tuple that describes single IP address.", required: ["ip"] }),
  "api.core.v1.EndpointAddress",
);

/** `EndpointPort`. */
const endpointPortSchema = named(
  z
    .object({
      appProtocol: optionalString("The application protocol for this port."),
      name: optionalString("The name of this port; must match the name of a ServicePort. Optional with a single port."),
      port: int32().optional().describe("The port number of the endpoint."),
      protocol: optionalString("The IP protocol for this port: TCP, UDP, or SCTP. Default is TCP."),
    })
    .meta({ description: "EndpointPort is a tuple that describes a single port.", required: ["port"] }),
  "api.core.v1.EndpointPort",
);

/** `EndpointSubset`. */
export const endpointSubsetSchema = named(
  z
    .object({
      addresses: listType(z.array(endpointAddressSchema), "atomic").optional().describe("IP addresses which offer the related ports that are marked as ready."),
      notReadyAddresses: listType(z.array(endpointAddressSchema), "atomic")
        .optional()
        .describe("IP addresses which offer the related ports but are not currently marked as ready."),
      ports: listType(z.array(endpointPortSchema), "atomic").optional().describe("Port numbers available on the related IP addresses."),
    })
    .meta({ description: "EndpointSubset is a group of addresses with a common set of ports." }),
  "api.core.v1.EndpointSubset",
);

/** The zod schema of an Endpoints in `v1`. */
export const endpointsV1Schema = kindSchema(
  { subsets: listType(z.array(endpointSubsetSchema), "atomic").optional().describe("The set of all endpoints is the union of all subsets.") },
  "Endpoints is a collection of endpoints that implement the actual service.",
);

/** The reference's Endpoints default: each port's `protocol` TCP. */
export function defaultEndpoints(object: APIObject): void {
  for (const subset of records(object["subsets"]))
    for (const port of records(subset["ports"])) if (port["protocol"] === undefined || port["protocol"] === "") port["protocol"] = "TCP";
}

function inRange(ip: ParsedIP, cidrBase: bigint, prefix: number): boolean {
  const width = ip.family === 4 ? 32 : 128;
  const shift = BigInt(width - prefix);
  return ip.value >> shift === cidrBase >> shift;
}

/** The reference's `ValidateNonSpecialIP` messages: an IP, not unspecified, loopback or link-local. */
export function specialIPMessages(text: string): string[] {
  const ip = parseIP(text);
  if (!ip) return ["must be a valid IP address"];
  if (ip.value === 0n) return [`may not be unspecified (${text})`];
  const v4 = ip.family === 4;
  if (v4 ? inRange(ip, 0x7f000000n, 8) : ip.value === 1n) return ["may not be in the loopback range (127.0.0.0/8, ::1/128)"];
  if (v4 ? inRange(ip, 0xa9fe0000n, 16) : inRange(ip, 0xfe80n << 112n, 10)) return ["may not be in the link-local range (169.254.0.0/16, fe80::/10)"];
  if (v4 ? inRange(ip, 0xe0000000n, 24) : inRange(ip, 0xff02n << 112n, 16)) return ["may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"];
  return [];
}

function validateAddress(address: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const ip = str(address["ip"]);
  if (!parseIP(ip)) errors.push(invalidField(path.child("ip"), ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
  const hostname = str(address["hostname"]);
  if (hostname !== "") errors.push(...validateDNS1123Label(hostname, path.child("hostname")));
  if (typeof address["nodeName"] === "string") errors.push(...validateDNS1123Subdomain(address["nodeName"], path.child("nodeName")));
  for (const m of specialIPMessages(ip)) errors.push(invalidField(path.child("ip"), ip, m));
  return errors;
}

const protocols = ["SCTP", "TCP", "UDP"];

/**
 * The Endpoints rules: each subset has `addresses` or `notReadyAddresses`, each address is
 * valid, and each port has a valid number, a supported protocol, and a DNS-label name (required
 * when the subset has several ports).
 */
export function validateEndpoints(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root("subsets");
  records(object["subsets"]).forEach((subset, i) => {
    const at = path.index(i);
    const addresses = records(subset["addresses"]);
    const notReady = records(subset["notReadyAddresses"]);
    if (addresses.length === 0 && notReady.length === 0) errors.push(requiredField(at, "must specify `addresses` or `notReadyAddresses`"));
    addresses.forEach((a, j) => errors.push(...validateAddress(a, at.child("addresses").index(j))));
    notReady.forEach((a, j) => errors.push(...validateAddress(a, at.child("notReadyAddresses").index(j))));
    const ports = records(subset["ports"]);
    ports.forEach((port, j) => {
      const pp = at.child("ports").index(j);
      const name = str(port["name"]);
      if (ports.length > 1 && name === "") errors.push(requiredField(pp.child("name")));
      else if (name !== "") errors.push(...validateDNS1123Label(name, pp.child("name")));
      errors.push(...validatePortNumber(port["port"], pp.child("port")));
      const protocol = str(port["protocol"]);
      if (protocol === "") errors.push(requiredField(pp.child("protocol")));
      else if (!protocols.includes(protocol)) errors.push(notSupportedField(pp.child("protocol"), protocol, protocols));
    });
  });
  return errors;
}

/** The ENDPOINTS cell: up to three `ip:port` (or bare IPs without ports), `+ N more...` beyond; `<none>` without subsets. */
export function endpointsCell(object: APIObject): string {
  const subsets = records(object["subsets"]);
  if (subsets.length === 0) return "<none>";
  const shown: string[] = [];
  let count = 0;
  let more = false;
  const add = (text: string) => {
    if (shown.length === 3) more = true;
    else shown.push(text);
  };
  for (const subset of subsets) {
    const addresses = records(subset["addresses"]).map((a) => str(a["ip"]));
    const ports = records(subset["ports"]);
    if (ports.length === 0) {
      count += addresses.length;
      for (const ip of addresses) add(ip);
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const ip of addresses) add(`${ip.includes(":") ? `[${ip}]` : ip}:${String(port["port"])}`);
    }
  }
  return more ? `${shown.join(",")} + ${count - 3} more...` : shown.join(",");
}

/** The Endpoints resource type. */
export const endpointsType: ResourceType = {
  group: "",
  resource: "endpoints",
  singular: "endpoints",
  kind: "Endpoints",
  scope: "Namespaced",
  shortNames: ["ep"],
  versions: [{ name: "v1", schema: endpointsV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultEndpoints(object),
    validate: (object) => validateEndpoints(object),
    tracksGeneration: false,
    tableColumns: [{ name: "Endpoints", type: "string", description: "Endpoints of the service.", priority: 0, cell: endpointsCell }],
  },
};
