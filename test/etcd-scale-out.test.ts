import { Agent, request as httpsRequest } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminTLS, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { startEtcdCluster, type EtcdCluster } from "./support/etcd.js";

let etcd: EtcdCluster;
let a: RunningAPIServer;
let b: RunningAPIServer;
const agents: Agent[] = [];

beforeAll(async () => {
  etcd = await startEtcdCluster(3);
  const flags = ["--etcd-servers", etcd.endpoints.join(",")];
  [a, b] = await Promise.all([startAPIServer({ flags }), startAPIServer({ flags })]);
}, 120_000);

afterAll(async () => {
  for (const agent of agents) agent.destroy();
  await Promise.all([a?.stop(), b?.stop()]);
  await etcd?.stop();
});

/** A keep-alive HTTPS client holding `server`'s admin certificate; each call bounded at 10 s. */
async function client(server: RunningAPIServer): Promise<(method: string, path: string, body?: unknown) => Promise<{ status: number; json: unknown }>> {
  const agent = new Agent({ ...(await adminTLS(server.dataDir)), keepAlive: true });
  agents.push(agent);
  return (method, path, body) =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(
        `${server.url}${path}`,
        { agent, method, headers: body === undefined ? {} : { "content-type": "application/json" }, timeout: 10_000 },
        (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (c: string) => (text += c));
          res.on("error", reject);
          res.on("end", () => resolve({ status: res.statusCode ?? 0, json: text === "" ? undefined : (JSON.parse(text) as unknown) }));
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on("error", reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
}

interface WatchEvent {
  type: string;
  object: { metadata: { name: string; resourceVersion: string } };
}

/** Opens a watch on `server` and collects its events until `count` arrived (bounded). */
async function watchEvents(server: RunningAPIServer, path: string, count: number, opened: () => void): Promise<WatchEvent[]> {
  const tls = await adminTLS(server.dataDir);
  return new Promise((resolve, reject) => {
    const events: WatchEvent[] = [];
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`watch got ${events.length} of ${count} events in time`));
    }, 30_000);
    const req = httpsRequest(`${server.url}${path}`, { ...tls, agent: false }, (res) => {
      expect(res.statusCode).toBe(200);
      opened();
      let buffer = "";
      res.setEncoding("utf8").on("data", (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line === "") continue;
          events.push(JSON.parse(line) as WatchEvent);
          if (events.length === count) {
            clearTimeout(timer);
            req.destroy();
            resolve(events);
          }
        }
      });
      res.on("error", () => undefined);
    });
    req.on("error", (error) => {
      if (events.length < count) reject(error);
    });
    req.end();
  });
}

describe("two orch-apiservers over one 3-member etcd cluster", () => {
  it("shows objects created through one, in order, to a watch on the other", async () => {
    const callA = await client(a);
    const base = await callA("GET", "/api/v1/namespaces/default/configmaps");
    const rv = (base.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    let onOpen!: () => void;
    const open = new Promise<void>((resolve) => (onOpen = resolve));
    const watched = watchEvents(b, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=60`, 10, onOpen);
    await open;
    const created: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await callA("POST", "/api/v1/namespaces/default/configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `seen-${i}` },
      });
      expect(res.status).toBe(201);
      created.push((res.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    }
    const events = await watched;
    expect(events.map((e) => e.type)).toEqual(Array(10).fill("ADDED"));
    expect(events.map((e) => e.object.metadata.name)).toEqual(Array.from({ length: 10 }, (_, i) => `seen-${i}`));
    expect(events.map((e) => e.object.metadata.resourceVersion)).toEqual(created);
  });

  it("ends 4 clients × 200 increments through both servers, retrying on 409, at exactly 800", async () => {
    const [callA, callB] = await Promise.all([client(a), client(b)]);
    const path = "/api/v1/namespaces/default/configmaps/counter";
    const made = await callA("POST", "/api/v1/namespaces/default/configmaps", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "counter" },
      data: { n: "0" },
    });
    expect(made.status).toBe(201);
    let conflicts = 0;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; i < 200; i++) {
        // Alternate servers per increment: reads from one and writes to the other.
        const read = (w + i) % 2 === 0 ? callA : callB;
        const write = read === callA ? callB : callA;
        for (;;) {
          const got = await read("GET", path);
          expect(got.status).toBe(200);
          const cm = got.json as { data: { n: string } };
          const put = await write("PUT", path, { ...cm, data: { n: String(Number(cm.data.n) + 1) } });
          if (put.status === 200) break;
          expect(put.status).toBe(409);
          conflicts++;
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(worker));
    const final = await callB("GET", path);
    expect((final.json as { data: { n: string } }).data.n).toBe("800");
    expect(conflicts).toBeGreaterThanOrEqual(0);
  }, 120_000);
});
