import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  defaultEndpointSlice,
  endpointSliceControllerName,
  endpointSliceEndpointsCell,
  endpointSliceManagedByLabel,
  endpointSlicePortsCell,
  endpointSliceType,
  serviceNameLabel,
  validateEndpointSlice,
  validateEndpointSliceUpdate,
} from "./endpoint-slice.js";

const slice = (fields: Record<string, unknown>): APIObject => {
  const object: APIObject = { apiVersion: "discovery.orch.io/v1", kind: "EndpointSlice", metadata: { name: "s", namespace: "ns" }, ...fields };
  defaultEndpointSlice(object);
  return object;
};

const fields = (object: APIObject) => validateEndpointSlice(object).map((e) => `${e.field} ${e.type}`);

describe("EndpointSlice", () => {
  it("is discovery.{domain}/v1 endpointslices, namespaced", () => {
    expect(endpointSliceType).toMatchObject({ group: "discovery.{domain}", resource: "endpointslices", kind: "EndpointSlice", scope: "Namespaced" });
  });

  it("defaults each port's name to empty and protocol to TCP", () => {
    expect(slice({ addressType: "IPv4", endpoints: [], ports: [{ port: 80 }, { name: "dns", port: 53, protocol: "UDP" }] })["ports"]).toEqual([
      { name: "", port: 80, protocol: "TCP" },
      { name: "dns", port: 53, protocol: "UDP" },
    ]);
  });

  it("checks addresses by the slice's address type", () => {
    expect(fields(slice({ addressType: "IPv6", endpoints: [{ addresses: ["2001:db8::1"] }] }))).toEqual([]);
    expect(fields(slice({ addressType: "IPv6", endpoints: [{ addresses: ["10.0.0.1", "::1"] }] }))).toEqual([
      "endpoints[0].addresses[0] FieldValueInvalid",
      "endpoints[0].addresses[1] FieldValueInvalid",
    ]);
    expect(fields(slice({ addressType: "FQDN", endpoints: [{ addresses: ["web.example.com", "Web_1.example"] }] }))).toEqual([
      "endpoints[0].addresses[1] FieldValueInvalid",
    ]);
  });

  it("limits endpoints to 1000 and addresses to 100, and checks node names, hostnames and zone hints", () => {
    const many = Array.from({ length: 1001 }, () => ({ addresses: ["10.0.0.1"] }));
    expect(validateEndpointSlice(slice({ addressType: "IPv4", endpoints: many }))).toEqual([
      expect.objectContaining({ field: "endpoints", type: "FieldValueTooMany", detail: "must have at most 1000 items" }),
    ]);
    const addresses = Array.from({ length: 101 }, (_, i) => `10.0.0.${i + 1}`);
    expect(
      fields(
        slice({
          addressType: "IPv4",
          endpoints: [{ addresses, nodeName: "Node_1", hostname: "a.b", hints: { forZones: [{ name: "z" }, { name: "z" }] } }],
        }),
      ),
    ).toEqual([
      "endpoints[0].addresses FieldValueTooMany",
      "endpoints[0].nodeName FieldValueInvalid",
      "endpoints[0].hostname FieldValueInvalid",
      "endpoints[0].hints.forZones[1].name FieldValueDuplicate",
    ]);
  });

  it("keeps the address type on update", () => {
    const old = slice({ addressType: "IPv4", endpoints: [] });
    expect(validateEndpointSliceUpdate(slice({ addressType: "IPv6", endpoints: [] }), old)).toEqual([
      expect.objectContaining({ field: "addressType", type: "FieldValueInvalid", detail: "field is immutable" }),
    ]);
    expect(validateEndpointSliceUpdate(old, old)).toEqual([]);
  });

  it("prints ports and endpoints as kubectl does", () => {
    const object = slice({
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.0.0.1", "10.0.0.2"] }, { addresses: ["10.0.0.3", "10.0.0.4"] }],
      ports: [{ port: 80 }, { name: "named" }, {}, { port: 443 }],
    });
    // A port without number or name is defaulted to the name "" (the reference prints `*` only without a name at all).
    expect(endpointSlicePortsCell(object)).toBe("80,named, + 1 more...");
    expect(endpointSlicePortsCell({ ...object, ports: [{}] })).toBe("*");
    expect(endpointSliceEndpointsCell(object)).toBe("10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...");
    expect(endpointSliceEndpointsCell(slice({ addressType: "IPv4", endpoints: [] }))).toBe("<unset>");
  });

  it("names the controller's labels after kubernetes.io under k8s.io and after the domain otherwise", () => {
    expect([serviceNameLabel("k8s.io"), endpointSliceManagedByLabel("k8s.io"), endpointSliceControllerName("k8s.io")]).toEqual([
      "kubernetes.io/service-name",
      "endpointslice.kubernetes.io/managed-by",
      "endpointslice-controller.k8s.io",
    ]);
    expect([serviceNameLabel("orch.io"), endpointSliceManagedByLabel("orch.io"), endpointSliceControllerName("orch.io")]).toEqual([
      "orch.io/service-name",
      "endpointslice.orch.io/managed-by",
      "endpointslice-controller.orch.io",
    ]);
  });
});
