/**
 * Slow clients cannot starve the server: a thousand connections that trickle their headers, a
 * thousand that trickle a request body, and a thousand that never finish a TLS handshake stay
 * open while another client lists, creates and reads objects, and the server cuts each of them
 * off once its receive timeout (`headersTimeoutMs`, `requestTimeoutMs` of `serve`, the same
 * listener `orch-apiserver` runs) has passed, without answering and without storing anything.
 * In-process, with the timeouts shortened so the test takes seconds; how many connections it
 * opens is capped by the file descriptors this process may hold.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureCertificates } from "@orch/cli";
import { serve, type ServedServer } from "@orch/node";
import { APIServer } from "@orch/server";

/** The soft limit on open files of this process, as the shell reports it. */
function openFileLimit(): number {
  const text = execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim();
  return text === "unlimited" ? Number.MAX_SAFE_INTEGER : Number(text);
}

// Each slow connection holds two descriptors here (the client's socket and the server's); keep
// a margin for what vitest, the server and the normal client hold.
const slowCount = Math.max(50, Math.min(1000, Math.floor((openFileLimit() - 1024) / 2)));
// Long enough that a loaded machine opens every slow connection and serves the normal client
// well before it; the cut-off waits below are far longer still.
const headersTimeoutMs = 10_000;
const requestTimeoutMs = 12_000;

let served: ServedServer | undefined;
let dataDir: string | undefined;
const sockets: Socket[] = [];
let dripper: NodeJS.Timeout | undefined;

afterEach(async () => {
  clearInterval(dripper);
  for (const s of sockets.splice(0)) s.destroy();
  await served?.close();
  served = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

/** A raw connection the test trickles bytes into, and what it saw. */
interface SlowConnection {
  readonly socket: Socket;
  /** What the server sent back (nothing, when it cut the connection off). */
  received: string;
  /** Whether the connection has closed, and when it does. */
  closed: boolean;
  readonly whenClosed: Promise<void>;
}

/**
 * Opens `count` connections to `port`, writing `head` on each as it connects, in batches so the
 * listen backlog never overflows. Resolves once all are connected.
 */
async function openSlow(port: number, count: number, head: string): Promise<SlowConnection[]> {
  const connections: SlowConnection[] = [];
  for (let start = 0; start < count; start += 100) {
    const batch = Array.from({ length: Math.min(100, count - start) }, () => {
      const socket = connect(port, "127.0.0.1");
      sockets.push(socket);
      const connection = {
        socket,
        received: "",
        closed: false,
        whenClosed: new Promise<void>((resolve) =>
          socket.once("close", () => {
            connection.closed = true;
            resolve();
          }),
        ),
      };
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (connection.received += chunk));
      socket.on("error", () => undefined);
      connections.push(connection);
      return new Promise<void>((resolve, reject) => {
        socket.once("connect", () => {
          if (head !== "") socket.write(head);
          resolve();
        });
        socket.once("error", reject);
      });
    });
    await Promise.all(batch);
  }
  return connections;
}

/** Writes the next byte of `drip` to every open connection once a second. */
function trickle(connections: SlowConnection[], drip: string): void {
  let at = 0;
  dripper = setInterval(() => {
    const byte = drip[at++ % drip.length]!;
    for (const c of connections) if (!c.closed) c.socket.write(byte);
  }, 1_000);
}

/** Waits (generously: the machine may be loaded) for every slow connection to be cut off. */
async function allClosed(connections: SlowConnection[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${connections.filter((c) => !c.closed).length} slow connections still open after ${ms} ms`)), ms);
  });
  await Promise.race([Promise.all(connections.map((c) => c.whenClosed)), timeout]).finally(() => clearTimeout(timer));
}

interface Answer {
  status: number;
  body: string;
}

/** One request of the well-behaved client, on a connection of its own, bounded to 20 s. */
function send(url: string, method: string, path: string, body?: unknown, ca?: string): Promise<Answer> {
  const target = new URL(path, url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: "application/json" };
  if (payload !== undefined) Object.assign(headers, { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) });
  return new Promise((resolve, reject) => {
    const options = { method, headers, agent: false as const, timeout: 20_000 };
    const onResponse = (res: IncomingMessage) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on("error", reject);
    };
    const req = ca === undefined ? httpRequest(target, options, onResponse) : httpsRequest(target, { ...options, ca }, onResponse);
    req.on("timeout", () => req.destroy(new Error(`${method} ${path} not answered in 20 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}

/** What a well-behaved client does while the slow ones hang on: list, create, read back. */
async function useNormally(url: string, name: string, ca?: string): Promise<void> {
  const list = await send(url, "GET", "/api/v1/namespaces/default/configmaps", undefined, ca);
  expect(list.status).toBe(200);
  const created = await send(url, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name }, data: { served: "yes" } }, ca);
  expect(created.status).toBe(201);
  const read = await send(url, "GET", `/api/v1/namespaces/default/configmaps/${name}`, undefined, ca);
  expect(read.status).toBe(200);
  expect(JSON.parse(read.body)).toMatchObject({ metadata: { name }, data: { served: "yes" } });
  expect((await send(url, "GET", "/readyz", undefined, ca)).status).toBe(200);
}

