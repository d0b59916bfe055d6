/**
 * {@link tokenFileCredentialSource}: a bearer token read from a file (a kubeconfig's
 * `tokenFile`, a service account's projected token) and re-read when the file changes.
 * @module
 */
import { readFile, stat } from "node:fs/promises";
import { ClientConfigError, type ClientConfigErrorLocation, type CredentialSource, type Credentials } from "@orch/client";

/** Options of {@link tokenFileCredentialSource}. */
export interface TokenFileCredentialSourceOptions {
  /** The token file. */
  path: string;
  /** What points at the file (`{ file: kubeconfig, entry: 'user "x"' }`), for error messages. */
  origin?: ClientConfigErrorLocation;
  /** Milliseconds between checks of the file's modification time; 1000 by default. */
  checkIntervalMs?: number;
  /** The clock, in milliseconds (`Date.now` by default): tests advance it instead of sleeping. */
  now?: () => number;
}

/**
 * A `CredentialSource` giving the (trimmed) content of a file as a bearer token. The file
 * is read at the first request; before a later one, when `checkIntervalMs` have passed, its
 * modification time, size and inode are checked and it is read again if any changed. A 401
 * re-reads it at once, and the request is retried when the token differs from the one sent.
 * When a re-read fails, the last token stays in use.
 *
 * Its `credentials()` rejects with a `ClientConfigError` (of `@orch/client`) naming the file (and `origin`)
 * when the file cannot be read the first time or is empty.
 */
export function tokenFileCredentialSource(options: TokenFileCredentialSourceOptions): CredentialSource {
  const interval = options.checkIntervalMs ?? 1000;
  const now = options.now ?? Date.now;
  let token: string | undefined;
  let stamp: string | undefined;
  let checkedAt = 0;
  let pending: Promise<string> | undefined;

  const fail = (message: string, cause?: unknown): ClientConfigError => {
    const where = options.origin ?? { file: options.path };
    return new ClientConfigError(where, `tokenFile ${options.path}: ${message}`, cause === undefined ? undefined : { cause });
  };
  const refresh = (force: boolean): Promise<string> =>
    (pending ??= (async () => {
      try {
        checkedAt = now();
        const info = await stat(options.path, { bigint: true });
        const next = `${info.mtimeNs}:${info.size}:${info.ino}`;
        if (!force && token !== undefined && next === stamp) return token;
        const text = (await readFile(options.path, "utf8")).trim();
        if (text === "") throw fail("the file is empty");
        token = text;
        stamp = next;
        return token;
      } catch (error) {
        if (token !== undefined) return token;
        throw error instanceof ClientConfigError ? error : fail(`cannot be read: ${(error as Error).message}`, error);
      } finally {
        pending = undefined;
      }
    })());

  return {
    async credentials(): Promise<Credentials> {
      const current = token === undefined || now() - checkedAt >= interval ? await refresh(false) : token;
      return { token: current };
    },
    async unauthorized(used: Credentials): Promise<boolean> {
      const fresh = await refresh(true).catch(() => undefined);
      return fresh !== undefined && fresh !== used.token;
    },
  };
}
