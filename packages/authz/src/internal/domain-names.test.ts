import { describe, expect, it } from "vitest";
import { autoUpdateAnnotationOf, groupOf, labelDomainOf, nodeAgentOf, productOf, publicNamespaceOf, systemNamespaceOf } from "./domain-names.js";

describe("domain names", () => {
  it("gives the reference's names for k8s.io", () => {
    expect(groupOf("rbac.authorization", "k8s.io")).toBe("rbac.authorization.k8s.io");
    expect(labelDomainOf("k8s.io")).toBe("kubernetes.io");
    expect(productOf("k8s.io")).toBe("kube");
    expect(nodeAgentOf("k8s.io")).toBe("kubelet");
    expect(systemNamespaceOf("k8s.io")).toBe("kube-system");
    expect(publicNamespaceOf("k8s.io")).toBe("kube-public");
    expect(autoUpdateAnnotationOf("k8s.io")).toBe("rbac.authorization.kubernetes.io/autoupdate");
  });

  it("derives every name from the domain otherwise", () => {
    expect(groupOf("certificates", "orch.io")).toBe("certificates.orch.io");
    expect(labelDomainOf("orch.io")).toBe("orch.io");
    expect(productOf("orch.io")).toBe("orch");
    expect(nodeAgentOf("orch.io")).toBe("nodeagent");
    expect(systemNamespaceOf("orch.io")).toBe("orch-system");
    expect(publicNamespaceOf("orch.io")).toBe("orch-public");
    expect(autoUpdateAnnotationOf("orch.io")).toBe("rbac.authorization.orch.io/autoupdate");
  });
});
