/**
 * A real etcd for tests: Debian's `etcd` binary (package `etcd-server`) started as a single
 * member or as a 3-member cluster on free loopback ports (or client ports the test chose), in
 * temp data dirs (in `/dev/shm` when it is writable, so fsync is cheap), serving clients over
 * plain http or over TLS (optionally requiring client certificates), waited for until healthy,
 * and stopped (SIGTERM, then SIGKILL) and removed after. Every wait is bounded. A missing binary
 * is an error that says how to install it: tests that need etcd fail, they never skip.
 *
 * Health is probed on each member's plain-http metrics URL, so a member that requires client
 * certificates needs none from the harness. The harness takes certificates as PEM and does not
 * make them: `@orch/cli`'s `createCertificateAuthority` does (test/support/etcd.ts combines the two).
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The etcd binary the harness runs: `$ORCH_ETCD_BIN`, or Debian's `/usr/bin/etcd`. */
export const etcdBinary: string = process.env["ORCH_ETCD_BIN"] ?? "/usr/bin/etcd";

/**
 * Throws an Error that says how to install etcd when {@link etcdBinary} is not an executable.
 * @throws Error when etcd is missing.
 */
export function requireEtcd(): void {
  try {
    accessSync(etcdBinary, constants.X_OK);
  } catch {
    throw new Error(
      `etcd is not installed: ${etcdBinary} is missing. These tests need a real etcd: run ` +
        "`bash scripts/ensure-etcd.sh` as root (it runs `apt-get install -y etcd-server`), or set ORCH_ETCD_BIN.",
    );
  }
}

/**
 * TLS on the client URLs of every member (`https://127.0.0.1:<port>`), as PEM text; peers talk
 * plain http on loopback.
 */
export interface EtcdServerTLS {
  /** The serving certificate (`--cert-file`); it must name `127.0.0.1` (an IP SAN) for clients to accept it. */
  cert: string;
  /** Its private key (`--key-file`). */
  key: string;
  /**
   * When given, etcd requires a client certificate signed by this CA on every connection
   * (`--client-cert-auth --trusted-ca-file`); without it, any client may connect.
   */
  clientCA?: string;
}

/** Options of {@link startEtcd} and {@link startEtcdCluster}. */
export interface EtcdStartOptions {
  /** How long to wait for every member to report healthy (default 30 s). */
  startTimeoutMs?: number;
  /** How long a stop waits after SIGTERM before SIGKILL (default 5 s). */
  stopTimeoutMs?: number;
  /** Serve clients over TLS (default: plain http). */
  tls?: EtcdServerTLS;
  /**
   * The client ports of the members, by position (`[port]` for {@link startEtcd}): for a test
   * that points a client at etcd before it runs. A member without an entry gets a free port.
   * The port must be free on 127.0.0.1: the harness retries a failed start on the same one.
   */
  clientPorts?: readonly number[];
}

/** One etcd member process. */
export interface EtcdMember {
  /** The member name (`m0`, `m1`, ...). */
  readonly name: string;
  /** Its client URL: `http://127.0.0.1:<port>`, or `https://` with {@link EtcdStartOptions.tls}. */
  readonly clientURL: string;
  /** Its data dir. */
  readonly dataDir: string;
  /** True while its process runs. */
  readonly running: boolean;
  /** What etcd wrote to stderr (its log), most recent 64 KiB. */
  logs(): string;
  /** Stops it (SIGTERM, SIGKILL after the stop timeout) and waits for the exit; keeps its data. */
  stop(): Promise<void>;
  /** Kills it at once (SIGKILL), as a crash would, and waits for the exit; keeps its data. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data, and waits until it is healthy. */
  start(): Promise<void>;
}

