/**
 * Authentication benchmark: GET of one ConfigMap over HTTPS from one orch server (in its own
 * process, as in the HTTP benchmarks), authenticated by a client certificate, a static token and
 * a service-account JWT (issued by the server's `serviceaccounts/bench/token`), each against the
 * same server called with no credential at all (served as anonymous: the authenticators find
 * nothing to check, the "authentication off" baseline). autocannon loads it from this process
 * over 16 keep-alive connections, so TLS handshakes happen once per connection and the figures
 * are the per-request cost. Besides throughput it reports the server's CPU time per request,
 * which other load on the machine disturbs less. Run it alone with
 * `npx tsx --conditions=@orch/source bench/authn.bench.ts [--quick]`.
 * @module
 */
import { request } from "node:https";
import { pathToFileURL } from "node:url";
import type { AuthnTarget } from "./authn-target.js";
import { httpsLoad, median, startCpuTarget, stopCpuTarget, type CpuTarget } from "./cpu-target.js";

const path = "/api/v1/namespaces/default/configmaps/bench";

/** One credential's throughput against the anonymous baseline. */
export interface AuthnResult {
  name: string;
  /** Requests per second with the credential (median of the rounds). */
  rps: number;
  /** Requests per second with no credential (median of the rounds). */
  baseline: number;
  /** The median over the rounds of rps / baseline within a round. */
  share: number;
  /** The least share asked for. */
  target: number;
  /**
   * The server's CPU time per request with the credential, in µs (median of the rounds): what
   * authentication costs, whatever else the machine runs at the time.
   */
  cpuPerRequest: number;
  /** The same with no credential. */
  baselineCpuPerRequest: number;
}

/** A way to call the server: TLS material and headers, and the user it must authenticate as. */
interface Credential {
  name: string;
  user: string;
  tls: { ca: string; cert?: string; key?: string };
  headers: Record<string, string>;
}

/** One HTTPS request; the status and the parsed JSON body. */
function call(
  port: number,
  method: string,
  url: string,
  credential: Pick<Credential, "tls" | "headers">,
  body?: object,
): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path: url, ...credential.tls, agent: false, headers: { "content-type": "application/json", ...credential.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown> }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** Who the server takes `credential` for (a SelfSubjectReview). */
async function userOf(port: number, credential: Credential): Promise<string> {
  const res = await call(port, "POST", "/apis/authentication.orch.io/v1/selfsubjectreviews", credential, {
    apiVersion: "authentication.orch.io/v1",
    kind: "SelfSubjectReview",
  });
  const status = res.json["status"] as { userInfo?: { username?: string } } | undefined;
  return res.status === 201 ? (status?.userInfo?.username ?? "") : `HTTP ${res.status}`;
}

/** One load run with `credential`: requests per second, and the server's CPU time per request (µs). */
function load(running: CpuTarget<AuthnTarget>, credential: Credential, seconds: number): Promise<{ rps: number; cpuPerRequest: number }> {
  return httpsLoad(running, { what: credential.name, port: running.target.port, path, seconds, headers: credential.headers, tls: credential.tls });
}

/**
 * Requests per second of GET one ConfigMap over HTTPS with each credential, and with none, on
 * one server: `roundCount` rounds of `seconds` per credential (after a warm-up), the order
 * rotated each round. A credential's share is the median over the rounds of its throughput over
 * the anonymous throughput of the same round, so that load elsewhere on the machine, which
 * drifts slowly, weighs on both sides of each ratio.
 */
export async function authenticationThroughput(seconds: number, roundCount: number): Promise<AuthnResult[]> {
  const running = await startCpuTarget<AuthnTarget>("authn-target.ts", 30_000);
  const { target, child } = running;
  try {
    const ca = { ca: target.ca };
    const admin = { tls: { ...ca, cert: target.cert, key: target.key }, headers: {} };
    const issued = await call(target.port, "POST", "/api/v1/namespaces/default/serviceaccounts/bench/token", admin, {
      apiVersion: "authentication.orch.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 3600 },
    });
    const jwt = (issued.json["status"] as { token?: string } | undefined)?.token;
    if (issued.status !== 201 || !jwt) throw new Error(`serviceaccounts/bench/token answered ${issued.status}`);

    const anonymous: Credential = { name: "no credential (anonymous)", user: "system:anonymous", tls: ca, headers: {} };
    const credentials: Credential[] = [
      { name: "client certificate", user: "bench-user", tls: admin.tls, headers: {} },
      { name: "static token", user: "bench-user", tls: ca, headers: { authorization: `Bearer ${target.token}` } },
      { name: "service-account JWT", user: "system:serviceaccount:default:bench", tls: ca, headers: { authorization: `Bearer ${jwt}` } },
    ];
    const all = [anonymous, ...credentials];
    for (const c of all) {
      const user = await userOf(target.port, c);
      if (user !== c.user) throw new Error(`${c.name}: the server took it for ${user}, not ${c.user}`);
    }

    const rounds: Map<Credential, { rps: number; cpuPerRequest: number }>[] = [];
    for (const c of all) await load(running, c, 1); // warm-up
    for (let round = 0; round < roundCount; round++) {
      const measured = new Map<Credential, { rps: number; cpuPerRequest: number }>();
      for (let i = 0; i < all.length; i++) {
        const c = all[(i + round) % all.length] as Credential;
        measured.set(c, await load(running, c, seconds));
      }
      rounds.push(measured);
    }
    const of = (c: Credential, key: "rps" | "cpuPerRequest") => median(rounds.map((r) => r.get(c)?.[key] ?? 0));
    return credentials.map((c) => ({
      name: c.name,
      rps: of(c, "rps"),
      baseline: of(anonymous, "rps"),
      share: median(rounds.map((r) => (r.get(c)?.rps ?? 0) / (r.get(anonymous)?.rps ?? 1))),
      target: 0.9,
      cpuPerRequest: of(c, "cpuPerRequest"),
      baselineCpuPerRequest: of(anonymous, "cpuPerRequest"),
    }));
  } finally {
    await stopCpuTarget(child);
  }
}

/**
 * The benchmark's printed lines: one per credential, its share of the anonymous throughput
 * against the 0.9 target. Never throws: a run that could not be made is one line saying why.
 */
export async function authenticationBenchmark(quick: boolean): Promise<string[]> {
  try {
    return (await authenticationThroughput(quick ? 2 : 3, quick ? 4 : 6)).map(
      (r) =>
        `${r.name.padEnd(40)} ${r.rps.toFixed(0).padStart(7)} req/s   anonymous ${r.baseline.toFixed(0).padStart(7)} req/s   ` +
        `${r.share.toFixed(2)}x (target ≥${r.target}) ${r.share >= r.target ? "ok" : "UNDER"}   ` +
        `server CPU ${r.cpuPerRequest.toFixed(0)} µs/req vs ${r.baselineCpuPerRequest.toFixed(0)} anonymous`,
    );
  } catch (error) {
    return [`authentication benchmark not run: ${error instanceof Error ? error.message : String(error)}`];
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const line of await authenticationBenchmark(process.argv.includes("--quick"))) console.log(line);
}
