/**
 * The audit log backend of `orch-apiserver` (`--audit-log-path`): audit events as JSON lines in a
 * file (or stdout), rotated by size, old backups pruned; and {@link loadAudit}, which turns the
 * audit flags into the `audit` option of an `APIServer`.
 * @module
 */
import { appendFile, readdir, readFile, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { parseAuditPolicy, type AuditEvent, type AuditPolicy, type AuditSink } from "@orch/server";
import type { AuditFlags } from "./audit-flags.js";

/** Options of {@link AuditLogWriter}. */
export interface AuditLogOptions {
  /** The log file, or `-` for `stdout`. */
  path: string;
  /** Rotate before the file grows past this many megabytes; 0 (the default) never rotates. */
  maxSizeMB?: number;
  /** Keep at most this many rotated files; 0 (the default) keeps all. */
  maxBackups?: number;
  /** Remove rotated files older than this many days; 0 (the default) keeps them. */
  maxAgeDays?: number;
  /** How many events may wait to be written; more are dropped (and counted). 10 000 by default. */
  bufferEvents?: number;
  /** Where `-` writes. */
  stdout?: { write(text: string): unknown };
  /** Receives write failures (once per failed write). */
  log?: (message: string) => void;
  /** Wall time in ms, for the rotated files' names and ages; `Date.now` by default. */
  now?: () => number;
}

/** `2026-11-24T15-04-05.000`: the timestamp of a rotated file's name (no colons, sortable). */
export function backupTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "").replaceAll(":", "-");
}

/**
 * An {@link AuditSink} that appends each event as one JSON line to a file. `write` never waits:
 * events are queued and appended in the background; when `bufferEvents` are already waiting,
 * further events are dropped and counted in {@link dropped}. Before an append would grow the
 * file past `maxSizeMB`, the file is renamed to `<path>-<timestamp>` and a new one started;
 * then rotated files beyond `maxBackups` (oldest first) or older than `maxAgeDays` are removed.
 */
export class AuditLogWriter implements AuditSink {
  /** Events dropped because the buffer was full. */
  dropped = 0;
  readonly #options: AuditLogOptions;
  readonly #maxBytes: number;
  readonly #bufferEvents: number;
  readonly #now: () => number;
  #queue: string[] = [];
  #size: number | undefined;
  #running: Promise<void> | undefined;

  constructor(options: AuditLogOptions) {
    this.#options = options;
    this.#maxBytes = (options.maxSizeMB ?? 0) * 1024 * 1024;
    this.#bufferEvents = options.bufferEvents ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Queues `events` (never blocks, never throws). */
  write(events: readonly AuditEvent[]): void {
    for (const event of events) {
      if (this.#queue.length >= this.#bufferEvents) {
        this.dropped++;
        continue;
      }
      this.#queue.push(`${JSON.stringify(event)}\n`);
    }
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
  }

  /** Resolves once every queued event has been written (or failed to be). */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const lines = this.#queue;
      this.#queue = [];
      try {
        await this.#append(lines.join(""));
      } catch (error) {
        this.#options.log?.(`cannot write the audit log ${this.#options.path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  async #append(text: string): Promise<void> {
    const { path } = this.#options;
    if (path === "-") {
      (this.#options.stdout ?? process.stdout).write(text);
      return;
    }
    const bytes = Buffer.byteLength(text);
    this.#size ??= await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    if (this.#maxBytes > 0 && this.#size > 0 && this.#size + bytes > this.#maxBytes) {
      await rename(path, `${path}-${backupTimestamp(this.#now())}`);
      this.#size = 0;
      await this.#prune();
    }
    await appendFile(path, text);
    this.#size += bytes;
  }

  /** Removes rotated files beyond `maxBackups` or older than `maxAgeDays`. */
  async #prune(): Promise<void> {
    const { path, maxBackups = 0, maxAgeDays = 0 } = this.#options;
    if (maxBackups === 0 && maxAgeDays === 0) return;
    const dir = dirname(path);
    const prefix = `${basename(path)}-`;
    const backups = (await readdir(dir)).filter((name) => name.startsWith(prefix) && /^\d{4}-\d\d-\d\dT[\d.-]+$/.test(name.slice(prefix.length)));
    backups.sort().reverse(); // newest first: the names sort by time
    const oldest = this.#now() - maxAgeDays * 86_400_000;
    for (const [i, name] of backups.entries()) {
      const file = join(dir, name);
      const tooMany = maxBackups > 0 && i >= maxBackups;
      const tooOld =
        maxAgeDays > 0 &&
        (await stat(file).then(
          (s) => s.mtimeMs < oldest,
          () => false,
        ));
      if (tooMany || tooOld) await unlink(file).catch(() => undefined);
    }
  }
}

/** What {@link loadAudit} gives: the server's `audit` option and the writer, to flush at shutdown. */
export interface LoadedAudit {
  /** The `audit` option of `APIServerOptions`. */
  audit: { policy: AuditPolicy; sink: AuditSink };
  /** The log backend. */
  writer: AuditLogWriter;
}

/**
 * The audit option for `flags`, or `undefined` without `--audit-log-path` (a policy file alone
 * is still read and checked).
 * @throws Error naming `--audit-policy-file`, the file and the line, for a policy that cannot be
 *   read or does not parse.
 */
export async function loadAudit(
  flags: AuditFlags,
  options: { domain: string; stdout?: AuditLogOptions["stdout"]; log?: (message: string) => void },
): Promise<LoadedAudit | undefined> {
  if (flags.policyFile === undefined) return undefined;
  let policy: AuditPolicy;
  try {
    policy = parseAuditPolicy(await readFile(flags.policyFile, "utf8"), options.domain);
  } catch (error) {
    throw new Error(`--audit-policy-file ${flags.policyFile}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (flags.logPath === undefined) return undefined;
  const writer = new AuditLogWriter({
    path: flags.logPath,
    maxSizeMB: flags.maxSizeMB,
    maxBackups: flags.maxBackups,
    maxAgeDays: flags.maxAgeDays,
    ...(options.stdout ? { stdout: options.stdout } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  return { audit: { policy, sink: writer }, writer };
}
