/**
 * An authenticating proxy (`orch-apiserver --requestheader-client-ca-file proxy-ca.crt
 * --requestheader-username-headers X-Remote-User ...`): a proxy in front of the server
 * authenticates users its own way and names them in request headers, proving itself with a
 * client certificate from its own CA.
 * @module
 */
import { requestHeaderAuthenticator } from "@orch/authn";
import { serve } from "@orch/node";
import { APIServer } from "@orch/server";
import { clientCertificate, newCA, servingCertificate } from "./pki.js";
import { whoAmIOverHTTPS, type ReviewedUser } from "./whoami.js";

/** Authenticates carol as named by the proxy, and shows the same headers ignored without the proxy's certificate. */
export async function requestHeader(log: (line: string) => void = console.log): Promise<{ proxied?: ReviewedUser; direct?: ReviewedUser }> {
  const serverCA = await newCA();
  const proxyCA = await newCA();
  const server = new APIServer({
    authenticators: [
      requestHeaderAuthenticator({
        clientCA: proxyCA.certPem,
        allowedNames: ["front-proxy"],
        usernameHeaders: ["X-Remote-User"],
        groupHeaders: ["X-Remote-Group"],
        extraHeaderPrefixes: ["X-Remote-Extra-"],
      }),
    ],
  });
  const served = await serve(server, { port: 0, tls: { ...(await servingCertificate(serverCA)), ca: proxyCA.certPem } });
  try {
    const headers = { "X-Remote-User": "carol", "X-Remote-Group": "dev", "X-Remote-Extra-Scopes": "read,write" };
    const proxy = await clientCertificate(proxyCA, "CN=front-proxy");
    const proxied = await whoAmIOverHTTPS(served.url, { ca: serverCA.certPem, ...proxy, headers });
    log(`through the proxy: ${proxied.user?.username}, groups ${proxied.user?.groups?.join(", ")}, scopes ${proxied.user?.extra?.["scopes"]?.join(", ")}`);

    // Without the proxy's certificate the headers are removed and ignored: the caller is whoever
    // its own credentials make it, here no one.
    const direct = await whoAmIOverHTTPS(served.url, { ca: serverCA.certPem, headers });
    log(`the same headers without the proxy's certificate: ${direct.status} as ${direct.user?.username}`);
    return { ...(proxied.user ? { proxied: proxied.user } : {}), ...(direct.user ? { direct: direct.user } : {}) };
  } finally {
    await served.close();
  }
}
