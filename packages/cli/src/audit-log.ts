/**
 * The audit log backend of `orch-apiserver` (`--audit-log-path`): audit events as JSON lines in a
 * file (or stdout), rotated by size, old backups pruned; and {@link loadAudit}, which turns the
 * audit flags into the `audit` option of an `APIServer`.
 * @module
 */
import { open, readdir, readFile, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fanOutSink, parseAuditPolicy, type AuditEvent, type AuditPolicy, type AuditSink, type MetricsRecorder } from "@orch/server";
import type { AuditFlags } from "./audit-flags.js";
import { loadAuditWebhook } from "./audit-webhook.js";

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

/** How long the log gathers events before it writes them (ms). */
const coalesceMs = 10;

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
  /** The log, open for appending between flushes (opening it for every batch costs three system calls). */
  #file: FileHandle | undefined;
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
    // Events of the next few milliseconds go out in the same write: one system call for many
    // requests, not one each (the file's writes run on threads that share the server's cores).
    this.#running ??= new Promise<void>((resolve) => setTimeout(resolve, coalesceMs)).then(() => this.#drain()).finally(() => (this.#running = undefined));
  }

  /** Resolves once every queued event has been written (or failed to be). */
  async flush(): Promise<void> {
    while (this.#running) await this.#running;
    const file = this.#file;
    this.#file = undefined;
    await file?.close().catch(() => undefined);
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
      await this.#file?.close();
      this.#file = undefined;
      await rename(path, `${path}-${backupTimestamp(this.#now())}`);
      this.#size = 0;
      await this.#prune();
    }
    this.#file ??= await open(path, "a");
    await this.#file.write(text);
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

/** What {@link loadAudit} gives: the server's `audit` option and the backends, to flush at shutdown. */
export interface LoadedAudit {
  /** The `audit` option of `APIServerOptions`: every backend gets every event. */
  audit: { policy: AuditPolicy; sink: AuditSink };
  /** The backends (log, webhook): `flush` writes what they still hold. */
  writer: { flush(): Promise<void> };
}

/**
 * The audit option for `flags`, or `undefined` without a backend (`--audit-log-path`,
 * `--audit-webhook-config-file`; a policy file alone is still read and checked). With both
 * backends, events fan out to both.
 * @throws Error naming `--audit-policy-file`, the file and the line, for a policy that cannot be
 *   read or does not parse; naming `--audit-webhook-config-file` and its file for a webhook
 *   kubeconfig that cannot be read or parsed.
 */
export async function loadAudit(
  flags: AuditFlags,
  options: { domain: string; stdout?: AuditLogOptions["stdout"]; log?: (message: string) => void; metrics?: MetricsRecorder },
): Promise<LoadedAudit | undefined> {
  if (flags.policyFile === undefined) return undefined;
  let policy: AuditPolicy;
  try {
    policy = parseAuditPolicy(await readFile(flags.policyFile, "utf8"), options.domain);
  } catch (error) {
    throw new Error(`--audit-policy-file ${flags.policyFile}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const backends: (AuditSink & { flush(): Promise<void> })[] = [];
  if (flags.logPath !== undefined) {
    backends.push(
      new AuditLogWriter({
        path: flags.logPath,
        maxSizeMB: flags.maxSizeMB,
        maxBackups: flags.maxBackups,
        maxAgeDays: flags.maxAgeDays,
        ...(options.stdout ? { stdout: options.stdout } : {}),
        ...(options.log ? { log: options.log } : {}),
      }),
    );
  }
  if (flags.webhook) {
    backends.push(
      await loadAuditWebhook(flags.webhook, {
        domain: options.domain,
        ...(options.metrics ? { metrics: options.metrics } : {}),
        ...(options.log ? { log: options.log } : {}),
      }),
    );
  }
  if (backends.length === 0) return undefined;
  const writer = {
    async flush() {
      // A webhook that is down would hold the shutdown through every retry: wait 2 s at most
      // (a timer that holds the process, or the pending flush would end it early).
      let cancel: (() => void) | undefined;
      const deadline = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2_000);
        cancel = () => clearTimeout(timer);
      });
      await Promise.race([Promise.all(backends.map((b) => b.flush())), deadline]);
      cancel?.();
    },
  };
  return { audit: { policy, sink: fanOutSink(backends) }, writer };
}