async function configMapNames(api: APIServer): Promise<string[]> {
  const res = await api.handle({ method: "GET", url: "/api/v1/namespaces/default/configmaps", headers: new Headers() });
  return (JSON.parse(String(res.body)) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name).sort();
}

async function openConnections(server: ServedServer): Promise<number> {
  return new Promise((resolve, reject) => server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

async function startServer(tls?: { key: string; cert: string }): Promise<{ api: APIServer; served: ServedServer }> {
  const api = new APIServer();
  await api.ready();
  served = await serve(api, { headersTimeoutMs, requestTimeoutMs, ...(tls ? { tls } : {}) });
  return { api, served };
}

describe(`${slowCount} slow clients`, () => {
  it("that trickle their headers do not keep another client from being served, and are cut off after the header timeout", async () => {
    const { api, served } = await startServer();
    const slow = await openSlow(served.port, slowCount, "G");
    trickle(slow, "ET /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(64));
    await useNormally(served.url, "while-headers-trickle");
    // Answered while every slow connection was still open.
    expect(slow.filter((c) => c.closed)).toHaveLength(0);
    await allClosed(slow, headersTimeoutMs + 60_000);
    // Cut off without an answer, as the reference server's header timeout does.
    expect(slow.filter((c) => c.received !== "")).toHaveLength(0);
    expect(await openConnections(served)).toBe(0);
    expect(await configMapNames(api)).toEqual(["while-headers-trickle"]);
    // And the server still serves.
    await useNormally(served.url, "after-headers-trickle");
  }, 120_000);

  it("that trickle the body of a create do not keep another client from being served, and are cut off after the request timeout", async () => {
    const { api, served } = await startServer();
    const head = "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n";
    const slow = await openSlow(served.port, slowCount, head);
    trickle(slow, '{"metadata":{"name":"slow"},"data":{"k":"' + "v".repeat(64));
    await useNormally(served.url, "while-bodies-trickle");
    expect(slow.filter((c) => c.closed)).toHaveLength(0);
    await allClosed(slow, requestTimeoutMs + 60_000);
    expect(slow.filter((c) => c.received !== "")).toHaveLength(0);
    expect(await openConnections(served)).toBe(0);
    // None of the trickled creates reached the store.
    expect(await configMapNames(api)).toEqual(["while-bodies-trickle"]);
    await useNormally(served.url, "after-bodies-trickle");
  }, 120_000);

  it("that never finish a TLS handshake do not keep another client from being served, and are cut off after the header timeout", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "orch-slow-"));
    const certificates = await ensureCertificates(dataDir, { bindAddress: "127.0.0.1" });
    const { api, served } = await startServer({ key: certificates.serverKey, cert: certificates.serverCert });
    // A TLS record header of a ClientHello, then its body a byte a second.
    const slow = await openSlow(served.port, slowCount, "\x16\x03\x01\x02\x00");
    trickle(slow, "\x01");
    await useNormally(served.url, "while-handshakes-trickle", certificates.caCert);
    expect(slow.filter((c) => c.closed)).toHaveLength(0);
    await allClosed(slow, headersTimeoutMs + 60_000);
    expect(slow.filter((c) => c.received !== "")).toHaveLength(0);
    expect(await configMapNames(api)).toEqual(["while-handshakes-trickle"]);
  }, 120_000);
});
