import { request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { APIRequest, APIResponse } from "@orch/server";
import type { RequestHandler } from "../request-listener.js";
import { serve, type ServedServer } from "../serve.js";
import { selfSignedCA, servingCertificate, type Issued } from "./test-pki.js";
import { sliceBytes } from "./write-body.js";

/** A fake server answering with `respond`. */
function fake(respond: (req: APIRequest) => APIResponse): RequestHandler {
  return { maxRequestBodyBytes: 1 << 20, handle: async (req) => respond(req), shutdown: async () => {} };
}

function ok(body: string | Uint8Array, type = "application/json"): APIResponse {
  return { status: 200, headers: new Headers({ "content-type": type }), body };
}

/** About 1 MiB of text with 2-, 3- and 4-byte characters, a surrogate pair across many slice boundaries. */
const text = "aé€😀".repeat(Math.ceil((1 << 20) / 5));
/** 1 MiB of bytes that are not valid UTF-8, as a protobuf body may be. */
const bytes = Uint8Array.from({ length: (1 << 20) + 7 }, (_, i) => (i * 2654435761) >>> 24);

/**
 * A response whose body is `parts`, with a `body` that throws when read: the adapter must write
 * the parts as they are, never the body joined.
 */
function parted(parts: Uint8Array[]): APIResponse {
  return {
    status: 200,
    headers: new Headers({ "content-type": "application/json" }),
    bodyParts: { parts, byteLength: parts.reduce((n, p) => n + p.byteLength, 0) },
    get body(): string {
      throw new Error("the body of parts was read whole");
    },
  };
}

/**
 * Parts like a LIST's, of text with 2-, 3- and 4-byte characters: small ones, one larger than
 * two slices, and an empty one, so that slice boundaries fall inside parts and characters.
 */
const listLike = [
  Buffer.from('{"items":['),
  ...Array.from({ length: 400 }, (_, i) => Buffer.from(`${i === 0 ? "" : ","}{"n":${i},"v":"${"é€😀".repeat(i % 50)}"}`)),
  Buffer.from(`,"${"a€".repeat(sliceBytes)}"`),
  new Uint8Array(0),
  Buffer.from("]}"),
];

let pki: { ca: Issued; serving: Issued };
beforeAll(async () => {
  const ca = await selfSignedCA("CN=slices-ca");
  pki = { ca, serving: await servingCertificate(ca) };
});

let served: ServedServer | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(handler: RequestHandler, tls: boolean): Promise<ServedServer> {
  served = await serve(handler, tls ? { tls: { key: pki.serving.key, cert: pki.serving.cert } } : {});
  return served;
}

/** A request's answer, read whole; when `readAfter` is given, the body is read only once it settles. */
function fetchRaw(
  url: string,
  path: string,
  method = "GET",
  readAfter?: Promise<void>,
): Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }> {
  const send = url.startsWith("https:") ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url + path, { method, agent: false, ca: pki.ca.cert }, (res) => {
      const chunks: Buffer[] = [];
      if (readAfter) {
        res.pause();
        void readAfter.then(() => res.resume());
      }
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** A connection opened (and over TLS, past its handshake) before it is used. */
function openSocket(served: ServedServer, tls: boolean): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tls
      ? tlsConnect({ host: "127.0.0.1", port: served.port, ca: pki.ca.cert }, () => resolve(socket))
      : netConnect(served.port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Everything a socket receives until the server closes it. */
function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (out += chunk));
    socket.once("end", () => resolve(out));
    socket.once("error", reject);
  });
}

