/**
 * NetworkPolicy (`networking.<domain>/v1`, namespaced, short name `netpol`): which traffic the
 * selected pods accept and send. The reference's defaults (each port's protocol TCP;
 * `policyTypes` Ingress, plus Egress when egress rules are given), its validation (selectors;
 * ports with a protocol of TCP, UDP or SCTP, a number or name, an `endPort` only after a numeric
 * port; peers with exactly one of an ipBlock or selectors; ipBlock CIDRs and exceptions that are
 * strict subsets; at most two supported policy types) and kubectl's POD-SELECTOR column.
 * @module
 */
import {
  FieldPath,
  forbiddenField,
  invalidField,
  labelSelectorFromObject,
  listType,
  notSupportedField,
  requiredField,
  type APIObject,
  type FieldError,
  type LabelSelectorObject,
} from "@orch/meta";
import { z } from "zod";
import { cidrMessage, isStrictSubnet, parseCIDR } from "./internal/networking-common.js";
import { list, record, records, str } from "./internal/rules.js";
import { labelSelector } from "./internal/storage-fields.js";
import { intOrString, portNameMessages, validatePortNumber } from "./internal/workloads-common.js";
import { selectorCell } from "./job.js";
import type { ResourceType } from "./resource-type.js";
import { atomicStrings, int32, named, optionalString } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `NetworkPolicyPort`. */
const networkPolicyPortSchema = named(
  z
    .object({
      endPort: int32().optional().describe("The end of a port range, from port to endPort inclusive."),
      port: intOrString().optional().describe("The port on the given protocol: a number or a named port on a pod."),
      protocol: optionalString("The protocol (TCP, UDP, or SCTP) which traffic must match. Defaults to TCP."),
    })
    .meta({ description: "NetworkPolicyPort describes a port to allow traffic on" }),
  "api.networking.v1.NetworkPolicyPort",
);

/** `NetworkPolicyPeer`. */
const networkPolicyPeerSchema = named(
  z
    .object({
      ipBlock: named(
        z
          .object({
            cidr: optionalString("A string representing the IPBlock, such as 192.168.1.0/24 or 2001:db8::/64."),
            except: listType(atomicStrings("CIDRs that should not be included within the IPBlock."), "atomic").optional(),
          })
          .meta({
            description: "IPBlock describes a particular CIDR that is allowed to the pods matched by a NetworkPolicySpec's podSelector.",
            required: ["cidr"],
          }),
        "api.networking.v1.IPBlock",
      )
        .optional()
        .describe("A particular IPBlock to allow; exclusive with the selectors."),
      namespaceSelector: labelSelector().optional().describe("Selects namespaces using cluster-scoped labels."),
      podSelector: labelSelector().optional().describe("A label selector which selects pods."),
    })
    .meta({ description: "NetworkPolicyPeer describes a peer to allow traffic to/from." }),
  "api.networking.v1.NetworkPolicyPeer",
);

const portsList = listType(z.array(networkPolicyPortSchema), "atomic").optional();
const peersList = listType(z.array(networkPolicyPeerSchema), "atomic").optional();

/** `NetworkPolicySpec`. */
export const networkPolicySpecSchema = named(
  z
    .object({
      egress: listType(
        z.array(
          named(
            z
              .object({
                ports: portsList.describe("Destination ports for outgoing traffic."),
                to: peersList.describe("Destinations for outgoing traffic of pods selected for this rule."),
              })
              .meta({
                description:
                  "NetworkPolicyEgressRule describes a particular set of traffic that is allowed out of pods matched by a NetworkPolicySpec's podSelector.",
              }),
            "api.networking.v1.NetworkPolicyEgressRule",
          ),
        ),
        "atomic",
      )
        .optional()
        .describe("A list of egress rules to be applied to the selected pods."),
      ingress: listType(
        z.array(
          named(
            z
              .object({
                from: peersList.describe("Sources which should be able to access the pods selected for this rule."),
                ports: portsList.describe("Ports which should be made accessible on the pods selected for this rule."),
              })
              .meta({
                description:
                  "NetworkPolicyIngressRule describes a particular set of traffic that is allowed to the pods matched by a NetworkPolicySpec's podSelector.",
              }),
            "api.networking.v1.NetworkPolicyIngressRule",
          ),
        ),
        "atomic",
      )
        .optional()
        .describe("A list of ingress rules to be applied to the selected pods."),
      podSelector: labelSelector().optional().describe("Selects the pods to which this NetworkPolicy object applies; empty selects all pods in the namespace."),
      policyTypes: listType(atomicStrings("The rule types that the NetworkPolicy relates to: Ingress, Egress."), "atomic").optional(),
    })
    .meta({ description: "NetworkPolicySpec provides the specification of a NetworkPolicy" }),
  "api.networking.v1.NetworkPolicySpec",
);

/** The zod schema of a NetworkPolicy in `networking/v1`. */
export const networkPolicyV1Schema = kindSchema(
  { spec: networkPolicySpecSchema.optional().describe("Spec represents the specification of the desired behavior for this NetworkPolicy.") },
  "NetworkPolicy describes what network traffic is allowed for a set of Pods",
);

/**
 * The reference's NetworkPolicy defaults: each ingress and egress port's `protocol` TCP, and
 * `policyTypes` Ingress (with Egress when egress rules are given) when unset or empty.
 */
