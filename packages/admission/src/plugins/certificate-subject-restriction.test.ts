import { describe, expect, it } from "vitest";
import { certificateSigningRequestType } from "@orch/resources";
import { testRequest } from "../../../certificates/src/internal/test-pki.js";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { certificateSubjectRestriction } from "./certificate-subject-restriction.js";

const csr = (signerName: string, pem: string) => ({
  apiVersion: "certificates.orch.io/v1",
  kind: "CertificateSigningRequest",
  metadata: { name: "req" },
  spec: { signerName, usages: ["client auth"], request: btoa(pem) },
});

async function validate(domain: string, signerName: string, subject: string) {
  const plugin = certificateSubjectRestriction({ services: fakeServices({ domain }), configuration: undefined });
  const attrs = attributesFor({ operation: "CREATE", type: certificateSigningRequestType, object: csr(signerName, await testRequest(subject)), domain });
  return Promise.resolve()
    .then(() => plugin.validate?.(attrs))
    .then(
      () => "allowed",
      (error: { code?: number; message?: string }) => `${error.code} ${error.message}`,
    );
}

describe("CertificateSubjectRestriction", () => {
  it("refuses system:masters through the API-server client signer, of either domain", async () => {
    expect(await validate("orch.io", "orch.io/orch-apiserver-client", "CN=root, O=system:masters")).toBe(
      '403 certificatesigningrequests.certificates.orch.io "req" is forbidden: use of orch.io/orch-apiserver-client signer with system:masters group is not allowed',
    );
    expect(await validate("k8s.io", "kubernetes.io/kube-apiserver-client", "CN=root, O=dev, O=system:masters")).toBe(
      '403 certificatesigningrequests.certificates.k8s.io "req" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    );
  });

  it("lets other groups and other signers through", async () => {
    expect(await validate("orch.io", "orch.io/orch-apiserver-client", "CN=alice, O=dev")).toBe("allowed");
    expect(await validate("orch.io", "example.com/custom", "CN=root, O=system:masters")).toBe("allowed");
  });

  it("answers 400 for a request that does not parse", async () => {
    const plugin = certificateSubjectRestriction({ services: fakeServices(), configuration: undefined });
    const attrs = attributesFor({
      operation: "CREATE",
      type: certificateSigningRequestType,
      object: { ...csr("orch.io/orch-apiserver-client", ""), spec: { signerName: "orch.io/orch-apiserver-client", request: btoa("not a request") } },
    });
    expect(() => plugin.validate?.(attrs)).toThrow(expect.objectContaining({ code: 400 }));
  });
});
