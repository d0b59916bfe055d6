/**
 * Authorization benchmark. Over HTTPS: GET of one ConfigMap by a static-token user from an orch
 * server with `authorization: ["RBAC"]` holding 1,000 ClusterRoles, 1,000 Roles and 5,000
 * RoleBindings across 100 namespaces (the user bound in one of them), against the same setup
 * with `["AlwaysAllow"]`: both servers in one process of the same build (`authz-target.ts`),
 * loaded in turn by autocannon from this process over 16 keep-alive connections, the order
 * rotated each round, with the server's CPU time per request beside the throughput. In
 * process: the time of one `rbacAuthorizer(index).authorize(...)` over the same objects and the
 * bootstrap policy, for the user's allowed request and for one it is not allowed. Figures are
 * printed, never asserted. Run it alone with
 * `npx tsx --conditions=@orch/source bench/authz.bench.ts [--quick]`.
 * @module
 */
import { aggregatedRules, bootstrapPolicy, RBACIndex, rbacAuthorizer, type Attributes, type ClusterRole } from "@orch/authz";
import { request } from "node:https";
import { pathToFileURL } from "node:url";
import { authzFixture, benchGroup, benchNamespace, benchUser } from "./authz-fixture.js";
import type { AuthzTarget } from "./authz-target.js";
import { httpsLoad, median, startCpuTarget, stopCpuTarget, type CpuTarget } from "./cpu-target.js";

const path = `/api/v1/namespaces/${benchNamespace}/configmaps/bench`;

/** The HTTPS comparison. */
export interface AuthzThroughput {
  /** Requests per second with RBAC (median of the rounds). */
  rps: number;
  /** Requests per second with AlwaysAllow (median of the rounds). */
  baseline: number;
  /** The median over the rounds of rps / baseline within a round. */
  share: number;
  /** The least share asked for. */
  target: number;
  /** The server's CPU time per request with RBAC, in µs (median of the rounds). */
  cpuPerRequest: number;
  /** The same with AlwaysAllow. */
  baselineCpuPerRequest: number;
  /** How long the target took to write the objects (and, for RBAC, until the user's binding granted), in ms. */
  loadMs: { rbac: number; allow: number };
  /** The objects written to each server. */
  objects: number;
}

