/**
 * How a command waits for its end: the caller's abort signal, else SIGTERM or SIGINT.
 * @module
 */
import process from "node:process";

/**
 * The process entry of a command: runs `run` with a signal that SIGTERM and SIGINT abort, and
 * exits with the code it resolves with. The handlers stay until the process exits: a Ctrl-C
 * reaches the process twice (from the terminal and forwarded by the bin's launcher), and a
 * repeat that came after the handlers were gone would kill the process with SIGINT instead of
 * letting it exit 0.
 */
export async function exitWhenStopped(run: (signal: AbortSignal) => Promise<number>): Promise<never> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  process.exit(await run(stop.signal));
}

/**
 * Resolves `stopped` when `signal` aborts, or, without a signal, on SIGTERM or SIGINT (handled
 * until `dispose`, so a second Ctrl-C does not cut a shutdown short).
 */
export function untilStopped(signal: AbortSignal | undefined): { stopped: Promise<void>; dispose(): void } {
  if (signal) {
    return {
      stopped: signal.aborted ? Promise.resolve() : new Promise((r) => signal.addEventListener("abort", () => r(), { once: true })),
      dispose: () => undefined,
    };
  }
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  const onSignal = () => stop();
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  return {
    stopped,
    dispose: () => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    },
  };
}
