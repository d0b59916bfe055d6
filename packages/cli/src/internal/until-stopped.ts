/**
 * How a command waits for its end: the caller's abort signal, else SIGTERM or SIGINT.
 * @module
 */

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
