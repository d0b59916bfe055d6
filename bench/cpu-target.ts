/**
 * A benchmark's server in a process of its own, the same build as the rest of the run, that
 * prints `ready <json>` once it serves and answers each `cpu` line on stdin with the CPU time it
 * has used (`cpu <µs>`); and the HTTPS load runs against it that read that time around them.
 * Shared by the authentication and authorization benchmarks.
 * @module
 */
import autocannon from "autocannon";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { builtAfterSources } from "../packages/cli/bin/built.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const root = fileURLToPath(new URL("..", import.meta.url));

/** A started target: what it printed after `ready `, its process, and its CPU time so far (µs). */
export interface CpuTarget<T> {
  target: T;
  child: ChildProcess;
  cpu(): Promise<number>;
}

/** Starts `bench/<script>` and waits (at most `timeoutMs`) for its ready line. */
export async function startCpuTarget<T>(script: string, timeoutMs: number): Promise<CpuTarget<T>> {
  const child = spawn(process.execPath, [...(builtAfterSources() ? [] : ["--conditions=@orch/source"]), "--import", "tsx", `${here}${script}`], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  let waiting: ((line: string) => void)[] = [];
  const target = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      let nl: number;
      while ((nl = out.indexOf("\n")) !== -1) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (line.startsWith("ready ")) {
          clearTimeout(timer);
          resolve(JSON.parse(line.slice("ready ".length)) as T);
        } else if (line.startsWith("cpu ")) {
          const [first, ...rest] = waiting;
          waiting = rest;
          first?.(line.slice("cpu ".length));
        }
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`${script} exited`));
    });
  });
  const cpu = () =>
    new Promise<number>((resolve) => {
      waiting.push((value) => resolve(Number(value)));
      child.stdin?.write("cpu\n");
    });
  return { target, child, cpu };
}

/** Kills a target and waits for it to be gone. */
export async function stopCpuTarget(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * One HTTPS load run of GET `path` (autocannon, 16 keep-alive connections): requests per second,
 * and the target's CPU time per request (µs).
 * @throws Error naming `what` when some answers were not 2xx.
 */
export async function httpsLoad(
  running: CpuTarget<unknown>,
  options: { what: string; port: number; path: string; seconds: number; headers: Record<string, string>; tls: { ca: string; cert?: string; key?: string } },
): Promise<{ rps: number; cpuPerRequest: number }> {
  const cpuBefore = await running.cpu();
  const result = await autocannon({
    url: `https://127.0.0.1:${options.port}${options.path}`,
    connections: 16,
    duration: options.seconds,
    headers: { accept: "application/json", ...options.headers },
    tlsOptions: options.tls,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${options.what}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  const cpu = (await running.cpu()) - cpuBefore;
  return { rps: result.requests.average, cpuPerRequest: cpu / Math.max(1, result.requests.total) };
}
