/**
 * HTTP benchmarks: `orch` (APIServer behind `@orch/node`) against a bare `node:http` server that
 * answers the same JSON, each in its own process, loaded by autocannon from this one; a watch
 * fan-out to many HTTP clients; and start-up times of the in-process server and the command.
 * The orch side runs the compiled packages when `tsc -b` built them after their last change (as
 * an installed orch runs), the sources through tsx otherwise.
 * @module
 */
import { APIServer } from "@orch/server";
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { builtAfterSources } from "../packages/cli/bin/built.js";
import { request } from "node:http";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("..", import.meta.url));

/** One throughput comparison: requests per second of orch over the baseline. */
export interface ThroughputResult {
  name: string;
  orch: number;
  baseline: number;
  /** orch / baseline. */
  share: number;
  /** The least share the issue asks for. */
  target: number;
}

async function startTarget(mode: "orch" | "baseline"): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [...(builtAfterSources() ? [] : ["--conditions=@orch/source"]), "--import", "tsx", `${here}http-target.ts`, mode], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${mode} target did not start`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /port=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", () => reject(new Error(`${mode} target exited`)));
  });
  return { port, child };
}

async function stopTarget(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
}

async function load(port: number, opts: { method: "GET" | "POST"; path: string; body?: string; seconds: number }): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${opts.path}`,
    method: opts.method,
    connections: 16,
    duration: opts.seconds,
    headers: { "content-type": "application/json", accept: "application/json" },
    ...(opts.body ? { body: opts.body } : {}),
  });
  if (result.non2xx > 0 && result.non2xx > result.requests.total * 0.01) throw new Error(`${result.non2xx} non-2xx answers on ${opts.path}`);
  return result.requests.average;
}

/** GET of one object and creates, orch over the bare server, in requests per second. */
export async function throughput(seconds: number): Promise<ThroughputResult[]> {
  const results: ThroughputResult[] = [];
  const cases = [
    { name: "GET one ConfigMap", target: 0.6, method: "GET" as const, path: "/api/v1/namespaces/default/configmaps/bench" },
    {
      name: "POST a ConfigMap (generateName)",
      target: 0.4,
      method: "POST" as const,
      path: "/api/v1/namespaces/default/configmaps",
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "load-" }, data: { key: "value" } }),
    },
  ];
  for (const c of cases) {
    const rps: Record<string, number> = {};
    for (const mode of ["baseline", "orch"] as const) {
      const { port, child } = await startTarget(mode);
      try {
        await load(port, { ...c, seconds: 1 }); // warm-up
        rps[mode] = await load(port, { ...c, seconds });
      } finally {
        await stopTarget(child);
      }
    }
    const orch = rps.orch ?? 0;
    const baseline = rps.baseline ?? 1;
    results.push({ name: c.name, orch, baseline, share: orch / baseline, target: c.target });
  }
  return results;
}

/** Opens `clients` HTTP watches, makes `events` creates, and times until every client saw them all. */
export async function watchFanOut(clients: number, events: number): Promise<{ orchMs: number; baselineMs: number }> {
  const out: Record<string, number> = {};
  for (const mode of ["baseline", "orch"] as const) {
    const { port, child } = await startTarget(mode);
    try {
      let connected = 0;
      const done: Promise<void>[] = [];
      const requests: ReturnType<typeof request>[] = [];
      await new Promise<void>((allConnected) => {
        for (let i = 0; i < clients; i++) {
          done.push(
            new Promise<void>((resolve, reject) => {
              const req = request(
                { host: "127.0.0.1", port, path: "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=1&labelSelector=", agent: false },
                (res) => {
                  let seen = 0;
                  let buffer = "";
                  if (++connected === clients) allConnected();
                  res.on("data", (chunk: Buffer) => {
                    buffer += chunk.toString();
                    let nl: number;
                    while ((nl = buffer.indexOf("\n")) !== -1) {
                      buffer = buffer.slice(nl + 1);
                      if (++seen === events) resolve();
                    }
                  });
                  res.on("error", reject);
                },
              );
              req.on("error", reject);
              req.end();
              requests.push(req);
            }),
          );
        }
      });
      const started = performance.now();
      const body = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "w-" }, data: { k: "v" } });
      for (let i = 0; i < events; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = request(
            { host: "127.0.0.1", port, method: "POST", path: "/api/v1/namespaces/default/configmaps", headers: { "content-type": "application/json" } },
            (res) => {
              res.resume();
              res.on("end", () => resolve());
            },
          );
          req.on("error", reject);
          req.end(body);
        });
      }
      await Promise.all(done);
      out[mode] = performance.now() - started;
      for (const req of requests) req.destroy();
    } finally {
      await stopTarget(child);
    }
  }
  return { orchMs: out.orch ?? 0, baselineMs: out.baseline ?? 0 };
}

/** Milliseconds from `new APIServer()` to `ready()` resolving, best of `rounds`. */
export async function inProcessReadyMs(rounds: number): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    const server = new APIServer();
    await server.ready();
    best = Math.min(best, performance.now() - started);
    await server.shutdown();
  }
  return best;
}

/** Milliseconds from spawning `orch-apiserver` to its ready line (certificates already generated). */
export async function commandReadyMs(dataDir: string): Promise<number> {
  const once = async () => {
    const started = performance.now();
    const child = spawn(`${root}node_modules/.bin/orch-apiserver`, ["--secure-port", "0", "--data-dir", dataDir], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("orch-apiserver did not get ready")), 20_000);
      child.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("orch-apiserver ready")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const ms = performance.now() - started;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    await exited;
    return ms;
  };
  await once(); // generates the certificates
  return Math.min(await once(), await once());
}
