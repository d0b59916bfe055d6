/**
 * A small benchmark harness: each case times a subject and its baseline in the same run,
 * interleaved over several rounds, and reports the ratio of their best times. Figures are printed,
 * never asserted: a benchmark does not fail a build.
 * @module
 */

/** One comparison: `subject` does the job, `baseline` does the same job the minimal way. */
export interface Case {
  name: string;
  /** What the issue asks of the ratio (subject time / baseline time), printed beside it. */
  target: number;
  /** Operations per timed run, to print per-operation times. */
  ops: number;
  /** Builds fresh state and returns the two timed functions (and optional clean-up). */
  setup(): Promise<{ subject: () => Promise<void>; baseline: () => Promise<void>; teardown?: () => Promise<void> | void }>;
}

/** The result of one case. */
export interface Result {
  name: string;
  subjectNsPerOp: number;
  baselineNsPerOp: number;
  ratio: number;
  target: number;
}

async function time(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs `rounds` interleaved timings of subject and baseline (after one warm-up each). */
export async function runCase(c: Case, rounds: number): Promise<Result> {
  let best = { subject: Infinity, baseline: Infinity };
  for (let round = 0; round <= rounds; round++) {
    const { subject, baseline, teardown } = await c.setup();
    const order = round % 2 === 0 ? (["subject", "baseline"] as const) : (["baseline", "subject"] as const);
    const times = { subject: 0, baseline: 0 };
    for (const which of order) times[which] = await time(which === "subject" ? subject : baseline);
    await teardown?.();
    if (round === 0) continue; // warm-up
    best = { subject: Math.min(best.subject, times.subject), baseline: Math.min(best.baseline, times.baseline) };
  }
  return {
    name: c.name,
    subjectNsPerOp: (best.subject * 1e6) / c.ops,
    baselineNsPerOp: (best.baseline * 1e6) / c.ops,
    ratio: best.subject / best.baseline,
    target: c.target,
  };
}

function fmt(ns: number): string {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;
}

/** Prints results as a table: per-op times, ratio, target, and whether the target was met. */
export function printResults(title: string, results: readonly Result[]): void {
  console.log(`\n${title}`);
  console.log(["case".padEnd(52), "subject/op".padStart(12), "baseline/op".padStart(12), "ratio".padStart(7), "target".padStart(8), ""].join(" "));
  for (const r of results) {
    console.log(
      [
        r.name.padEnd(52),
        fmt(r.subjectNsPerOp).padStart(12),
        fmt(r.baselineNsPerOp).padStart(12),
        `${r.ratio.toFixed(2)}x`.padStart(7),
        `≤${r.target}x`.padStart(8),
        r.ratio <= r.target ? "ok" : "OVER",
      ].join(" "),
    );
  }
}
