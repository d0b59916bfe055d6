import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { ingressAddressCell, ingressHostsCell, ingressType, validateIngress, validateIngressStatus } from "./ingress.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const backend = { service: { name: "web", port: { number: 80 } } };
const ingress = (spec: Record<string, unknown>, annotations?: Record<string, string>): APIObject => ({
  apiVersion: "networking.orch.io/v1",
  kind: "Ingress",
  metadata: { name: "i", namespace: "ns", ...(annotations ? { annotations } : {}) },
  spec,
});
const rule = (path: Record<string, unknown>, host?: string) => ({ ...(host ? { host } : {}), http: { paths: [{ backend, ...path }] } });

describe("Ingress", () => {
  it("is a namespaced networking kind with short name ing and status", () => {
    expect(ingressType).toMatchObject({ group: "networking.{domain}", resource: "ingresses", shortNames: ["ing"], subresources: ["status"] });
  });

  it("accepts the three path types with their path rules", () => {
    const spec = {
      rules: [
        rule({ path: "/a", pathType: "Exact" }, "a.example.com"),
        rule({ path: "/", pathType: "Prefix" }, "*.example.com"),
        rule({ pathType: "ImplementationSpecific" }),
      ],
    };
    expect(validateIngress(ingress(spec))).toEqual([]);
  });

  it("refuses unclean Exact and Prefix paths", () => {
    expect(causes(validateIngress(ingress({ rules: [rule({ path: "/a//b/.", pathType: "Prefix" })] })))).toEqual([
      ["spec.rules[0].http.paths[0].path", "FieldValueInvalid", "must not contain '//'"],
      ["spec.rules[0].http.paths[0].path", "FieldValueInvalid", "cannot end with '/.'"],
    ]);
  });

  it("refuses a bad wildcard host and an empty paths list", () => {
    expect(causes(validateIngress(ingress({ rules: [{ host: "a.*.com", http: { paths: [] } }] }))).map(([f, t]) => [f, t])).toEqual([
      ["spec.rules[0].host", "FieldValueInvalid"],
      ["spec.rules[0].http.paths", "FieldValueRequired"],
    ]);
  });

  it("checks resource backends and service names", () => {
    expect(causes(validateIngress(ingress({ defaultBackend: { resource: { kind: "Bucket" } } })))).toEqual([
      ["spec.defaultBackend.resource.name", "FieldValueRequired", "name is required"],
    ]);
    expect(causes(validateIngress(ingress({ defaultBackend: { service: { name: "Web", port: { number: 70000 } } } }))).map(([f]) => f)).toEqual([
      "spec.defaultBackend.service.name",
      "spec.defaultBackend.service.port.number",
    ]);
  });

  it("checks TLS hosts, secret names and the class name", () => {
    const spec = { defaultBackend: backend, tls: [{ hosts: ["Bad_Host"], secretName: "Bad" }], ingressClassName: "Nginx" };
    expect(causes(validateIngress(ingress(spec))).map(([f]) => f)).toEqual(["spec.tls[0].hosts[0]", "spec.tls[0].secretName", "spec.ingressClassName"]);
    expect(validateIngress(ingress({ defaultBackend: backend, ingressClassName: "nginx" }, { "kubernetes.io/ingress.class": "nginx" }))).toEqual([]);
  });

  it("checks the load-balancer status", () => {
    const object = { ...ingress({ defaultBackend: backend }), status: { loadBalancer: { ingress: [{ ip: "1.2.3" }, { hostname: "10.0.0.1" }] } } };
    expect(causes(validateIngressStatus(object)).map(([f, t]) => [f, t])).toEqual([
      ["status.loadBalancer.ingress[0].ip", "FieldValueInvalid"],
      ["status.loadBalancer.ingress[1].hostname", "FieldValueInvalid"],
    ]);
  });

  it("prints hosts and addresses as kubectl does", () => {
    const spec = { rules: ["a", "b", "c", "d", "e"].map((h) => ({ host: `${h}.io` })) };
    expect(ingressHostsCell(ingress(spec))).toBe("a.io,b.io,c.io + 2 more...");
    expect(ingressHostsCell(ingress({ defaultBackend: backend }))).toBe("*");
    const object = { ...ingress({}), status: { loadBalancer: { ingress: [{ ip: "10.0.0.1" }, { hostname: "lb.example.com" }] } } };
    expect(ingressAddressCell(object)).toBe("10.0.0.1,lb.e...");
  });
});
