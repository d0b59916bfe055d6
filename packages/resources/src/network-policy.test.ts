import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { parseCIDR, parseIP } from "./internal/networking-common.js";
import { defaultNetworkPolicy, networkPolicyType, validateIPBlock, validateNetworkPolicy } from "./network-policy.js";
import { FieldPath } from "@orch/meta";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const policy = (spec?: Record<string, unknown>): APIObject => {
  const object: APIObject = { apiVersion: "networking.orch.io/v1", kind: "NetworkPolicy", metadata: { name: "p", namespace: "ns" }, ...(spec ? { spec } : {}) };
  defaultNetworkPolicy(object);
  return object;
};

describe("NetworkPolicy", () => {
  it("is a namespaced networking kind with short name netpol", () => {
    expect(networkPolicyType).toMatchObject({ group: "networking.{domain}", resource: "networkpolicies", shortNames: ["netpol"], scope: "Namespaced" });
  });

  it("defaults policyTypes by the rules given and port protocols to TCP", () => {
    expect(policy()["spec"]).toEqual({ podSelector: {}, policyTypes: ["Ingress"] });
    expect(policy({ podSelector: {}, egress: [{ ports: [{ port: 53 }] }] })["spec"]).toEqual({
      podSelector: {},
      egress: [{ ports: [{ port: 53, protocol: "TCP" }] }],
      policyTypes: ["Ingress", "Egress"],
    });
    expect(policy({ podSelector: {}, policyTypes: ["Egress"] })["spec"]).toMatchObject({ policyTypes: ["Egress"] });
  });

  it("checks port ranges", () => {
    const spec = { podSelector: {}, ingress: [{ ports: [{ port: 90, endPort: 80 }, { endPort: 80 }] }] };
    expect(causes(validateNetworkPolicy(policy(spec)))).toEqual([
      ["spec.ingress[0].ports[0].endPort", "FieldValueInvalid", "must be greater than or equal to `port`"],
      ["spec.ingress[0].ports[1].endPort", "FieldValueInvalid", "may not be specified when `port` is not specified"],
    ]);
  });

  it("allows at most two policy types", () => {
    expect(causes(validateNetworkPolicy(policy({ podSelector: {}, policyTypes: ["Ingress", "Egress", "Ingress"] }))).map(([f, t]) => [f, t])).toEqual([
      ["spec.policyTypes", "FieldValueInvalid"],
    ]);
  });

  it("checks ipBlocks in IPv4 and IPv6", () => {
    const at = FieldPath.root("b");
    expect(validateIPBlock({ cidr: "2001:db8::/32", except: ["2001:db8:1::/48"] }, at)).toEqual([]);
    expect(causes(validateIPBlock({ cidr: "10.0.0.0/8", except: ["10.0.0.0/8", "2001:db8::/48", "10.1.0.0/33"] }, at)).map(([f, , d]) => [f, d])).toEqual([
      ["b.except[0]", "must be a strict subset of `cidr`"],
      ["b.except[1]", "must be a strict subset of `cidr`"],
      ["b.except[2]", "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"],
    ]);
    expect(causes(validateIPBlock({}, at))).toEqual([["b.cidr", "FieldValueRequired", ""]]);
  });
});

describe("IP addresses and CIDRs", () => {
  it("parses both families", () => {
    expect(parseIP("10.0.0.1")).toEqual({ family: 4, value: 0x0a000001n });
    expect(parseIP("::1")).toEqual({ family: 6, value: 1n });
    expect(parseIP("::ffff:1.2.3.4")?.value).toBe(0xffff01020304n);
    for (const bad of ["1.2.3", "1.2.3.256", "1::2::3", "1:2:3:4:5:6:7:8:9", "abc", ""]) expect(parseIP(bad)).toBeUndefined();
    expect(parseCIDR("10.1.2.3/8")).toEqual({ family: 4, network: 0x0a000000n, prefix: 8 });
    expect(parseCIDR("10.0.0.0")).toBeUndefined();
    expect(parseCIDR("::/129")).toBeUndefined();
  });
});
