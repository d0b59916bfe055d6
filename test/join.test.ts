/**
 * A node joins the reference's way, over real HTTPS against `orch-apiserver
 * --enable-bootstrap-token-auth --controllers=*,bootstrapsigner`: the admin creates a bootstrap
 * token Secret; the node reads `cluster-info` anonymously (trusting nothing yet), checks the
 * signature the bootstrap signer put there for its token, authenticates with the token, asks for a
 * node-agent client certificate, which `csrapproving` approves and `csrsigning` signs, and then
 * talks to the server with that certificate as `system:node:<name>`.
 */
import { X509Certificate } from "node:crypto";
import { bootstrapTokenSecret, generateBootstrapToken, verifyClusterInfo } from "@orch/certificates";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, httpsRequestTo, startAPIServer, type RawResponse, type RunningAPIServer } from "./support/apiserver.js";
import { until } from "./support/authorization.js";
import { opensslRequest } from "./support/openssl.js";

let server: RunningAPIServer;

beforeAll(async () => {
  server = await startAPIServer({ flags: ["--enable-bootstrap-token-auth", "--controllers=*,bootstrapsigner"] });
}, 60_000);

afterAll(async () => {
  expect(await server?.stop()).toBe(0);
});

/** Polls `read` until `done` holds of its answer, 10 s at most (then fails, naming `what`); resolves with that answer. */
async function answer<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value: T | undefined;
  await until(
    async () => done((value = await read())),
    () => what,
    10_000,
  );
  return value as T;
}

/** A request that trusts any server certificate: what a node has before it read cluster-info. */
function untrusted(url: string, path: string): Promise<RawResponse> {
  return httpsRequestTo(url, { rejectUnauthorized: false }, { path });
}

describe("joining a node with a bootstrap token", () => {
  it("reads and verifies cluster-info, gets a node certificate approved and signed, and uses it", async () => {
    const token = generateBootstrapToken();
    const created = await adminRequest(server, {
      method: "POST",
      path: "/api/v1/namespaces/orch-system/secrets",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(bootstrapTokenSecret(token)),
    });
    expect(created.status).toBe(201);

    // 1. cluster-info, read anonymously without trusting the server yet, signed for this token.
    const id = token.split(".")[0]!;
    const info = await answer(
      "cluster-info signed for the token",
      () => untrusted(server.url, "/api/v1/namespaces/orch-public/configmaps/cluster-info"),
      (res) => res.status === 200 && typeof (res.json as { data?: Record<string, string> }).data?.[`jws-kubeconfig-${id}`] === "string",
    );
    const data = (info.json as { data: Record<string, string> }).data;
    expect(await verifyClusterInfo(data["kubeconfig"]!, data[`jws-kubeconfig-${id}`]!, token)).toBe(true);
    expect(await verifyClusterInfo(data["kubeconfig"]!, data[`jws-kubeconfig-${id}`]!, `${id}.0000000000000000`)).toBe(false);
    const kubeconfig = parse(data["kubeconfig"]!) as { clusters: { cluster: { server: string; "certificate-authority-data": string } }[] };
    const ca = Buffer.from(kubeconfig.clusters[0]!.cluster["certificate-authority-data"], "base64").toString("utf8");
    expect(kubeconfig.clusters[0]!.cluster.server).toBe(server.url);

    // 2. Now trusting that CA: a node-agent client request, made with the token.
    const { key, request: pkcs10 } = opensslRequest("/O=system:nodes/CN=system:node:joiner");
    const asToken = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const request = {
      apiVersion: "certificates.orch.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name: "node-csr-joiner" },
      spec: {
        request: Buffer.from(pkcs10).toString("base64"),
        signerName: "orch.io/orch-apiserver-client-nodeagent",
        usages: ["digital signature", "key encipherment", "client auth"],
      },
    };
    const posted = await httpsRequestTo(
      server.url,
      { ca },
      { method: "POST", path: "/apis/certificates.orch.io/v1/certificatesigningrequests", headers: asToken, body: JSON.stringify(request) },
    );
    expect(posted.status).toBe(201);
    expect((posted.json as { spec: { username: string; groups: string[] } }).spec).toMatchObject({
      username: `system:bootstrap:${id}`,
      groups: expect.arrayContaining(["system:bootstrappers"]) as unknown,
    });

    // 3. Approved by csrapproving, signed by csrsigning.
    const signed = await answer(
      "the CSR signed",
      () => httpsRequestTo(server.url, { ca }, { path: "/apis/certificates.orch.io/v1/certificatesigningrequests/node-csr-joiner", headers: asToken }),
      (res) => typeof (res.json as { status?: { certificate?: string } }).status?.certificate === "string",
    );
    const status = (signed.json as { status: { certificate: string; conditions: { type: string; reason: string }[] } }).status;
    expect(status.conditions).toEqual([expect.objectContaining({ type: "Approved", reason: "AutoApproved" })]);
    const certificate = Buffer.from(status.certificate, "base64").toString("utf8");
    expect(new X509Certificate(certificate).subject).toBe("O=system:nodes\nCN=system:node:joiner");

    // 4. The new certificate is an identity the server trusts at once.
    const review = await httpsRequestTo(
      server.url,
      { ca, cert: certificate, key },
      {
        method: "POST",
        path: "/apis/authentication.orch.io/v1/selfsubjectreviews",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" }),
      },
    );
    expect(review.status).toBe(201);
    expect((review.json as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo).toMatchObject({
      username: "system:node:joiner",
      groups: expect.arrayContaining(["system:nodes", "system:authenticated"]) as unknown,
    });
  });
});
