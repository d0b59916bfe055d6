/**
 * HTTP benchmarks: `orch` (APIServer behind `@orch/node`) against a bare `node:http` (and
 * `node:https`, with the same generated certificate) server that answers the same JSON, each in
 * its own process, loaded by autocannon from this one, with each server's CPU time per request
 * read from its process; the bare server's work served through `serve()`, so that what the
 * adapter alone costs shows apart from orch's server; a watch fan-out to many HTTP clients; and start-up times of the
 * in-process server and the command. The load generator shares the machine with the server: when
 * it, not the bare server, is the limit, the bare rate and so every share moves with the load on
 * the machine, which the CPU time per request shows.
 * The orch side runs the compiled packages when `tsc -b` built them after their last change (as
 * an installed orch runs), the sources through tsx otherwise.
 * @module
 */
import { createCertificateAuthority } from "@orch/cli";
import { APIServer } from "@orch/server";
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { builtAfterSources } from "../packages/cli/bin/built.js";
import { request } from "node:http";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("..", import.meta.url));

/** One throughput comparison: requests per second of orch over the baseline, and the CPU time each side spent per request. */
export interface ThroughputResult {
  name: string;
  /** `http` or `https`. */
  protocol: Protocol;
  orch: number;
  baseline: number;
  /** orch / baseline. */
  share: number;
  /** The least share the issue asks for; none for the adapter-alone lines, which show a cost. */
  target?: number;
  /** The orch server process's CPU time (user and system) per answered request, in µs. */
  orchCpuUs: number;
  /** The bare server process's CPU time per answered request, in µs. */
  baselineCpuUs: number;
}

/** The protocol a throughput case is served over. */
export type Protocol = "http" | "https";

/** A server under load: where it listens, and a way to read its CPU time. */
interface Target {
  port: number;
  child: ChildProcess;
  /** The target process's user and system CPU time so far, in µs. */
  cpu(): Promise<number>;
}

/** The PEM certificate and key both HTTPS targets serve with (one generated certificate, as a user's server has). */
let benchTLS: Promise<{ cert: string; key: string }> | undefined;
function tlsMaterial(): Promise<{ cert: string; key: string }> {
  benchTLS ??= (async () => {
    const ca = await createCertificateAuthority();
    const serving = await ca.issue({ subject: "CN=127.0.0.1", ips: ["127.0.0.1"], usage: "server" });
    return { cert: serving.certPem, key: serving.keyPem };
  })();
  return benchTLS;
}

async function startTarget(mode: "orch" | "baseline" | "adapter", protocol: Protocol = "http"): Promise<Target> {
  const env = { ...process.env };
  delete env.ORCH_BENCH_TLS_CERT;
  delete env.ORCH_BENCH_TLS_KEY;
  if (protocol === "https") {
    const { cert, key } = await tlsMaterial();
    env.ORCH_BENCH_TLS_CERT = cert;
    env.ORCH_BENCH_TLS_KEY = key;
  }
  const child = spawn(process.execPath, [...(builtAfterSources() ? [] : ["--conditions=@orch/source"]), "--import", "tsx", `${here}http-target.ts`, mode], {
    cwd: root,
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  const waiters: ((line: string) => void)[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    let nl: number;
    while ((nl = out.indexOf("\n")) !== -1) {
      const line = out.slice(0, nl);
      out = out.slice(nl + 1);
      for (const waiter of waiters.splice(0)) waiter(line);
    }
  });
  const nextLine = (pattern: RegExp, what: string) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${mode} target: no ${what}`)), 20_000);
      const exited = () => reject(new Error(`${mode} target exited`));
      child.once("exit", exited);
      const wait = (line: string) => {
        const m = pattern.exec(line);
        if (!m) return void waiters.push(wait);
        clearTimeout(timer);
        child.off("exit", exited);
        resolve(m);
      };
      waiters.push(wait);
    });
  const port = Number((await nextLine(/^port=(\d+)/, "port"))[1]);
  const cpu = async () => {
    const answer = nextLine(/^cpu=(\d+)/, "cpu time");
    child.stdin?.write("cpu\n");
    return Number((await answer)[1]);
  };
  return { port, child, cpu };
}

async function stopTarget(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
}

/** One load case: a method on a path, with a fixed body or one made per request. */
interface LoadCase {
  method: "GET" | "POST" | "PUT" | "PATCH";
  path: string;
  contentType?: string;
  body?: string;
  /** Path and body of each request, for writes spread over several objects. */
  each?: (i: number) => { path: string; body: string };
}

/** Requests per second and the target's CPU µs per answered request over `seconds` of load. */
async function load(target: Target, protocol: Protocol, c: LoadCase, seconds: number): Promise<{ rps: number; cpuUs: number }> {
  let i = 0;
  const each = c.each;
  const cpuBefore = await target.cpu();
  const result = await autocannon({
    url: `${protocol}://127.0.0.1:${target.port}${c.path}`,
    method: c.method,
    connections: 16,
    duration: seconds,
    headers: { "content-type": c.contentType ?? "application/json", accept: "application/json" },
    ...(c.body ? { body: c.body } : {}),
    ...(each ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, ...each(i++) }) }] } : {}),
  });
  const cpuUs = (await target.cpu()) - cpuBefore;
  if (result.non2xx > 0 && result.non2xx > result.requests.total * 0.01) throw new Error(`${result.non2xx} non-2xx answers on ${c.path}`);
  const answered = result.requests.total || 1;
  return { rps: result.requests.average, cpuUs: cpuUs / answered };
}

