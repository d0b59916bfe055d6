/**
 * The test harness of the real-client tests: an `orch-apiserver` as users run it (the workspace
 * bin, spawned as its own process, HTTPS on a free loopback port, a fresh temp data dir), or the
 * same command run in this process around a store the test holds (to compact it at will).
 * Also a bounded HTTPS client holding the admin certificate of a data dir.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request as httpsRequest, type Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runAPIServer } from "@orch/cli";
import { APIServer } from "@orch/server";
import type { Store } from "@orch/store";

/** The `orch-apiserver` link of the workspace root. */
export const apiserverBin = fileURLToPath(new URL("../../node_modules/.bin/orch-apiserver", import.meta.url));

/** A running server, however it was started. */
export interface RunningAPIServer {
  /** `https://127.0.0.1:<port>`, from the ready line. */
  readonly url: string;
  /** The admin kubeconfig the server wrote, from the ready line. */
  readonly kubeconfigPath: string;
  /** The data dir: `ca.crt`, `admin.crt`, `admin.key`, `kubeconfig`. */
  readonly dataDir: string;
  /** What the server wrote to stderr so far (empty for an in-process server). */
  stderr(): string;
  /**
   * Stops the server (SIGTERM, SIGKILL after `stopTimeoutMs`), waits for it to exit, and
   * removes the data dir unless the caller gave it ({@link StartOptions.dataDir}). Resolves with the exit code (`null` when it had to be killed).
   * Calling it again returns the same promise.
   */
  stop(): Promise<number | null>;
  /**
   * Kills the server process at once (`SIGKILL`, as a crash would) and waits for it to be gone;
   * keeps the data dir whoever owns it, so a test can restart on it. An in-process server stops.
   */
  kill(): Promise<void>;
}

/** Options of {@link startAPIServer} and {@link startInProcessAPIServer}. */
export interface StartOptions {
  /** Flags after `--secure-port <port> --data-dir <dir>`, e.g. `["--domain", "k8s.io"]`. */
  flags?: readonly string[];
  /**
   * `--secure-port` of a spawned server; 0 (a free port) by default. A restart passes the port
   * of the server it replaces, so clients holding its kubeconfig reach the new one.
   */
  securePort?: number;
  /**
   * `--data-dir` of a spawned server: a directory the caller owns (kept by `stop()`), e.g. that
   * of a stopped server to restart it with the same certificates. A fresh temp dir by default.
   */
  dataDir?: string;
  /** How long to wait for the ready line (20 s by default). */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before SIGKILL (10 s by default). */
  stopTimeoutMs?: number;
}

const readyLine = /^orch-apiserver ready url=(\S+) kubeconfig=(\S+)\n/;

function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Spawns `orch-apiserver --secure-port <securePort or 0> --data-dir <dataDir or a fresh temp dir>
 * ...flags` and resolves once it printed its ready line. Rejects (having killed it and removed a
 * temp dir) when it exits first or is not ready within `readyTimeoutMs`.
 */
