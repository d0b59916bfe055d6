import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultEndpoints, endpointsCell, endpointsType, specialIPMessages, validateEndpoints } from "./endpoints.js";

const endpoints = (subsets: unknown[]): APIObject => {
  const object: APIObject = { apiVersion: "v1", kind: "Endpoints", metadata: { name: "e", namespace: "ns" }, subsets };
  defaultEndpoints(object);
  return object;
};

describe("Endpoints", () => {
  it("is a core v1 kind with short name ep", () => {
    expect(endpointsType).toMatchObject({ group: "", resource: "endpoints", kind: "Endpoints", shortNames: ["ep"] });
  });

  it("defaults port protocols to TCP and accepts a headless subset without ports", () => {
    const object = endpoints([{ addresses: [{ ip: "10.0.0.1", hostname: "a" }], ports: [{ port: 80 }] }, { notReadyAddresses: [{ ip: "2001:db8::1" }] }]);
    expect(object["subsets"]).toMatchObject([{ ports: [{ port: 80, protocol: "TCP" }] }, {}]);
    expect(validateEndpoints(object)).toEqual([]);
  });

  it("refuses special addresses with the reference's messages", () => {
    expect(specialIPMessages("0.0.0.0")).toEqual(["may not be unspecified (0.0.0.0)"]);
    expect(specialIPMessages("::1")).toEqual(["may not be in the loopback range (127.0.0.0/8, ::1/128)"]);
    expect(specialIPMessages("169.254.1.1")).toEqual(["may not be in the link-local range (169.254.0.0/16, fe80::/10)"]);
    expect(specialIPMessages("fe80::1")).toEqual(["may not be in the link-local range (169.254.0.0/16, fe80::/10)"]);
    expect(specialIPMessages("224.0.0.5")).toEqual(["may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"]);
    expect(specialIPMessages("10.0.0.1")).toEqual([]);
  });

  it("prints up to three endpoints", () => {
    const object = endpoints([{ addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }], ports: [{ port: 80 }, { port: 443 }] }]);
    expect(endpointsCell(object)).toBe("10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...");
    expect(endpointsCell(endpoints([{ addresses: [{ ip: "2001:db8::1" }], ports: [{ port: 80 }] }]))).toBe("[2001:db8::1]:80");
    expect(endpointsCell(endpoints([]))).toBe("<none>");
  });
});