describe.each([
  ["HTTP", false],
  ["HTTPS", true],
])("a large body over %s", (_, tls) => {
  it("arrives byte for byte with its Content-Length, as text and as bytes", async () => {
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * sliceBytes);
    const s = await start(
      fake((req) => (req.url === "/text" ? ok(text) : ok(bytes, "application/vnd.kubernetes.protobuf"))),
      tls,
    );
    const [got, gotBytes] = await Promise.all([fetchRaw(s.url, "/text"), fetchRaw(s.url, "/bytes")]);
    expect(got.status).toBe(200);
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect(got.body.equals(Buffer.from(text))).toBe(true);
    expect(gotBytes.headers["content-length"]).toBe(String(bytes.byteLength));
    expect(gotBytes.headers["content-type"]).toBe("application/vnd.kubernetes.protobuf");
    expect(gotBytes.body.equals(Buffer.from(bytes))).toBe(true);
  });

  it("writes a body of parts byte for byte with their summed Content-Length, without joining it", async () => {
    const whole = Buffer.concat(listLike);
    expect(whole.byteLength).toBeGreaterThan(4 * sliceBytes);
    const small = [Buffer.from('{"items":['), Buffer.from('{"n":"é"}'), Buffer.from(","), Buffer.from('{"n":"😀"}'), Buffer.from("]}")];
    const s = await start(
      fake((req) => parted(req.url === "/large" ? listLike : small)),
      tls,
    );
    const [large, few, head] = await Promise.all([fetchRaw(s.url, "/large"), fetchRaw(s.url, "/small"), fetchRaw(s.url, "/large", "HEAD")]);
    expect(large.status).toBe(200);
    expect(large.headers["content-length"]).toBe(String(whole.byteLength));
    expect(large.body.equals(whole)).toBe(true);
    expect(few.headers["content-length"]).toBe(String(Buffer.concat(small).byteLength));
    expect(few.body.toString()).toBe('{"items":[{"n":"é"},{"n":"😀"}]}');
    expect(head.headers["content-length"]).toBe(String(whole.byteLength));
    expect(head.body.byteLength).toBe(0);
  });

  it("writes bodies of parts together to clients that read at once and to clients that wait, each byte for byte", async () => {
    // Distinct bodies of many small parts, each slice copied into a slice buffer that is used again:
    // the waiting clients' bodies are larger than what their connections hold, so their slices stay
    // queued while the other bodies are written, and a buffer used again before its socket took
    // its bytes would put one body's bytes into another.
    const bodies = Array.from({ length: 4 }, (_, b) => [
      Buffer.from('{"items":['),
      ...Array.from({ length: 6000 }, (_, i) =>
        Buffer.from(`${i === 0 ? "" : ","}{"b":${b},"n":${i},"v":"${String.fromCharCode(0x61 + b).repeat(1000 + ((i * 7) % 300))}€"}`),
      ),
      Buffer.from("]}"),
    ]);
    const s = await start(
      fake((req) => parted(bodies[Number(req.url?.slice(1))] ?? [])),
      tls,
    );
    let readersDone = () => {};
    const readFirst = new Promise<void>((resolve) => (readersDone = resolve));
    const late = [fetchRaw(s.url, "/1", "GET", readFirst), fetchRaw(s.url, "/3", "GET", readFirst)];
    const early = await Promise.all([fetchRaw(s.url, "/0"), fetchRaw(s.url, "/2")]);
    readersDone();
    const [one, three] = await Promise.all(late);
    const fetched = [early[0], one, early[1], three];
    // Once more: the bodies are now copied into slice buffers given back by the first round.
    const again = await Promise.all(bodies.map((_, b) => fetchRaw(s.url, `/${b}`)));
    for (const [b, body] of bodies.entries()) {
      const whole = Buffer.concat(body);
      expect(whole.byteLength).toBeGreaterThan(6 << 20);
      expect(fetched[b]?.headers["content-length"]).toBe(String(whole.byteLength));
      expect(fetched[b]?.body.equals(whole)).toBe(true);
      expect(again[b]?.body.equals(whole)).toBe(true);
    }
  });

  it("answers a HEAD with the body's Content-Length and no body", async () => {
    const s = await start(
      fake(() => ok(text)),
      tls,
    );
    const got = await fetchRaw(s.url, "/text", "HEAD");
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(text)));
    expect(got.body.byteLength).toBe(0);
  });

  it("answers a request that arrives while the body is written before the body's last slice", async () => {
    const opened: { other?: Socket } = {};
    let large: ServerResponse | undefined;
    let largeEndedWhenOtherServed: boolean | undefined;
    const s = await start(
      fake((req) => {
        if (req.url === "/small") {
          largeEndedWhenOtherServed = large?.writableEnded;
          return ok("{}");
        }
        // The other request's bytes reach the server's socket before the large body's first slice.
        opened.other?.write("GET /small HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        return ok(text);
      }),
      tls,
    );
    s.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === "/large") large = res;
    });
    const other = await openSocket(s, tls);
    opened.other = other;
    const answered = readAll(other);
    const got = await fetchRaw(s.url, "/large");
    expect(got.body.equals(Buffer.from(text))).toBe(true);
    expect(await answered).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{\}$/);
    expect(largeEndedWhenOtherServed).toBe(false);
  });
});

describe("a client that goes away mid-body", () => {
  it("gets the rest of the body dropped, without an error, and the server keeps serving", async () => {
    // Larger than what the kernel buffers on a loopback connection, so the client leaves mid-write.
    const huge = "x".repeat(48 << 20);
    let large: ServerResponse | undefined;
    const s = await start(
      fake((req) => ok(req.url === "/huge" ? huge : "{}")),
      false,
    );
    s.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === "/huge") large = res;
    });
    let announced: string | undefined;
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${s.url}/huge`, { agent: false }, (res) => {
        announced = res.headers["content-length"];
        res.once("data", () => req.destroy());
        res.on("error", () => undefined);
      });
      req.on("error", () => undefined);
      req.on("close", () => resolve());
      req.end();
    });
    expect(announced).toBe(String(huge.length));
    const response = large;
    if (!response) throw new Error("the large request was not seen");
    if (!response.destroyed) await new Promise((resolve) => response.once("close", resolve));
    expect(response.writableFinished).toBe(false);
    const after = await fetchRaw(s.url, "/small");
    expect(after.status).toBe(200);
    expect(after.body.toString()).toBe("{}");
  });
});
