import { FieldPath, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  defaultIngressClass,
  ingressClassParametersCell,
  ingressClassType,
  validateDomainPrefixedPath,
  validateIngressClass,
  validateIngressClassUpdate,
} from "./ingress-class.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type, e.detail]);
const ingressClass = (spec: Record<string, unknown>): APIObject => {
  const object: APIObject = { apiVersion: "networking.orch.io/v1", kind: "IngressClass", metadata: { name: "c" }, spec };
  defaultIngressClass(object);
  return object;
};

describe("IngressClass", () => {
  it("is a cluster-scoped networking kind", () => {
    expect(ingressClassType).toMatchObject({ group: "networking.{domain}", resource: "ingressclasses", scope: "Cluster" });
  });

  it("defaults the parameters' scope to Cluster", () => {
    expect(ingressClass({ controller: "a.io/c", parameters: { kind: "K", name: "n" } })["spec"]).toMatchObject({ parameters: { scope: "Cluster" } });
  });

  it("checks the controller as a domain-prefixed path", () => {
    const at = FieldPath.root("c");
    expect(validateDomainPrefixedPath("example.com/ingress", at)).toEqual([]);
    expect(causes(validateDomainPrefixedPath("Example/x", at)).map(([, t]) => t)).toEqual(["FieldValueInvalid"]);
    expect(causes(validateDomainPrefixedPath("a.io/x y", at))).toEqual([
      ["c", "FieldValueInvalid", "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"],
    ]);
    expect(causes(validateIngressClass(ingressClass({ controller: `a.io/${"x".repeat(250)}` }))).map(([, t]) => t)).toEqual(["FieldValueTooLong"]);
  });

  it("checks the parameters' scope", () => {
    expect(
      causes(validateIngressClass(ingressClass({ controller: "a.io/c", parameters: { kind: "K", name: "n", scope: "Global" } }))).map(([f, t]) => [f, t]),
    ).toEqual([["spec.parameters.scope", "FieldValueNotSupported"]]);
    expect(validateIngressClass(ingressClass({ controller: "a.io/c", parameters: { kind: "K", name: "n", scope: "Namespace", namespace: "ns" } }))).toEqual([]);
  });

  it("keeps the controller on update", () => {
    expect(causes(validateIngressClassUpdate(ingressClass({ controller: "a.io/d" }), ingressClass({ controller: "a.io/c" }))).map(([f]) => f)).toEqual([
      "spec.controller",
    ]);
  });

  it("prints the parameters as Kind.group/name", () => {
    expect(ingressClassParametersCell(ingressClass({ controller: "a.io/c", parameters: { apiGroup: "x.io", kind: "K", name: "n" } }))).toBe("K.x.io/n");
    expect(ingressClassParametersCell(ingressClass({ controller: "a.io/c" }))).toBe("<none>");
  });
});
