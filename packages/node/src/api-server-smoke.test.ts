/**
 * The adapter in front of the real `APIServer`, over real TLS. Only what holds for any server
 * is asserted: it serves, TLS works, the client certificate's user reaches `handle`, close ends.
 */
import { request as httpsRequest } from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import { APIServer, type APIRequest } from "@orch/server";
import { clientCertificate, selfSignedCA, servingCertificate } from "./internal/test-pki.js";
import type { RequestHandler } from "./request-listener.js";
import { serve, type ServedServer } from "./serve.js";

let served: ServedServer | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe("serve(new APIServer()) over TLS", () => {
  it("answers a client with a certificate, and hands its user to handle", async () => {
    const ca = await selfSignedCA("CN=smoke-ca");
    const [serving, admin] = await Promise.all([servingCertificate(ca), clientCertificate(ca, "CN=admin, O=system:masters")]);
    const api = new APIServer();
    await api.ready();
    const seen: APIRequest[] = [];
    const spy: RequestHandler = {
      maxRequestBodyBytes: api.maxRequestBodyBytes,
      handle: (req) => {
        seen.push(req);
        return api.handle(req);
      },
      shutdown: () => api.shutdown(),
    };
    served = await serve(spy, { tls: { key: serving.key, cert: serving.cert, ca: ca.cert } });
    const status = await new Promise<number>((resolve, reject) => {
      httpsRequest(`${served!.url}/version`, { ca: ca.cert, cert: admin.cert, key: admin.key, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
        .on("error", reject)
        .end();
    });
    expect(status).toBeGreaterThanOrEqual(100);
    expect(seen[0]?.peerCertificates?.[0]).toEqual(new Uint8Array(admin.certificate.rawData));
    await served.close();
    served = undefined;
  });
});
