/// <reference types="node" />
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ClientCertificate, CredentialSource, Credentials } from "./credentials.js";
import { httpTransport } from "./http-transport.js";

let server: Server | undefined;
const seen: (string | undefined)[] = [];

/** A server that records each Authorization header and answers 401 unless it is `Bearer good`. */
async function start(): Promise<string> {
  seen.length = 0;
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    const ok = req.headers.authorization === "Bearer good" || req.headers.authorization?.startsWith("Basic ");
    res.writeHead(ok ? 200 : 401, { "content-type": "text/plain" });
    res.end(ok ? "ok" : "Unauthorized");
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A source handing out `tokens` in turn: each 401 moves to the next, when `refresh` says so. */
function rotating(tokens: string[], refresh = true): CredentialSource & { asked: number; told: Credentials[] } {
  let i = 0;
  const source = {
    asked: 0,
    told: [] as Credentials[],
    credentials: () => {
      source.asked++;
      return Promise.resolve({ token: tokens[Math.min(i, tokens.length - 1)]! });
    },
    unauthorized: (used: Credentials) => {
      source.told.push(used);
      i++;
      return Promise.resolve(refresh);
    },
  };
  return source;
}

describe("httpTransport with a CredentialSource", () => {
  it("asks the source before each request and sends its token as a bearer token", async () => {
    const base = await start();
    const source = rotating(["good"]);
    const transport = httpTransport({ baseURL: base, credentials: source, bearerToken: "ignored" });
    expect((await transport.request({ method: "GET", path: "/a" })).status).toBe(200);
    expect((await transport.request({ method: "GET", path: "/b" })).status).toBe(200);
    expect(source.asked).toBe(2);
    expect(seen).toEqual(["Bearer good", "Bearer good"]);
  });

  it("sends basic credentials as Basic base64(username:password), UTF-8", async () => {
    const base = await start();
    const transport = httpTransport({ baseURL: base, credentials: { credentials: () => Promise.resolve({ basic: { username: "zoë", password: "p:w" } }) } });
    expect((await transport.request({ method: "GET", path: "/" })).status).toBe(200);
    expect(seen).toEqual([`Basic ${Buffer.from("zoë:p:w").toString("base64")}`]);
  });

  it("on a 401 tells the source what it used and, when it refreshed, retries once with the new credentials", async () => {
    const base = await start();
    const source = rotating(["stale", "good"]);
    const transport = httpTransport({ baseURL: base, credentials: source });
    const res = await transport.request({ method: "POST", path: "/x", body: new TextEncoder().encode("{}") });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
    expect(source.told).toEqual([{ token: "stale" }]);
    expect(seen).toEqual(["Bearer stale", "Bearer good"]);
  });

  it("retries at most once: a second 401 is the answer", async () => {
    const base = await start();
    const source = rotating(["bad", "worse", "good"]);
    const res = await httpTransport({ baseURL: base, credentials: source }).request({ method: "GET", path: "/" });
    expect(res.status).toBe(401);
    expect(seen).toEqual(["Bearer bad", "Bearer worse"]);
  });

  it("does not retry when the source says nothing fresher can be had", async () => {
    const base = await start();
    const source = rotating(["bad", "good"], false);
    const res = await httpTransport({ baseURL: base, credentials: source }).request({ method: "GET", path: "/" });
    expect(res.status).toBe(401);
    expect(seen).toEqual(["Bearer bad"]);
  });

  it("does not send the request when the source rejects, and rejects with its error", async () => {
    const base = await start();
    const failure = new Error('user "u" in /k: no token');
    const transport = httpTransport({ baseURL: base, credentials: { credentials: () => Promise.reject(failure) } });
    await expect(transport.request({ method: "GET", path: "/" })).rejects.toBe(failure);
    expect(seen).toEqual([]);
  });

  it("takes the fetch for the credentials' client certificate from fetchFor", async () => {
    const base = await start();
    const certificate: ClientCertificate = { certificate: "CERT", key: "KEY" };
    const asked: (ClientCertificate | undefined)[] = [];
    const fetchFor = (c: ClientCertificate | undefined): typeof fetch => {
      asked.push(c);
      return globalThis.fetch;
    };
    let withCert = true;
    const source: CredentialSource = { credentials: () => Promise.resolve(withCert ? { token: "good", clientCertificate: certificate } : { token: "good" }) };
    const transport = httpTransport({ baseURL: base, credentials: source, fetchFor });
    await transport.request({ method: "GET", path: "/" });
    withCert = false;
    await transport.request({ method: "GET", path: "/" });
    expect(asked).toEqual([certificate, undefined]);
  });
});