export function defaultNetworkPolicy(object: APIObject): void {
  const spec = record(object["spec"]);
  if (!spec) {
    object["spec"] = { podSelector: {}, policyTypes: ["Ingress"] };
    return;
  }
  if (spec["podSelector"] === undefined) spec["podSelector"] = {};
  for (const rule of [...records(spec["ingress"]), ...records(spec["egress"])]) {
    for (const port of records(rule["ports"])) if (port["protocol"] === undefined) port["protocol"] = "TCP";
  }
  if (list(spec["policyTypes"]).length === 0) spec["policyTypes"] = list(spec["egress"]).length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
}

const protocols = ["TCP", "UDP", "SCTP"];
const policyTypes = ["Ingress", "Egress"];

function validateSelector(selector: unknown, path: FieldPath): FieldError[] {
  const s = record(selector);
  if (!s) return [];
  const parsed = labelSelectorFromObject(s as unknown as LabelSelectorObject, path);
  return parsed.ok ? [] : [...parsed.errors];
}

function validatePort(port: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const protocol = port["protocol"];
  if (typeof protocol === "string" && !protocols.includes(protocol)) errors.push(notSupportedField(path.child("protocol"), protocol, protocols));
  const p = port["port"];
  const end = port["endPort"];
  if (typeof p === "number") {
    errors.push(...validatePortNumber(p, path.child("port")));
    if (typeof end === "number") {
      if (end < p) errors.push(invalidField(path.child("endPort"), p, "must be greater than or equal to `port`"));
      errors.push(...validatePortNumber(end, path.child("endPort")));
    }
  } else if (typeof p === "string") {
    if (typeof end === "number") errors.push(invalidField(path.child("endPort"), end, "may not be specified when `port` is non-numeric"));
    for (const m of portNameMessages(p)) errors.push(invalidField(path.child("port"), p, m));
  } else if (typeof end === "number") errors.push(invalidField(path.child("endPort"), end, "may not be specified when `port` is not specified"));
  return errors;
}

/** The reference's `ValidateIPBlock`: `cidr` required and a CIDR; each exception a strict subset of it. */
export function validateIPBlock(block: Record<string, unknown>, path: FieldPath): FieldError[] {
  const cidr = str(block["cidr"]);
  if (cidr === "") return [requiredField(path.child("cidr"))];
  const outer = parseCIDR(cidr);
  if (!outer) return [invalidField(path.child("cidr"), cidr, cidrMessage)];
  const errors: FieldError[] = [];
  list(block["except"]).forEach((e, i) => {
    const text = str(e);
    const inner = parseCIDR(text);
    if (!inner) errors.push(invalidField(path.child("except").index(i), text, cidrMessage));
    else if (!isStrictSubnet(inner, outer)) errors.push(invalidField(path.child("except").index(i), text, "must be a strict subset of `cidr`"));
  });
  return errors;
}

function validatePeer(peer: Record<string, unknown>, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const key of ["podSelector", "namespaceSelector"]) {
    if (peer[key] === undefined) continue;
    count++;
    errors.push(...validateSelector(peer[key], path.child(key)));
  }
  const block = record(peer["ipBlock"]);
  if (block) {
    count++;
    errors.push(...validateIPBlock(block, path.child("ipBlock")));
  }
  if (count === 0) errors.push(requiredField(path, "must specify a peer"));
  else if (count > 1 && block) errors.push(forbiddenField(path, "may not specify both ipBlock and another peer"));
  return errors;
}

/**
 * The NetworkPolicy rules: the pod selector; each ingress and egress rule's ports and peers
 * (`from`, `to`); `policyTypes` at most two, each Ingress or Egress.
 */
export function validateNetworkPolicy(object: APIObject): FieldError[] {
  const spec = record(object["spec"]) ?? {};
  const path = FieldPath.root("spec");
  const errors = validateSelector(spec["podSelector"], path.child("podSelector"));
  for (const [direction, peersKey] of [
    ["ingress", "from"],
    ["egress", "to"],
  ] as const) {
    records(spec[direction]).forEach((rule, i) => {
      const at = path.child(direction).index(i);
      records(rule["ports"]).forEach((port, j) => errors.push(...validatePort(port, at.child("ports").index(j))));
      records(rule[peersKey]).forEach((peer, j) => errors.push(...validatePeer(peer, at.child(peersKey).index(j))));
    });
  }
  const types = list(spec["policyTypes"]);
  if (types.length > 2) errors.push(invalidField(path.child("policyTypes"), types, "may not specify more than two policyTypes"));
  else {
    types.forEach((t, i) => {
      if (!policyTypes.includes(str(t))) errors.push(notSupportedField(path.child("policyTypes").index(i), t, policyTypes));
    });
  }
  return errors;
}

/** The NetworkPolicy resource type. */
export const networkPolicyType: ResourceType = {
  group: "networking.{domain}",
  resource: "networkpolicies",
  singular: "networkpolicy",
  kind: "NetworkPolicy",
  scope: "Namespaced",
  shortNames: ["netpol"],
  versions: [{ name: "v1", schema: networkPolicyV1Schema, storage: true }],
  strategy: {
    defaults: (object) => defaultNetworkPolicy(object),
    validate: (object) => validateNetworkPolicy(object),
    tableColumns: [
      {
        name: "Pod-Selector",
        type: "string",
        description: "Selects the pods to which this NetworkPolicy object applies.",
        priority: 0,
        cell: (o) => selectorCell(record(o["spec"])?.["podSelector"]),
      },
    ],
  },
};
