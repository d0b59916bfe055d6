import { describe, expect, it } from "vitest";
import { serviceAccountSecretsCell, serviceAccountType } from "./service-account.js";

describe("ServiceAccount", () => {
  it("is a namespaced core v1 kind with short name sa", () => {
    expect(serviceAccountType).toMatchObject({ group: "", resource: "serviceaccounts", kind: "ServiceAccount", scope: "Namespaced", shortNames: ["sa"] });
  });

  it("decodes secrets, image pull secrets and the automount flag", () => {
    const schema = serviceAccountType.versions[0]?.schema;
    const sa = { metadata: { name: "sa" }, secrets: [{ name: "s" }], imagePullSecrets: [{ name: "p" }], automountServiceAccountToken: false };
    expect(schema?.parse(sa)).toEqual(sa);
    expect(schema?.safeParse({ secrets: "x" }).success).toBe(false);
  });

  it("prints the number of secrets", () => {
    expect(serviceAccountType.strategy?.tableColumns?.map((c) => c.name)).toEqual(["Secrets"]);
    expect(serviceAccountSecretsCell({ secrets: [{ name: "a" }, { name: "b" }] })).toBe(2);
    expect(serviceAccountSecretsCell({})).toBe(0);
  });
});
