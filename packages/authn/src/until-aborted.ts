/**
 * Waiting on shared work with a caller's own signal: the caller stops waiting when its signal
 * aborts, the work (a fetch other callers share) goes on.
 * @module
 */

/**
 * `promise`, or a rejection with the signal's reason as soon as `signal` aborts (at once when it
 * already has). Without a signal, `promise` itself. A rejection of `promise` after the abort is
 * handled, never reported as unhandled.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
