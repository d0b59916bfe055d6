/**
 * The cost of operating a server, and what flow control buys: GET of one ConfigMap over HTTPS
 * (16 keep-alive connections) on a server with Prometheus metrics, a `Metadata` audit log and
 * API priority and fairness, against the same build with none of the three; and a fairness
 * run, where one user hammers LISTs of 500 ConfigMaps over 64 connections while another GETs
 * over 2, comparing the second user's p99 latency with its latency alone, with flow control
 * (the operated server) and without (the plain one), with the delay of the servers' event loop
 * and the CPU they used during each getter run (to tell a loop held by LISTs from a machine short
 * of CPU). The servers run in a process of their own (`operating-target.ts`); `fairnessBenchmark`
 * runs the fairness part alone. `ORCH_BENCH_FEATURES=metrics` (or `audit`, `apf`, a comma list) runs
 * the operated server with only those, to see what each costs; the fairness run is then skipped.
 * @module
 */
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { builtAfterSources } from "../packages/cli/bin/built.js";
import { httpsLoad, median, startCpuTarget, stopCpuTarget, type CpuTarget } from "./cpu-target.js";
import type { LoopDelay, OperatingTarget } from "./operating-target.js";

const getPath = "/api/v1/namespaces/default/configmaps/bench";
const listPath = "/api/v1/namespaces/listed/configmaps";

/** The p99 latency (ms) of the getter's GETs over 2 connections for `seconds`, and how many answers were not 2xx. */
async function getterP99(target: OperatingTarget, port: number, seconds: number): Promise<{ p99: number; non2xx: number; requests: number }> {
  const result = await autocannon({
    url: `https://127.0.0.1:${port}${getPath}`,
    connections: 2,
    duration: seconds,
    headers: { accept: "application/json", authorization: `Bearer ${target.tokens.getter}` },
    tlsOptions: { ca: target.ca },
  });
  return { p99: result.latency.p99, non2xx: result.non2xx, requests: result.requests.total };
}

/**
 * The lister's flood (64 connections of LISTs for `seconds`), from a process of its own
 * (`flood.ts`): decrypting its answers would otherwise take the measuring process's time.
 */
function flood(target: OperatingTarget, port: number, seconds: number): Promise<{ ok: number; refused: number; cpuUs: number }> {
  const options = { url: `https://127.0.0.1:${port}${listPath}`, connections: 64, seconds, token: target.tokens.lister, ca: target.ca };
  const child = spawn(
    process.execPath,
    [
      ...(builtAfterSources() ? [] : ["--conditions=@orch/source"]),
      "--import",
      "tsx",
      fileURLToPath(new URL("flood.ts", import.meta.url)),
      JSON.stringify(options),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), (seconds + 30) * 1000);
    child.once("exit", () => {
      clearTimeout(timer);
      const line = /^result (.*)$/m.exec(out);
      if (line) resolve(JSON.parse(line[1] as string) as { ok: number; refused: number; cpuUs: number });
      else reject(new Error("the flood process printed no result"));
    });
  });
}

/** Asks the target for the delay of its event loop since it was last asked. */
function loopDelay(running: CpuTarget<OperatingTarget>): Promise<LoopDelay> {
  const stdout = running.child.stdout;
  if (!stdout) throw new Error("the operating target has no stdout");
  return new Promise((resolve) => {
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const line = /^loop (.*)$/m.exec(out);
      if (!line) return;
      stdout.off("data", onData);
      resolve(JSON.parse(line[1] as string) as LoopDelay);
    };
    stdout.on("data", onData);
    running.child.stdin?.write("loop\n");
  });
}

/**
 * The getter's p99 alone, then under the lister's flood (64 connections of LISTs), on `port`;
 * with the target's event-loop delay and CPU time (µs) during each of the two getter runs.
 */
async function fairness(running: CpuTarget<OperatingTarget>, port: number, seconds: number) {
  const target = running.target;
  await loopDelay(running);
  let cpu = await running.cpu();
  const alone = await getterP99(target, port, seconds);
  const aloneLoop = await loopDelay(running);
  const aloneCpu = (await running.cpu()) - cpu;
  const lists = flood(target, port, seconds + 2);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the flood is under way
  await loopDelay(running);
  cpu = await running.cpu();
  const loaded = await getterP99(target, port, seconds);
  const loadedLoop = await loopDelay(running);
  const loadedCpu = (await running.cpu()) - cpu;
  return { alone, loaded, lists: await lists, aloneLoop, loadedLoop, aloneCpu, loadedCpu };
}

