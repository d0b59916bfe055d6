/**
 * A real etcd for tests: Debian's `etcd` binary (package `etcd-server`) started as a single
 * member or as a 3-member cluster on free loopback ports, in temp data dirs (in `/dev/shm` when
 * it is writable, so fsync is cheap), waited for until healthy, and stopped (SIGTERM, then
 * SIGKILL) and removed after. Every wait is bounded. A missing binary is an error that says how
 * to install it: tests that need etcd fail, they never skip.
 * @module
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
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

/** Options of {@link startEtcd} and {@link startEtcdCluster}. */
export interface EtcdStartOptions {
  /** How long to wait for every member to report healthy (default 30 s). */
  startTimeoutMs?: number;
  /** How long a stop waits after SIGTERM before SIGKILL (default 5 s). */
  stopTimeoutMs?: number;
}

/** One etcd member process. */
export interface EtcdMember {
  /** The member name (`m0`, `m1`, ...). */
  readonly name: string;
  /** Its client URL, `http://127.0.0.1:<port>`. */
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

function healthy(clientURL: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${clientURL}/health`, { timeout: 1_000 }, (res) => {
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
  dataDir: string;
}

class Member implements EtcdMember {
  readonly name: string;
  readonly clientURL: string;
  readonly dataDir: string;
  readonly #args: string[];
  readonly #options: EtcdStartOptions;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #log = "";

  constructor(spec: MemberSpec, initialCluster: string, token: string, options: EtcdStartOptions) {
    this.name = spec.name;
    this.clientURL = `http://127.0.0.1:${spec.clientPort}`;
    this.dataDir = spec.dataDir;
    this.#options = options;
    const peerURL = `http://127.0.0.1:${spec.peerPort}`;
    this.#args = [
      "--name", spec.name,
      "--data-dir", spec.dataDir,
      "--listen-client-urls", this.clientURL,
      "--advertise-client-urls", this.clientURL,
      "--listen-peer-urls", peerURL,
      "--initial-advertise-peer-urls", peerURL,
      "--initial-cluster", initialCluster,
      "--initial-cluster-state", "new",
      "--initial-cluster-token", token,
      "--heartbeat-interval", "50",
      "--election-timeout", "500",
      "--logger", "zap",
      "--log-outputs", "stderr",
      "--log-level", "warn",
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
      if (await healthy(this.clientURL)) return;
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
 * Starts an etcd cluster of `size` members on free loopback ports and resolves once every member
 * is healthy. Retries with new ports (up to 3 attempts) when a member cannot start, e.g. because
 * another process took its port.
 * @throws Error when etcd is missing (see {@link requireEtcd}) or does not become healthy.
 */
export async function startEtcdCluster(size = 3, options: EtcdStartOptions = {}): Promise<EtcdCluster> {
  requireEtcd();
  installExitHook();
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const ports = await freePorts(size * 2);
    const dirs = await Promise.all(Array.from({ length: size }, () => tempDir()));
    const specs: MemberSpec[] = dirs.map((dataDir, i) => ({
      name: `m${i}`,
      clientPort: ports[2 * i] as number,
      peerPort: ports[2 * i + 1] as number,
      dataDir,
    }));
    const initialCluster = specs.map((s) => `${s.name}=http://127.0.0.1:${s.peerPort}`).join(",");
    const token = `orch-test-${process.pid}-${Date.now().toString(36)}-${attempt}`;
    const members = specs.map((s) => new Member(s, initialCluster, token, options));
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
 * Starts a single-member etcd on free loopback ports and resolves once it is healthy.
 * @throws Error when etcd is missing (see {@link requireEtcd}) or does not become healthy.
 * @example
 * ```ts
 * const etcd = await startEtcd();
 * const store = new EtcdStore({ endpoints: etcd.endpoints });
 * // ...
 * store.close();
 * await etcd.stop();
 * ```
 */
export function startEtcd(options: EtcdStartOptions = {}): Promise<EtcdCluster> {
  return startEtcdCluster(1, options);
}