/** A running etcd: one member or several. */
export interface EtcdCluster {
  /** The members, in the order of the initial cluster. */
  readonly members: readonly EtcdMember[];
  /** Every member's client URL: the `--etcd-servers` / `endpoints` of a client. */
  readonly endpoints: readonly string[];
  /** Stops every member and removes the data dirs. Calling it again returns the same promise. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test run that dies without stopping its etcd must not leave it running.
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once("error", reject);
          server.listen(0, "127.0.0.1", () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const address = s.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    return address.port;
  });
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

async function tempDir(): Promise<string> {
  let base = tmpdir();
  try {
    accessSync("/dev/shm", constants.W_OK);
    base = "/dev/shm";
  } catch {
    // The default temp dir it is.
  }
  return mkdtemp(join(base, "orch-etcd-"));
}

function healthy(metricsURL: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${metricsURL}/health`, { timeout: 1_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c: string) => (body += c));
      res.on("end", () => resolve(res.statusCode === 200 && body.includes('"health":"true"')));
      res.on("error", () => resolve(false));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface MemberSpec {
  name: string;
  clientPort: number;
  peerPort: number;
  metricsPort: number;
  dataDir: string;
}

/** The etcd flags of `tls`, whose PEM files are written to `dir`. */
async function tlsArgs(tls: EtcdServerTLS, dir: string): Promise<string[]> {
  const file = async (name: string, pem: string, mode: number): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, pem, { mode });
    return path;
  };
  const args = ["--cert-file", await file("server.crt", tls.cert, 0o644), "--key-file", await file("server.key", tls.key, 0o600)];
  if (tls.clientCA !== undefined) args.push("--client-cert-auth", "--trusted-ca-file", await file("client-ca.crt", tls.clientCA, 0o644));
  return args;
}

class Member implements EtcdMember {
  readonly name: string;
  readonly clientURL: string;
  readonly dataDir: string;
  readonly #args: string[];
  readonly #metricsURL: string;
  readonly #options: EtcdStartOptions;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #log = "";

  constructor(spec: MemberSpec, initialCluster: string, token: string, options: EtcdStartOptions, tls: readonly string[]) {
    this.name = spec.name;
    this.clientURL = `${tls.length > 0 ? "https" : "http"}://127.0.0.1:${spec.clientPort}`;
    this.#metricsURL = `http://127.0.0.1:${spec.metricsPort}`;
    this.dataDir = spec.dataDir;
    this.#options = options;
    const peerURL = `http://127.0.0.1:${spec.peerPort}`;
    this.#args = [
      ...tls,
      "--listen-metrics-urls",
      this.#metricsURL,
      "--name",
      spec.name,
      "--data-dir",
      spec.dataDir,
      "--listen-client-urls",
      this.clientURL,
      "--advertise-client-urls",
      this.clientURL,
      "--listen-peer-urls",
      peerURL,
      "--initial-advertise-peer-urls",
      peerURL,
      "--initial-cluster",
      initialCluster,
      "--initial-cluster-state",
      "new",
      "--initial-cluster-token",
      token,
      "--heartbeat-interval",
      "50",
      "--election-timeout",
      "500",
      "--logger",
      "zap",
      "--log-outputs",
      "stderr",
      "--log-level",
      "warn",
    ];
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  logs(): string {
    return this.#log;
  }

  /** Spawns the process without waiting for health. */
  spawn(): void {
    if (this.#child !== undefined) return;
    const child = spawn(etcdBinary, this.#args, { stdio: ["ignore", "ignore", "pipe"] });
    this.#child = child;
    live.add(child);
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.#log = (this.#log + chunk).slice(-65_536);
    });
    this.#exited = new Promise((resolve) => {
      child.once("exit", () => {
        live.delete(child);
        if (this.#child === child) this.#child = undefined;
        resolve();
      });
      child.once("error", (error) => {
        this.#log += `\nspawn failed: ${error.message}`;
        live.delete(child);
        if (this.#child === child) this.#child = undefined;
        resolve();
      });
    });
  }

