/**
 * The server side of the operating benchmark, in its own process: two `APIServer`s of the same
 * build over HTTPS (a generated CA) taking the same static tokens of two users, `lister` and
 * `getter`, and holding the same objects (ConfigMap `bench` and 500 ConfigMaps in `listed`):
 * `operated` runs with Prometheus metrics, an audit policy at `Metadata` for every request
 * written to a log file (one event per request: `RequestReceived` omitted, as production
 * policies do), and API priority and fairness with the default limits; `plain` with none of the three. Prints
 * one line, `ready <json>`, with both ports, the CA and the tokens; then answers each line read
 * on stdin with `cpu <µs>`, the CPU time the process has used so far, except a `loop` line,
 * which it answers with `loop <json>`, the delay of its event loop since the last `loop` line.
 * @module
 */
import { parseTokenFile } from "@orch/authn";
import { createCertificateAuthority } from "@orch/cli";
import { prometheusMetrics, serve } from "@orch/node";
import { APIServer, type APIServerOptions } from "@orch/server";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { AuditLogWriter } from "../packages/cli/src/audit-log.js";

/** What the target prints after `ready `. */
export interface OperatingTarget {
  /** The port of the server with metrics, audit and flow control. */
  operatedPort: number;
  /** The port of the server with none of them. */
  plainPort: number;
  /** The CA of the serving certificates. */
  ca: string;
  /** The static tokens of the two users. */
  tokens: { lister: string; getter: string };
  /** The audit log the operated server writes. */
  auditLog: string;
}

/** The event-loop delay of the target since it was last asked (ms; as `monitorEventLoopDelay` at 1 ms resolution sees it). */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** How many ConfigMaps the `lister` lists at once. */
export const listedCount = 500;

const ca = await createCertificateAuthority();
const serving = await ca.issue({ subject: "CN=127.0.0.1", ips: ["127.0.0.1"], usage: "server" });
const tokens = { lister: "3f0c8a52-operating-bench-lister-0001", getter: "3f0c8a52-operating-bench-getter-0002" };
const tokenFile = `${tokens.lister},lister,1001\n${tokens.getter},getter,1002\n`;
const admin = { name: "admin", groups: ["system:masters"] };
const encoder = new TextEncoder();
const auditLog = join(mkdtempSync(join(tmpdir(), "orch-operating-bench-")), "audit.log");

/** POSTs `body` to `url` as the admin; throws unless it is created. */
async function create(api: APIServer, url: string, body: object): Promise<void> {
  const res = await api.handle({
    method: "POST",
    url,
    user: admin,
    headers: new Headers({ "content-type": "application/json" }),
    body: encoder.encode(JSON.stringify(body)),
  });
  if (res.status !== 201) throw new Error(`POST ${url}: ${res.status}`);
}

/** A server with `options`, loaded with the benchmark's objects, served over HTTPS. */
async function started(options: APIServerOptions): Promise<number> {
  const api = new APIServer({ authenticators: [parseTokenFile(tokenFile)], ...options });
  await api.ready();
  await create(api, "/api/v1/namespaces", { metadata: { name: "listed" } });
  await create(api, "/api/v1/namespaces/default/configmaps", { metadata: { name: "bench" }, data: { key: "value".repeat(20) } });
  for (let i = 0; i < listedCount; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        create(api, "/api/v1/namespaces/listed/configmaps", { metadata: { name: `cm-${i + j}`, labels: { app: "bench" } }, data: { key: "value".repeat(20) } }),
      ),
    );
  }
  const served = await serve(api, { port: 0, tls: { cert: serving.certPem, key: serving.keyPem } });
  return served.port;
}

const features = (process.env["ORCH_BENCH_FEATURES"] ?? "metrics,audit,apf").split(",");
const operatedPort = await started({
  ...(features.includes("metrics") ? { metrics: prometheusMetrics() } : {}),
  ...(features.includes("audit")
    ? { audit: { policy: { omitStages: ["RequestReceived" as const], rules: [{ level: "Metadata" as const }] }, sink: new AuditLogWriter({ path: auditLog }) } }
    : {}),
  ...(features.includes("apf") ? { flowControl: {} } : {}),
});
const plainPort = await started({});
const result: OperatingTarget = { operatedPort, plainPort, ca: ca.certPem, tokens, auditLog };
console.log(`ready ${JSON.stringify(result)}`);
// The delay of the process's event loop (both servers share it), from the last `loop` line on.
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
process.stdin.setEncoding("utf8").on("data", (lines: string) => {
  for (const line of lines.split("\n").slice(0, -1)) {
    if (line === "loop") {
      const ms = (ns: number) => Math.round(ns / 1e4) / 100;
      const delay: LoopDelay = { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) };
      loopDelay.reset();
      console.log(`loop ${JSON.stringify(delay)}`);
      continue;
    }
    const { user, system } = process.cpuUsage();
    console.log(`cpu ${user + system}`);
  }
});