/** The status of one HTTPS GET of `url` with the user's token. */
function statusOf(port: number, url: string, ca: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: "GET", path: url, ca, agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** One load run against `port` with the user's token: requests per second, and the server's CPU time per request (µs). */
function load(running: CpuTarget<AuthzTarget>, port: number, seconds: number): Promise<{ rps: number; cpuPerRequest: number }> {
  const { ca, token } = running.target;
  return httpsLoad(running, { what: `port ${port}`, port, path, seconds, headers: { authorization: `Bearer ${token}` }, tls: { ca } });
}

/**
 * Requests per second of the user's GET with RBAC and with AlwaysAllow: `roundCount` rounds of
 * `seconds` per server (after a warm-up), the order swapped each round; the share is the median
 * over the rounds of RBAC's throughput over AlwaysAllow's in the same round.
 */
export async function authorizationThroughput(seconds: number, roundCount: number): Promise<AuthzThroughput> {
  const running = await startCpuTarget<AuthzTarget>("authz-target.ts", 180_000);
  const { target, child } = running;
  try {
    // The setup is what it claims: the user reads its ConfigMap on both, and RBAC refuses it another namespace.
    const other = `/api/v1/namespaces/ns-041/configmaps/bench`;
    const checks = [
      [target.rbacPort, path, 200],
      [target.allowPort, path, 200],
      [target.rbacPort, other, 403],
      [target.allowPort, other, 404],
    ] as const;
    for (const [port, url, want] of checks) {
      const got = await statusOf(port, url, target.ca, target.token);
      if (got !== want) throw new Error(`GET ${url} on the ${port === target.rbacPort ? "RBAC" : "AlwaysAllow"} server answered ${got}, not ${want}`);
    }
    const servers = [target.rbacPort, target.allowPort];
    for (const port of servers) await load(running, port, 1); // warm-up
    const rounds: Map<number, { rps: number; cpuPerRequest: number }>[] = [];
    for (let round = 0; round < roundCount; round++) {
      const measured = new Map<number, { rps: number; cpuPerRequest: number }>();
      for (let i = 0; i < servers.length; i++) {
        const port = servers[(i + round) % servers.length] as number;
        measured.set(port, await load(running, port, seconds));
      }
      rounds.push(measured);
    }
    const of = (port: number, key: "rps" | "cpuPerRequest") => median(rounds.map((r) => r.get(port)?.[key] ?? 0));
    return {
      rps: of(target.rbacPort, "rps"),
      baseline: of(target.allowPort, "rps"),
      share: median(rounds.map((r) => (r.get(target.rbacPort)?.rps ?? 0) / (r.get(target.allowPort)?.rps ?? 1))),
      target: 0.9,
      cpuPerRequest: of(target.rbacPort, "cpuPerRequest"),
      baselineCpuPerRequest: of(target.allowPort, "cpuPerRequest"),
      loadMs: target.loadMs,
      objects: target.objects,
    };
  } finally {
    await stopCpuTarget(child);
  }
}

/** One in-process decision timing. */
export interface DecisionTiming {
  name: string;
  /** What the authorizer decided. */
  decision: string;
  /** Mean time of one `authorize` call, in µs (the best of the rounds). */
  micros: number;
  /** The most asked for, in µs. */
  target: number;
}

/**
 * The mean time of `rbacAuthorizer(index).authorize(...)` over an index of the fixture and the
 * bootstrap policy (aggregated roles filled in, as the server's aggregation does), for the
 * user's allowed GET of its ConfigMap (its third grant allows) and for a GET of a Secret it may
 * not read (every grant visited, no opinion): `calls` awaited calls per round, best of `rounds`.
 */
export async function decisionTimings(calls: number, rounds: number): Promise<DecisionTiming[]> {
  const fixture = authzFixture();
  const policy = bootstrapPolicy();
  const clusterRoles: ClusterRole[] = [...policy.clusterRoles, ...fixture.clusterRoles];
  for (const role of clusterRoles) {
    const rules = aggregatedRules(role, clusterRoles);
    if (rules) role.rules = rules;
  }
  const index = new RBACIndex({
    clusterRoles,
    roles: [...policy.roles, ...fixture.roles],
    clusterRoleBindings: policy.clusterRoleBindings,
    roleBindings: [...policy.roleBindings, ...fixture.roleBindings],
  });
  const authorizer = rbacAuthorizer(index);
  const user = { name: benchUser, groups: [benchGroup, "system:authenticated"] };
  const get: Attributes = {
    user,
    verb: "get",
    resourceRequest: true,
    apiGroup: "",
    apiVersion: "v1",
    resource: "configmaps",
    subresource: "",
    namespace: benchNamespace,
    name: "bench",
  };
  const cases = [
    { name: "allowed: GET of its ConfigMap", attributes: get },
    { name: "not allowed: GET of a Secret", attributes: { ...get, resource: "secrets" } },
  ];
  const out: DecisionTiming[] = [];
  for (const c of cases) {
    const { decision } = await authorizer.authorize(c.attributes);
    let best = Infinity;
    for (let round = 0; round <= rounds; round++) {
      const start = performance.now();
      for (let i = 0; i < calls; i++) await authorizer.authorize(c.attributes);
      const micros = ((performance.now() - start) * 1000) / calls;
      if (round > 0) best = Math.min(best, micros); // round 0 warms up
    }
    out.push({ name: c.name, decision, micros: best, target: 20 });
  }
  return out;
}

/**
 * The benchmark's printed lines: the HTTPS share against the 0.9 target, how long loading
 * took, and the in-process decision times against 20 µs. Never throws: a part that could not
 * be run is one line saying why.
 */
export async function authorizationBenchmark(quick: boolean): Promise<string[]> {
  const lines: string[] = [];
  try {
    const r = await authorizationThroughput(quick ? 2 : 3, quick ? 4 : 6);
    lines.push(
      `${"RBAC vs AlwaysAllow".padEnd(40)} ${r.rps.toFixed(0).padStart(7)} req/s   AlwaysAllow ${r.baseline.toFixed(0).padStart(7)} req/s   ` +
        `${r.share.toFixed(2)}x (target ≥${r.target}) ${r.share >= r.target ? "ok" : "UNDER"}   ` +
        `server CPU ${r.cpuPerRequest.toFixed(0)} µs/req vs ${r.baselineCpuPerRequest.toFixed(0)} AlwaysAllow`,
      `${"loading".padEnd(40)} ${r.objects.toLocaleString("en")} objects through the API: RBAC ${(r.loadMs.rbac / 1000).toFixed(1)} s, AlwaysAllow ${(r.loadMs.allow / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    lines.push(`authorization throughput not measured: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    for (const t of await decisionTimings(quick ? 50_000 : 200_000, quick ? 3 : 5)) {
      lines.push(
        `${`RBAC decision, ${t.name}`.padEnd(60)} ${t.micros.toFixed(2).padStart(6)} µs (${t.decision}; target <${t.target} µs) ${t.micros < t.target ? "ok" : "OVER"}`,
      );
    }
  } catch (error) {
    lines.push(`RBAC decision time not measured: ${error instanceof Error ? error.message : String(error)}`);
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const line of await authorizationBenchmark(process.argv.includes("--quick"))) console.log(line);
}