  /** Resolves once `/health` says true; rejects when the process exits or the time runs out. */
  async waitHealthy(deadline: number): Promise<void> {
    for (;;) {
      if (this.#child === undefined) throw new Error(`etcd member ${this.name} exited while starting:\n${this.#log}`);
      if (await healthy(this.#metricsURL)) return;
      if (Date.now() > deadline) throw new Error(`etcd member ${this.name} was not healthy in time:\n${this.#log}`);
      await sleep(100);
    }
  }

  async start(): Promise<void> {
    this.spawn();
    await this.waitHealthy(Date.now() + (this.#options.startTimeoutMs ?? 30_000));
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), this.#options.stopTimeoutMs ?? 5_000);
    await this.#exited;
    clearTimeout(timer);
  }

  async kill(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    child.kill("SIGKILL");
    await this.#exited;
  }
}

/**
 * Starts an etcd cluster of `size` members on free loopback ports (or `options.clientPorts`),
 * over plain http or `options.tls`, and resolves once every member is healthy. Retries with new
 * ports (up to 3 attempts) when a member cannot start, e.g. because another process took its port.
 * @throws Error when etcd is missing (see {@link requireEtcd}) or does not become healthy;
 *   RangeError when `clientPorts` has more entries than members.
 */
export async function startEtcdCluster(size = 3, options: EtcdStartOptions = {}): Promise<EtcdCluster> {
  requireEtcd();
  const chosen = options.clientPorts ?? [];
  if (chosen.length > size) throw new RangeError(`${chosen.length} client ports for ${size} members`);
  installExitHook();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    // Bound all at once, the free ports differ from each other; one may be a chosen port, though.
    const ports = (await freePorts(size * 3 + chosen.length)).filter((p) => !chosen.includes(p));
    const dirs = await Promise.all(Array.from({ length: options.tls === undefined ? size : size + 1 }, () => tempDir()));
    // The TLS files go in a dir of their own (the last one), not in a data dir: etcd wants those to itself.
    const tls = options.tls === undefined ? [] : await tlsArgs(options.tls, dirs[size] as string);
    const specs: MemberSpec[] = Array.from({ length: size }, (_, i) => ({
      name: `m${i}`,
      clientPort: chosen[i] ?? (ports[3 * i] as number),
      peerPort: ports[3 * i + 1] as number,
      metricsPort: ports[3 * i + 2] as number,
      dataDir: dirs[i] as string,
    }));
    const initialCluster = specs.map((s) => `${s.name}=http://127.0.0.1:${s.peerPort}`).join(",");
    const token = `orch-test-${process.pid}-${Date.now().toString(36)}-${attempt}`;
    const members = specs.map((s) => new Member(s, initialCluster, token, options, tls));
    let stopping: Promise<void> | undefined;
    const cluster: EtcdCluster = {
      members,
      endpoints: members.map((m) => m.clientURL),
      stop: () =>
        (stopping ??= (async () => {
          await Promise.all(members.map((m) => m.stop()));
          await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
        })()),
    };
    try {
      for (const m of members) m.spawn();
      const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
      await Promise.all(members.map((m) => m.waitHealthy(deadline)));
      return cluster;
    } catch (error) {
      lastError = error;
      await cluster.stop();
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/**
 * Starts a single-member etcd on free loopback ports (or `options.clientPorts[0]`) and resolves
 * once it is healthy.
 * @throws Error when etcd is missing (see {@link requireEtcd}) or does not become healthy.
 * @example
 * ```ts
 * const etcd = await startEtcd();
 * const store = new EtcdStore({ endpoints: etcd.endpoints });
 * // ...
 * store.close();
 * await etcd.stop();
 *
 * // Over TLS, requiring client certificates (PEM text from any CA):
 * const secure = await startEtcd({ tls: { cert: serverCert, key: serverKey, clientCA: caCert } });
 * new EtcdStore({ endpoints: secure.endpoints, tls: { ca: caCert, cert: clientCert, key: clientKey } });
 * ```
 */
export function startEtcd(options: EtcdStartOptions = {}): Promise<EtcdCluster> {
  return startEtcdCluster(1, options);
}
