/**
 * TLS client certificates (`orch-apiserver --client-ca-file ca.crt`): a certificate signed by
 * the client CA names the user by its common name (CN) and the groups by its organizations (O).
 * @module
 */
import { x509Authenticator } from "@orch/authn";
import { serve } from "@orch/node";
import { APIServer } from "@orch/server";
import { clientCertificate, newCA, servingCertificate } from "./pki.js";
import { whoAmIOverHTTPS, type ReviewedUser } from "./whoami.js";

/** Serves HTTPS on a free port, authenticates alice's certificate, and refuses two bad ones. */
export async function clientCertificates(log: (line: string) => void = console.log): Promise<ReviewedUser | undefined> {
  const ca = await newCA();
  const server = new APIServer({ authenticators: [x509Authenticator({ clientCA: ca.certPem })] });
  // `ca` is named to clients in the handshake; the authenticator, not TLS, verifies the chain.
  const served = await serve(server, { port: 0, tls: { ...(await servingCertificate(ca)), ca: ca.certPem } });
  try {
    const alice = await whoAmIOverHTTPS(served.url, { ca: ca.certPem, ...(await clientCertificate(ca, "CN=alice, O=dev, O=ops")) });
    log(`certificate of ${alice.user?.username}: groups ${alice.user?.groups?.join(", ")}`);

    const otherCA = await clientCertificate(await newCA(), "CN=mallory, O=system:masters");
    const expired = await clientCertificate(ca, "CN=alice, O=dev", { expired: true });
    log(`certificate from another CA: ${(await whoAmIOverHTTPS(served.url, { ca: ca.certPem, ...otherCA })).status}`);
    log(`expired certificate: ${(await whoAmIOverHTTPS(served.url, { ca: ca.certPem, ...expired })).status}`);
    return alice.user;
  } finally {
    await served.close();
  }
}