/** Stops the target and removes the audit log it wrote (a run writes more than 100 MB of it). */
async function stopTarget(running: CpuTarget<OperatingTarget>): Promise<void> {
  await stopCpuTarget(running.child);
  rmSync(dirname(running.target.auditLog), { recursive: true, force: true });
}

/** Runs the operating benchmark and returns its report lines. */
export async function operatingBenchmark(quick: boolean): Promise<string[]> {
  const seconds = quick ? 2 : 5;
  const roundCount = quick ? 3 : 5;
  const running: CpuTarget<OperatingTarget> = await startCpuTarget<OperatingTarget>("operating-target.ts", 120_000);
  const { target } = running;
  try {
    const load = (port: number) =>
      httpsLoad(running, {
        what: `port ${port}`,
        port,
        path: getPath,
        seconds,
        headers: { authorization: `Bearer ${target.tokens.getter}` },
        tls: { ca: target.ca },
      });
    const ports = [target.operatedPort, target.plainPort];
    for (const port of ports) await load(port); // warm-up
    const shares: number[] = [];
    const rps = new Map<number, number[]>(ports.map((p) => [p, []]));
    for (let round = 0; round < roundCount; round++) {
      const measured = new Map<number, number>();
      for (let i = 0; i < ports.length; i++) {
        const port = ports[(i + round) % ports.length] as number;
        measured.set(port, (await load(port)).rps);
      }
      for (const [port, r] of measured) rps.get(port)?.push(r);
      shares.push((measured.get(target.operatedPort) ?? 0) / (measured.get(target.plainPort) ?? 1));
    }
    const share = median(shares);
    const lines = [
      `GET one ConfigMap, metrics + Metadata audit log + flow control vs none: ${median(rps.get(target.operatedPort) ?? []).toFixed(0)} vs ` +
        `${median(rps.get(target.plainPort) ?? []).toFixed(0)} req/s, ${(share * 100).toFixed(0)}% (target ≥85%) ${share >= 0.85 ? "ok" : "UNDER"}`,
    ];
    if (!process.env["ORCH_BENCH_FEATURES"]) lines.push(...(await fairnessLines(running, seconds)));
    return lines;
  } finally {
    await stopTarget(running);
  }
}

/** The fairness runs on `running`'s two servers, with flow control and without, as report lines. */
async function fairnessLines(running: CpuTarget<OperatingTarget>, seconds: number): Promise<string[]> {
  const target = running.target;
  const lines: string[] = [];
  const fairnessRuns = [
    ["with flow control", target.operatedPort],
    ["without flow control", target.plainPort],
  ] as const;
  for (const [name, port] of fairnessRuns) {
    const f = await fairness(running, port, seconds);
    // autocannon measures whole milliseconds: an answer under one counts as one.
    const ratio = f.loaded.p99 / Math.max(f.alone.p99, 1);
    const verdict = port === target.operatedPort ? ` (target ≤3x) ${ratio <= 3 ? "ok" : "OVER"}` : "";
    lines.push(
      `fairness ${name}: getter p99 ${f.alone.p99.toFixed(1)} ms alone, ${f.loaded.p99.toFixed(1)} ms under 64 connections of LISTs ` +
        `(${ratio.toFixed(1)}x${verdict}); getter non-2xx ${f.loaded.non2xx}/${f.loaded.requests}; lister ${f.lists.ok} LISTs answered, ${f.lists.refused} refused; ` +
        `server event-loop delay p99 ${f.aloneLoop.p99} ms alone, ${f.loadedLoop.p99} ms (max ${f.loadedLoop.max}) under the LISTs; ` +
        `server CPU ${((f.aloneCpu / 1e6 / seconds) * 100).toFixed(0)}% alone, ${((f.loadedCpu / 1e6 / seconds) * 100).toFixed(0)}% under the LISTs; ` +
        `lister process CPU ${((f.lists.cpuUs / 1e6 / (seconds + 2)) * 100).toFixed(0)}%`,
    );
  }
  return lines;
}

/** Runs only the fairness part of the operating benchmark and returns its report lines. */
export async function fairnessBenchmark(quick: boolean): Promise<string[]> {
  const running: CpuTarget<OperatingTarget> = await startCpuTarget<OperatingTarget>("operating-target.ts", 120_000);
  try {
    return await fairnessLines(running, quick ? 2 : 5);
  } finally {
    await stopTarget(running);
  }
}
