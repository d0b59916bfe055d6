import { describe, expect, it } from "vitest";
import { parseCertificateRequest, verifyCertificateRequest } from "./certificate-request.js";
import { testRequest, x509 } from "./internal/test-pki.js";
import { signerPolicy, signerRestrictionProblems } from "./signers.js";

const node = "CN=system:node:n1, O=system:nodes";
const clientUsages = ["key encipherment", "digital signature", "client auth"];
const servingUsages = ["key encipherment", "digital signature", "server auth"];

describe("parseCertificateRequest", () => {
  it("reads the subject, the subject alternative names and a requested CA bit, and verifies the signature", async () => {
    const pem = await testRequest(
      "CN=first, CN=system:node:n1, O=system:nodes",
      [
        { type: "dns", value: "n1.example" },
        { type: "ip", value: "10.0.0.1" },
        { type: "email", value: "a@example.com" },
        { type: "url", value: "spiffe://x/y" },
      ],
      [new x509.BasicConstraintsExtension(true)],
    );
    const request = parseCertificateRequest(pem);
    expect(request).toMatchObject({
      commonName: "system:node:n1",
      organizations: ["system:nodes"],
      dnsNames: ["n1.example"],
      ipAddresses: ["10.0.0.1"],
      emailAddresses: ["a@example.com"],
      uris: ["spiffe://x/y"],
      requestsCA: true,
    });
    expect(await verifyCertificateRequest(request)).toBe(true);
  });

  it("refuses a PEM block of another type", () => {
    expect(() => parseCertificateRequest("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")).toThrow(
      "PEM block type must be CERTIFICATE REQUEST",
    );
  });

  it("finds a signature that does not match the request", async () => {
    const pem = await testRequest(node);
    const request = parseCertificateRequest(pem);
    const der = new Uint8Array(request.request.rawData);
    der[der.length - 5] = (der[der.length - 5] ?? 0) ^ 0xff;
    const tampered = parseCertificateRequest(x509.PemConverter.encode(der, "CERTIFICATE REQUEST"));
    expect(await verifyCertificateRequest(tampered).catch(() => false)).toBe(false);
  });
});

describe("signerRestrictionProblems", () => {
  it("knows only the built-in signers of the domain", () => {
    expect(signerPolicy("orch.io/nodeagent-serving", "orch.io")).toBeDefined();
    expect(signerPolicy("kubernetes.io/kubelet-serving", "k8s.io")).toBeDefined();
    expect(signerPolicy("kubernetes.io/kubelet-serving", "orch.io")).toBeUndefined();
    expect(signerPolicy("example.com/custom", "orch.io")).toBeUndefined();
  });

  it("lets the API-server client signer sign any subject with client auth and optional digital signature and key encipherment", async () => {
    const request = parseCertificateRequest(await testRequest("CN=alice, O=dev", [{ type: "email", value: "alice@example.com" }]));
    expect(signerRestrictionProblems(request, ["client auth"], "orch.io/orch-apiserver-client", "orch.io")).toEqual([]);
    expect(signerRestrictionProblems(request, clientUsages, "orch.io/orch-apiserver-client", "orch.io")).toEqual([]);
    expect(signerRestrictionProblems(request, ["digital signature", "server auth"], "orch.io/orch-apiserver-client", "orch.io")).toEqual([
      "invalid usage for client certificate: server auth",
      "invalid usage for client certificate: missing required usage: client auth",
    ]);
  });

  it("holds the node client signer to system:nodes, system:node:*, no subjectAltName and exactly its usages", async () => {
    const good = parseCertificateRequest(await testRequest(node));
    expect(signerRestrictionProblems(good, clientUsages, "kubernetes.io/kube-apiserver-client-kubelet", "k8s.io")).toEqual([]);
    const bad = parseCertificateRequest(
      await testRequest("CN=alice, O=system:nodes, O=dev", [
        { type: "dns", value: "n1" },
        { type: "ip", value: "10.0.0.1" },
      ]),
    );
    expect(signerRestrictionProblems(bad, ["digital signature", "client auth"], "orch.io/orch-apiserver-client-nodeagent", "orch.io")).toEqual([
      "subject organization is not system:nodes",
      "subject common name does not begin with system:node:",
      "DNS subjectAltNames are not allowed",
      "IP subjectAltNames are not allowed",
      "usages did not match [client auth digital signature key encipherment]",
    ]);
  });

  it("holds the node serving signer to DNS or IP names only, at least one, and exactly its usages", async () => {
    const good = parseCertificateRequest(await testRequest(node, [{ type: "ip", value: "10.0.0.1" }]));
    expect(signerRestrictionProblems(good, servingUsages, "orch.io/nodeagent-serving", "orch.io")).toEqual([]);
    const none = parseCertificateRequest(await testRequest(node));
    expect(signerRestrictionProblems(none, servingUsages, "orch.io/nodeagent-serving", "orch.io")).toEqual(["DNS or IP subjectAltName is required"]);
    const extra = parseCertificateRequest(
      await testRequest(node, [
        { type: "dns", value: "n1" },
        { type: "email", value: "a@b.c" },
        { type: "url", value: "https://x" },
      ]),
    );
    expect(signerRestrictionProblems(extra, [...servingUsages, "client auth"], "orch.io/nodeagent-serving", "orch.io")).toEqual([
      "Email subjectAltNames are not allowed",
      "URI subjectAltNames are not allowed",
      "usages did not match [digital signature key encipherment server auth]",
    ]);
  });

  it("refuses a requested CA bit for every built-in signer, and nothing else for legacy-unknown", async () => {
    const ca = parseCertificateRequest(await testRequest("CN=x", [], [new x509.BasicConstraintsExtension(true)]));
    expect(signerRestrictionProblems(ca, ["cert sign", "any"], "orch.io/legacy-unknown", "orch.io")).toEqual(["CA certificates are not allowed"]);
    expect(signerRestrictionProblems(ca, ["client auth"], "orch.io/orch-apiserver-client", "orch.io")).toEqual(["CA certificates are not allowed"]);
    const plain = parseCertificateRequest(await testRequest("CN=x"));
    expect(signerRestrictionProblems(plain, ["cert sign", "any"], "orch.io/legacy-unknown", "orch.io")).toEqual([]);
  });

  it("throws for a signer that is not built in", async () => {
    const request = parseCertificateRequest(await testRequest("CN=x"));
    expect(() => signerRestrictionProblems(request, [], "example.com/custom", "orch.io")).toThrow("example.com/custom is not a built-in signer of orch.io");
  });
});
