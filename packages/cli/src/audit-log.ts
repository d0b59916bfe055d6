/**
 * The audit log backend of `orch-apiserver` (`--audit-log-path`): audit events as JSON lines in a
 * file (or stdout), rotated by size, old backups pruned; and {@link loadAudit}, which turns the
 * audit flags into the `audit` option of an `APIServer`.
 * @module
 */
import { open, readdir, readFile, rename, stat, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fanOutSink, parseAuditPolicy, writeAuditEventJSON, type AuditEvent, type AuditPolicy, type AuditSink, type MetricsRecorder } from "@orch/server";
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
  /**
   * Calls `fn` once after `ms` milliseconds and returns what cancels it: the wait that gathers
   * events into one write. `setTimeout` by default.
   */
  setTimer?: (ms: number, fn: () => void) => () => void;
}

/** How long the log gathers events before it writes them (ms). */
const coalesceMs = 10;

/** The size of the buffers events are copied into while they wait (bytes); a longer line gets one of its own. */
const chunkBytes = 64 * 1024;

/** How many emptied buffers are kept for the next events (4 MiB at most). */
const spareChunks = 64;

/** `setTimeout`, as the default `setTimer` of {@link AuditLogWriter}. */
function defaultSetTimer(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
}

/** `2026-11-24T15-04-05.000`: the timestamp of a rotated file's name (no colons, sortable). */
export function backupTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace("Z", "").replaceAll(":", "-");
}

/** A buffer of encoded lines and how much of it they fill. */
interface Chunk {
  bytes: Buffer;
  used: number;
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
  /**
   * The lines waiting to be written, encoded into buffers as they come: a waiting event holds
   * no string or object for the garbage collector to copy from one generation to the next.
   */
  #queue: Chunk[] = [];
  #queued = 0;
  /** Emptied buffers of `chunkBytes`, for the next events. */
  readonly #spare: Buffer[] = [];
  #size: number | undefined;
  /** The log, open for appending between flushes (opening it for every batch costs three system calls). */
  #file: FileHandle | undefined;
  #running: Promise<void> | undefined;
  /** Ends the current gathering wait early (a flush); `undefined` outside one. */
  #wake: (() => void) | undefined;
  /** Set while a flush waits: batches are written without gathering. */
  #flushing = false;

  constructor(options: AuditLogOptions) {
    this.#options = options;
    this.#maxBytes = (options.maxSizeMB ?? 0) * 1024 * 1024;
    this.#bufferEvents = options.bufferEvents ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Queues `events` (never blocks, never throws). */
  write(events: readonly AuditEvent[]): void {
    for (const event of events) {
      if (this.#queued >= this.#bufferEvents) {
        this.dropped++;
        continue;
      }
      this.#enqueue(event);
      this.#queued++;
    }
    // Events of the next few milliseconds go out in the same write: one system call for many
    // requests, not one each (the file's writes run on threads that share the server's cores).
    this.#running ??= this.#drain().finally(() => (this.#running = undefined));
  }

  /** Writes what is queued now, without waiting to gather more; resolves once every queued event has been written (or failed to be). */
  async flush(): Promise<void> {
    this.#flushing = true;
    try {
      this.#wake?.();
      while (this.#running) await this.#running;
    } finally {
      this.#flushing = false;
    }
    const file = this.#file;
    this.#file = undefined;
    await file?.close().catch(() => undefined);
  }

  /**
   * Writes `event` as one JSON line into the last buffer of the queue, or a new one when it does
   * not fit: its UTF-8 bytes are written there directly (no string of it is made), and a line
   * longer than a buffer gets one of its own.
   */
  #enqueue(event: AuditEvent): void {
    const last = this.#queue[this.#queue.length - 1];
    // One byte is kept for the newline.
    if (last && this.#line(event, last)) return;
    const chunk: Chunk = { bytes: this.#spare.pop() ?? Buffer.allocUnsafe(chunkBytes), used: 0 };
    if (!this.#line(event, chunk)) {
      this.#spare.push(chunk.bytes);
      const json = JSON.stringify(event);
      chunk.bytes = Buffer.allocUnsafe(Buffer.byteLength(json) + 1);
      chunk.used = chunk.bytes.write(json, 0);
      chunk.bytes[chunk.used++] = 0x0a;
    }
    this.#queue.push(chunk);
  }

  /** Writes `event` and a newline at the end of `chunk`; false (and `chunk` unchanged) when they do not fit. */
  #line(event: AuditEvent, chunk: Chunk): boolean {
    const end = writeAuditEventJSON(event, chunk.bytes, chunk.used, chunk.bytes.length - 1);
    if (end < 0) return false;
    chunk.bytes[end] = 0x0a;
    chunk.used = end + 1;
    return true;
  }

  /**
   * Writes what is queued, one batch every `coalesceMs` until nothing is left. The wait comes
   * before every write, not only the first: under steady load a write that returns at once
   * would otherwise be followed by another carrying the one or two events queued meanwhile, and
   * each write costs the server's thread a hand-off to the file's thread, whatever its size.
   */
  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      if (!this.#flushing) await this.#gathered();
      const chunks = this.#queue;
      this.#queue = [];
      this.#queued = 0;
      try {
        await this.#append(chunks);
      } catch (error) {
        this.#options.log?.(`cannot write the audit log ${this.#options.path}: ${error instanceof Error ? error.message : String(error)}`);
      }
      for (const chunk of chunks) if (chunk.bytes.length === chunkBytes && this.#spare.length < spareChunks) this.#spare.push(chunk.bytes);
    }
  }

  /** Resolves after `coalesceMs`, or at once when a flush asks for it meanwhile. */
  #gathered(): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.#wake = undefined;
        cancel();
        resolve();
      };
      const setTimer = this.#options.setTimer ?? defaultSetTimer;
      const cancel = setTimer(coalesceMs, wake);
      this.#wake = wake;
    });
  }

  async #append(chunks: readonly Chunk[]): Promise<void> {
    const { path } = this.#options;
    const views = chunks.map((c) => c.bytes.subarray(0, c.used));
    if (path === "-") {
      (this.#options.stdout ?? process.stdout).write(views.map((v) => v.toString("utf8")).join(""));
      return;
    }
    let bytes = 0;
    for (const view of views) bytes += view.length;
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
    // One system call for the whole batch; a short write (a full disk, say) goes on from where it stopped.
    const file = this.#file;
    const { bytesWritten } = views.length === 1 ? await file.write(views[0] as Buffer) : await file.writev(views);
    this.#size += bytesWritten;
    let rest = bytesWritten < bytes ? Buffer.concat(views, bytes).subarray(bytesWritten) : undefined;
    while (rest && rest.length > 0) {
      const written = (await file.write(rest)).bytesWritten;
      if (written === 0) throw new Error("no byte was written");
      this.#size += written;
      rest = rest.subarray(written);
    }
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