export async function startAPIServer(options: StartOptions = {}): Promise<RunningAPIServer> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), "orch-test-")));
  const child = spawn(apiserverBin, ["--secure-port", String(options.securePort ?? 0), "--data-dir", dataDir, ...(options.flags ?? [])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  let stopping: Promise<number | null> | undefined;
  const stop = (): Promise<number | null> =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      let code: number | null;
      try {
        code = await bounded(exited, options.stopTimeoutMs ?? 10_000, "orch-apiserver shutdown");
      } catch {
        child.kill("SIGKILL");
        await exited;
        code = null;
      }
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      return code;
    })());
  try {
    const { url, kubeconfigPath } = await bounded(
      new Promise<{ url: string; kubeconfigPath: string }>((resolve, reject) => {
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
          const match = readyLine.exec(stdout);
          if (match) resolve({ url: match[1]!, kubeconfigPath: match[2]! });
        });
        child.once("error", reject);
        void exited.then((code) => reject(new Error(`orch-apiserver exited with ${code} before it was ready: ${stderr}`)));
      }),
      options.readyTimeoutMs ?? 20_000,
      "orch-apiserver start",
    );
    const kill = async (): Promise<void> => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    };
    return { url, kubeconfigPath, dataDir, stderr: () => stderr, stop, kill };
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\nstderr: ${stderr}`, { cause: error });
  }
}

/**
 * Runs the `orch-apiserver` command in this process (the same flags, certificates, kubeconfig
 * and HTTPS listener as the bin) over `store`, which the test keeps, e.g. to compact history.
 */
export async function startInProcessAPIServer(store: Store, options: StartOptions = {}): Promise<RunningAPIServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "orch-test-"));
  const abort = new AbortController();
  let errors = "";
  let ready!: (info: { url: string; kubeconfig: string }) => void;
  const readyInfo = new Promise<{ url: string; kubeconfig: string }>((resolve) => (ready = resolve));
  const running = runAPIServer(["--secure-port", "0", "--data-dir", dataDir, ...(options.flags ?? [])], {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (errors += text) },
    signal: abort.signal,
    createServer: (serverOptions) => new APIServer({ ...serverOptions, store }),
    onReady: ready,
  });
  let stopping: Promise<number | null> | undefined;
  const stop = (): Promise<number | null> =>
    (stopping ??= (async () => {
      abort.abort();
      let code: number | null;
      try {
        code = await bounded(running, options.stopTimeoutMs ?? 10_000, "orch-apiserver shutdown");
      } catch {
        code = null;
      }
      await rm(dataDir, { recursive: true, force: true });
      return code;
    })());
  try {
    const info = await bounded(
      Promise.race([readyInfo, running.then((code) => Promise.reject(new Error(`orch-apiserver ended with ${code}: ${errors}`)))]),
      options.readyTimeoutMs ?? 20_000,
      "orch-apiserver start",
    );
    return { url: info.url, kubeconfigPath: info.kubeconfig, dataDir, stderr: () => errors, stop, kill: async () => void (await stop()) };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A response of {@link adminRequest}. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** A request of {@link adminRequest}. */
export interface RawRequest {
  method?: string;
  /** Path and query, e.g. `/api/v1/namespaces/default/configmaps?limit=1`. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
  /** Bound on the whole exchange (10 s by default). */
  timeoutMs?: number;
  /**
   * The agent whose connections carry the request, e.g. a keep-alive one (`new Agent({ keepAlive: true, maxSockets: 1 })`)
   * for a client that reuses its connection; a connection of its own by default.
   */
  agent?: Agent;
}

/** The admin TLS material of a data dir (`ca.crt`, `admin.crt`, `admin.key`). */
export async function adminTLS(dataDir: string): Promise<{ ca: string; cert: string; key: string }> {
  const [ca, cert, key] = await Promise.all(["ca.crt", "admin.crt", "admin.key"].map((f) => readFile(join(dataDir, f), "utf8")));
  return { ca: ca!, cert: cert!, key: key! };
}

/**
 * One HTTPS request to `url` + `request.path` with `tls` (a CA, optionally a client certificate;
 * or `rejectUnauthorized: false` to trust any server), on its own connection (`agent: false`)
 * unless `request.agent` is given, bounded by `request.timeoutMs` (10 s by default).
 */
export function httpsRequestTo(
  url: string,
  tls: { ca: string; cert?: string; key?: string } | { rejectUnauthorized: false },
  request: RawRequest,
): Promise<RawResponse> {
  const method = request.method ?? "GET";
  return new Promise<RawResponse>((resolve, reject) => {
    const req = httpsRequest(
      `${url}${request.path}`,
      { ...tls, agent: request.agent ?? false, method, headers: request.headers ?? {}, timeout: request.timeoutMs ?? 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${request.path} timed out`)));
    req.on("error", reject);
    req.end(request.body);
  });
}

/** One HTTPS request to `server` as the admin user, on its own connection, bounded. */
export async function adminRequest(server: RunningAPIServer, request: RawRequest): Promise<RawResponse> {
  return httpsRequestTo(server.url, await adminTLS(server.dataDir), request);
}
