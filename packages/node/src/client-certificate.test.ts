import { request as httpsRequest } from "node:https";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { APIRequest } from "@orch/server";
import { clientCertificate, selfSignedCA, servingCertificate, type Issued } from "./internal/test-pki.js";
import type { RequestHandler } from "./request-listener.js";
import { serve, type ServedServer } from "./serve.js";

let ca: Issued;
let serving: Issued;
let alice: Issued;
let noName: Issued;
let stranger: Issued;

beforeAll(async () => {
  ca = await selfSignedCA("CN=test-ca");
  serving = await servingCertificate(ca);
  alice = await clientCertificate(ca, "CN=alice, O=dev, O=ops");
  noName = await clientCertificate(ca, "O=dev");
  const otherCA = await selfSignedCA("CN=other-ca");
  stranger = await clientCertificate(otherCA, "CN=mallory, O=system:masters");
});

let served: ServedServer | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(): Promise<APIRequest[]> {
  const seen: APIRequest[] = [];
  const server: RequestHandler = {
    maxRequestBodyBytes: 1024,
    handle: async (req) => {
      seen.push(req);
      return { status: 200, headers: new Headers(), body: "ok" };
    },
    shutdown: async () => {},
  };
  served = await serve(server, { tls: { key: serving.key, cert: serving.cert, ca: ca.cert } });
  return seen;
}

function call(client?: Issued): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(served!.url + "/", { agent: false, ca: ca.cert, ...(client ? { cert: client.cert, key: client.key } : {}) }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The DER bytes of a PEM certificate. */
function der(issued: Issued): Uint8Array {
  return new Uint8Array(issued.certificate.rawData);
}

describe("the client certificate chain over TLS", () => {
  it("hands the server the certificate the client sent, DER, leaf first, and no user", async () => {
    const seen = await start();
    expect(served!.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(await call(alice)).toBe(200);
    expect(seen[0]?.peerCertificates?.[0]).toEqual(der(alice));
    expect(seen[0]?.user).toBeUndefined();
  });

  it("hands no chain without a client certificate", async () => {
    const seen = await start();
    expect(await call()).toBe(200);
    expect(seen[0]?.peerCertificates).toBeUndefined();
  });

  it("hands a certificate of another CA on as it came: verifying it is the server's job", async () => {
    const seen = await start();
    expect(await call(stranger)).toBe(200);
    expect(seen[0]?.peerCertificates?.[0]).toEqual(der(stranger));
    expect(seen[0]?.user).toBeUndefined();
  });

  it("hands a certificate without a common name on as well", async () => {
    const seen = await start();
    expect(await call(noName)).toBe(200);
    expect(seen[0]?.peerCertificates?.[0]).toEqual(der(noName));
  });
});