// The update and patch cases write to u0 ... u255 in turn (http-target.ts creates them), so the
// 16 requests in flight are for 16 different objects, as 16 clients updating their own objects.
const updateTargets = 256;
const data = { key: "value".repeat(20) };
const cases = {
  get: { method: "GET", path: "/api/v1/namespaces/default/configmaps/bench" },
  create: {
    method: "POST",
    path: "/api/v1/namespaces/default/configmaps",
    body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "load-" }, data: { key: "value" } }),
  },
  update: {
    method: "PUT",
    path: "/api/v1/namespaces/default/configmaps/u0",
    each: (i: number) => {
      const name = `u${i % updateTargets}`;
      return {
        path: `/api/v1/namespaces/default/configmaps/${name}`,
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { key: `v${i}` } }),
      };
    },
  },
  patch: {
    method: "PATCH",
    path: "/api/v1/namespaces/default/configmaps/u0",
    contentType: "application/merge-patch+json",
    each: (i: number) => ({
      path: `/api/v1/namespaces/default/configmaps/u${i % updateTargets}`,
      body: JSON.stringify({ data: { key: `p${i}`, extra: data.key } }),
    }),
  },
} satisfies Record<string, LoadCase>;

/**
 * GET of one object, creates, updates and merge patches, orch over the bare server, in requests
 * per second, with each server's CPU time per request beside it (a noisy run shows as a CPU time
 * per request out of line). GET is compared with the bare GET; create, update and patch with the
 * bare POST (the bare server stores whatever it is sent). The bare server's GET and POST served
 * through `serve()` come first, without a target: their share is the adapter's own cost. Each
 * server runs in a process of its own, started once per protocol; orch's creates run last, as
 * they grow its store.
 */
export async function throughput(seconds: number, protocols: readonly Protocol[] = ["http", "https"]): Promise<ThroughputResult[]> {
  const results: ThroughputResult[] = [];
  for (const protocol of protocols) {
    const bare: Record<"get" | "post", { rps: number; cpuUs: number }> = { get: { rps: 0, cpuUs: 0 }, post: { rps: 0, cpuUs: 0 } };
    const baseline = await startTarget("baseline", protocol);
    try {
      for (const [which, c] of [
        ["get", cases.get],
        ["post", cases.create],
      ] as const) {
        await load(baseline, protocol, c, 1); // warm-up
        bare[which] = await load(baseline, protocol, c, seconds);
      }
    } finally {
      await stopTarget(baseline.child);
    }
    // The bare server's own work behind serve(): what the adapter costs, apart from orch's server.
    const adapter = await startTarget("adapter", protocol);
    try {
      for (const [name, c, against] of [
        ["serve() alone: GET (bare's work)", cases.get, bare.get],
        ["serve() alone: POST (bare's work)", cases.create, bare.post],
      ] as const) {
        await load(adapter, protocol, c, 1); // warm-up
        const measured = await load(adapter, protocol, c, seconds);
        results.push({
          name,
          protocol,
          orch: measured.rps,
          baseline: against.rps,
          share: measured.rps / against.rps,
          orchCpuUs: measured.cpuUs,
          baselineCpuUs: against.cpuUs,
        });
      }
    } finally {
      await stopTarget(adapter.child);
    }
    const orch = await startTarget("orch", protocol);
    try {
      const runs = [
        { name: "GET one ConfigMap", c: cases.get, against: bare.get, target: 0.7 },
        { name: "PUT a ConfigMap (update)", c: cases.update, against: bare.post, target: 0.35 },
        { name: "PATCH a ConfigMap (merge patch)", c: cases.patch, against: bare.post, target: 0.35 },
        { name: "POST a ConfigMap (generateName)", c: cases.create, against: bare.post, target: 0.4 },
      ];
      for (const run of runs) {
        await load(orch, protocol, run.c, 1); // warm-up
        const measured = await load(orch, protocol, run.c, seconds);
        results.push({
          name: run.name,
          protocol,
          orch: measured.rps,
          baseline: run.against.rps,
          share: measured.rps / run.against.rps,
          target: run.target,
          orchCpuUs: measured.cpuUs,
          baselineCpuUs: run.against.cpuUs,
        });
      }
    } finally {
      await stopTarget(orch.child);
    }
  }
  return results;
}

/**
 * The printed lines of {@link throughput}: rates, share of the bare server's, CPU time per
 * request on each side, and the share of the bare server's rate that the CPU times alone predict
 * (bare CPU per request over orch's): on a machine where the load generator or other work holds
 * the CPU back, the measured share drifts from run to run and this one much less.
 */
export function throughputLines(results: readonly ThroughputResult[]): string[] {
  return results.map(
    (r) =>
      `${`${r.name} (${r.protocol})`.padEnd(42)} orch ${r.orch.toFixed(0).padStart(6)} req/s ${r.orchCpuUs.toFixed(0).padStart(4)} µs CPU/req   ` +
      `bare ${r.baseline.toFixed(0).padStart(6)} req/s ${r.baselineCpuUs.toFixed(0).padStart(4)} µs CPU/req   ` +
      (r.target === undefined
        ? `${(r.share * 100).toFixed(0)}% of bare (the adapter's own cost)   `
        : `${(r.share * 100).toFixed(0)}% of bare (target ≥${(r.target * 100).toFixed(0)}%) ${r.share >= r.target ? "ok" : "UNDER"}   `) +
      `CPU: ${((r.baselineCpuUs / r.orchCpuUs) * 100).toFixed(0)}% of bare's rate`,
  );
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
