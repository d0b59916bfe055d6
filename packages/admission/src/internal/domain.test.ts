import { describe, expect, it } from "vitest";
import { hostnameLabel, labelDomain, productName } from "./domain.js";

describe("domain names", () => {
  it("keeps kubernetes.io under k8s.io, else uses the domain", () => {
    expect(labelDomain("k8s.io")).toBe("kubernetes.io");
    expect(labelDomain("orch.io")).toBe("orch.io");
    expect(hostnameLabel("orch.io")).toBe("orch.io/hostname");
    expect(hostnameLabel("k8s.io")).toBe("kubernetes.io/hostname");
  });

  it("shortens the domain to kube under k8s.io, else to its first label", () => {
    expect(productName("k8s.io")).toBe("kube");
    expect(productName("orch.io")).toBe("orch");
  });
});
