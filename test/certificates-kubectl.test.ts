/**
 * CertificateSigningRequests end to end with kubectl, against `orch-apiserver --domain k8s.io`
 * (whose built-in controllers include `csrsigning`): the admin submits a PKCS#10 request made by
 * openssl for signer `kubernetes.io/kube-apiserver-client`, `kubectl certificate approve`
 * approves it (kubectl writes the approval sub-resource in protobuf under k8s.io), csrsigning
 * issues the certificate, and that certificate with its key then authenticates as the request's
 * subject; `kubectl certificate deny` denies another request; `kubectl get csr` prints the
 * reference's columns.
 */
import { X509Certificate, createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { parse as parseYAML, stringify as stringifyYAML } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminTLS, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { tableRows, until } from "./support/authorization.js";
import { kubectlFor, type Kubectl, type Options } from "./support/kubectl.js";
import { opensslRequest } from "./support/openssl.js";

const signerName = "kubernetes.io/kube-apiserver-client";

let server: RunningAPIServer;
let admin: Kubectl;
const kubectls: Kubectl[] = [];

beforeAll(async () => {
  server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
  admin = await kubectlFor(server);
  kubectls.push(admin);
});

afterAll(async () => {
  for (const kubectl of kubectls) await kubectl.close();
  expect(await server?.stop()).toBe(0);
});

/** Runs kubectl and expects it to succeed without a word on stderr; its stdout. */
async function ok(kubectl: Kubectl, args: readonly string[], options?: Options): Promise<string> {
  const res = await kubectl(args, options);
  expect({ code: res.code, stderr: res.stderr }, `kubectl ${args.join(" ")}`).toEqual({ code: 0, stderr: "" });
  return res.stdout;
}

/** A CertificateSigningRequest manifest named `name` for `request` (PEM), as a user writes it. */
function csrManifest(name: string, request: string, extra: Record<string, unknown> = {}): string {
  return stringifyYAML({
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name },
    spec: { request: Buffer.from(request).toString("base64"), signerName, usages: ["digital signature", "client auth"], ...extra },
  });
}

/** The conditions of CSR `name`, as `kubectl get -o json` shows them. */
async function conditionsOf(name: string): Promise<Record<string, string>[]> {
  const csr = JSON.parse(await ok(admin, ["get", "csr", name, "-o", "json"])) as { status?: { conditions?: Record<string, string>[] } };
  return csr.status?.conditions ?? [];
}

/**
 * A kubectl whose kubeconfig has the admin kubeconfig's cluster and a user of `cert` and `key`
 * (PEM), embedded as `client-certificate-data` and `client-key-data`.
 */
async function kubectlWithCertificate(user: string, cert: string, key: string): Promise<Kubectl> {
  const config = parseYAML(await readFile(server.kubeconfigPath, "utf8")) as { clusters: { name: string; cluster: Record<string, unknown> }[] };
  const cluster = config.clusters[0]!;
  const kubeconfigPath = await admin.file(
    `${user}.kubeconfig`,
    stringifyYAML({
      apiVersion: "v1",
      kind: "Config",
      clusters: [cluster],
      users: [
        { name: user, user: { "client-certificate-data": Buffer.from(cert).toString("base64"), "client-key-data": Buffer.from(key).toString("base64") } },
      ],
      contexts: [{ name: user, context: { cluster: cluster.name, user } }],
      "current-context": user,
    }),
  );
  const kubectl = await kubectlFor({ kubeconfigPath });
  kubectls.push(kubectl);
  return kubectl;
}

describe("kubectl certificate approve and deny (--domain k8s.io)", () => {
  let alice: { key: string; request: string };
  let certificate = "";

  beforeAll(() => {
    alice = opensslRequest("/CN=alice/O=dev");
  });

  it("approves alice's request with the reference's line; csrsigning issues a certificate for CN=alice from the cluster CA", async () => {
    expect(await ok(admin, ["create", "-f", "-"], { input: csrManifest("alice", alice.request) })).toBe(
      "certificatesigningrequest.certificates.k8s.io/alice created\n",
    );
    expect(await ok(admin, ["certificate", "approve", "alice"])).toBe("certificatesigningrequest.certificates.k8s.io/alice approved\n");

    let encoded = "";
    await until(
      async () => (encoded = await ok(admin, ["get", "csr", "alice", "-o", "jsonpath={.status.certificate}"])) !== "",
      () => "csrsigning to issue alice's certificate",
      15_000,
    );
    certificate = Buffer.from(encoded, "base64").toString("utf8");
    const x509 = new X509Certificate(certificate);
    expect(x509.subject).toBe("CN=alice\nO=dev");
    expect(x509.checkPrivateKey(createPrivateKey(alice.key))).toBe(true);
    expect(x509.checkIssued(new X509Certificate((await adminTLS(server.dataDir)).ca))).toBe(true);
    // Extended key usage: client auth only.
    expect(x509.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]);
    expect(await conditionsOf("alice")).toEqual([
      expect.objectContaining({ type: "Approved", status: "True", reason: "KubectlApprove", message: "This CSR was approved by kubectl certificate approve." }),
    ]);
  });

  it("the issued certificate and its key authenticate as alice in group dev (kubectl auth whoami)", async () => {
    expect(certificate).not.toBe("");
    const asAlice = await kubectlWithCertificate("alice", certificate, alice.key);
    const review = JSON.parse(await ok(asAlice, ["auth", "whoami", "-o", "json"])) as { kind: string; status: { userInfo: unknown } };
    expect(review.kind).toBe("SelfSubjectReview");
    expect(review.status.userInfo).toEqual({ username: "alice", groups: ["dev", "system:authenticated"] });
  });

  it("refuses a request for system:masters through the client signer (CertificateSubjectRestriction)", async () => {
    const root = opensslRequest("/CN=root/O=system:masters");
    const res = await admin(["create", "-f", "-"], { input: csrManifest("root", root.request) });
    expect(res).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "root" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed\n',
    });
  });

  it("denies a second request: Denied with the reference's reason, and no certificate", async () => {
    const other = opensslRequest("/CN=mallory/O=ops");
    expect(await ok(admin, ["create", "-f", "-"], { input: csrManifest("mallory", other.request, { expirationSeconds: 3600 }) })).toBe(
      "certificatesigningrequest.certificates.k8s.io/mallory created\n",
    );
    expect(await ok(admin, ["certificate", "deny", "mallory"])).toBe("certificatesigningrequest.certificates.k8s.io/mallory denied\n");
    expect(await conditionsOf("mallory")).toEqual([
      expect.objectContaining({ type: "Denied", status: "True", reason: "KubectlDeny", message: "This CSR was denied by kubectl certificate deny." }),
    ]);
    expect(await ok(admin, ["get", "csr", "mallory", "-o", "jsonpath={.status.certificate}"])).toBe("");
  });

  it("kubectl get csr shows NAME, AGE, SIGNERNAME, REQUESTOR, REQUESTEDDURATION and CONDITION", async () => {
    const requestor = await ok(admin, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    const out = await ok(admin, ["get", "csr"]);
    expect(out.split("\n")[0]).toMatch(/^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION$/);
    const age = expect.stringMatching(/^\d+s$/) as unknown;
    expect(tableRows(out)).toEqual([
      { NAME: "alice", AGE: age, SIGNERNAME: signerName, REQUESTOR: requestor, REQUESTEDDURATION: "<none>", CONDITION: "Approved,Issued" },
      { NAME: "mallory", AGE: age, SIGNERNAME: signerName, REQUESTOR: requestor, REQUESTEDDURATION: "60m", CONDITION: "Denied" },
    ]);
  });
});
