/**
 * The audit flags of `orch-apiserver`, as the reference names them: the policy, the log
 * backend (JSON lines, rotated by size) and the webhook backend (batched EventLists over HTTPS).
 * @module
 */
import { parseGoDuration } from "@orch/meta";
import { auditDeliveryModes, type AuditDeliveryMode } from "@orch/server";
import type { FlagFailure } from "./authentication-flags.js";

/** The parsed webhook backend flags (`--audit-webhook-*`). */
export interface AuditWebhookFlags {
  /** `--audit-webhook-config-file`: a kubeconfig naming the webhook server. */
  configFile: string;
  /** `--audit-webhook-mode`: `batch` (the default), `blocking` or `blocking-strict`. */
  mode: AuditDeliveryMode;
  /** `--audit-webhook-batch-max-size`: the most events in one request (400 by default). */
  batchMaxSize: number;
  /** `--audit-webhook-batch-max-wait`: how long a batch waits to fill, in milliseconds (30 s by default). */
  batchMaxWaitMs: number;
  /** `--audit-webhook-batch-buffer-size`: how many events may wait before new ones are dropped (10 000 by default). */
  bufferSize: number;
  /** `--audit-webhook-initial-backoff`: the wait before the first retry, in milliseconds (10 s by default). */
  initialBackoffMs: number;
}

/** The parsed audit flags. */
export interface AuditFlags {
  /** `--audit-policy-file`: the audit Policy (YAML or JSON). */
  policyFile?: string;
  /** `--audit-log-path`: the log file, `-` for stdout; no log backend when absent. */
  logPath?: string;
  /** `--audit-log-maxsize`: rotate the log before it grows past this many megabytes (0, the default: never). */
  maxSizeMB: number;
  /** `--audit-log-maxbackup`: keep at most this many rotated files (0, the default: all). */
  maxBackups: number;
  /** `--audit-log-maxage`: remove rotated files older than this many days (0, the default: never). */
  maxAgeDays: number;
  /** The webhook backend, when `--audit-webhook-config-file` is given. */
  webhook?: AuditWebhookFlags;
}

/** The `parseArgs` options of the audit flags. */
export const auditOptions = {
  "audit-policy-file": { type: "string" },
  "audit-log-path": { type: "string" },
  "audit-log-maxsize": { type: "string" },
  "audit-log-maxbackup": { type: "string" },
  "audit-log-maxage": { type: "string" },
  "audit-webhook-config-file": { type: "string" },
  "audit-webhook-mode": { type: "string" },
  "audit-webhook-batch-max-size": { type: "string" },
  "audit-webhook-batch-max-wait": { type: "string" },
  "audit-webhook-batch-buffer-size": { type: "string" },
  "audit-webhook-initial-backoff": { type: "string" },
} as const;

/** The usage lines of the audit flags. */
export const auditUsage = `
Audit:
      --audit-policy-file string          audit Policy (audit.<domain>/v1, YAML or JSON): which requests are
                                          recorded at which level; needed by --audit-log-path
      --audit-log-path string             write audit events to this file as JSON lines; - means stdout
      --audit-log-maxsize int             rotate the audit log (to <path>-<timestamp>) before it grows past
                                          this many megabytes; 0 never rotates (default 0)
      --audit-log-maxbackup int           keep at most this many rotated audit logs; 0 keeps all (default 0)
      --audit-log-maxage int              remove rotated audit logs older than this many days; 0 keeps them
                                          (default 0)
      --audit-webhook-config-file string  kubeconfig naming the audit webhook: events are POSTed to it as
                                          audit.<domain>/v1 EventLists; needs --audit-policy-file
      --audit-webhook-mode string         batch (send in the background, drop when the buffer is full),
                                          blocking (each request waits for its events to be sent) or
                                          blocking-strict (also fails a request whose first event is not
                                          delivered) (default "batch")
      --audit-webhook-batch-max-size int  the most events in one webhook request (default 400)
      --audit-webhook-batch-max-wait duration
                                          how long a batch waits to fill before it is sent (default 30s)
      --audit-webhook-batch-buffer-size int
                                          events that may wait to be sent before new ones are dropped
                                          (default 10000)
      --audit-webhook-initial-backoff duration
                                          wait before the first retry of a failed request (default 10s)
`;

/** Parses the audit flags from `parseArgs` values (the policy file is read when the server is built). */
export function parseAuditFlags(values: Record<string, unknown>, fail: FlagFailure): AuditFlags {
  const count = (name: string): number => {
    const v = values[name];
    if (v === undefined) return 0;
    if (typeof v !== "string" || !/^\d{1,9}$/.test(v)) return fail(`invalid --${name} "${String(v)}": want a non-negative integer`);
    return Number(v);
  };
  const flags: AuditFlags = { maxSizeMB: count("audit-log-maxsize"), maxBackups: count("audit-log-maxbackup"), maxAgeDays: count("audit-log-maxage") };
  for (const [name, key] of [
    ["audit-policy-file", "policyFile"],
    ["audit-log-path", "logPath"],
  ] as const) {
    const v = values[name];
    if (v === undefined) continue;
    if (typeof v !== "string" || v === "") fail(`invalid --${name}: empty`);
    flags[key] = v as string;
  }
  if (flags.logPath !== undefined && flags.policyFile === undefined) fail("--audit-log-path needs --audit-policy-file");
  const configFile = values["audit-webhook-config-file"];
  if (configFile !== undefined) {
    if (typeof configFile !== "string" || configFile === "") fail("invalid --audit-webhook-config-file: empty");
    if (flags.policyFile === undefined) fail("--audit-webhook-config-file needs --audit-policy-file");
    flags.webhook = parseWebhookFlags(configFile as string, values, fail);
  }
  return flags;
}

function parseWebhookFlags(configFile: string, values: Record<string, unknown>, fail: FlagFailure): AuditWebhookFlags {
  const positive = (name: string, fallback: number): number => {
    const v = values[name];
    if (v === undefined) return fallback;
    if (typeof v !== "string" || !/^\d{1,9}$/.test(v) || Number(v) === 0) return fail(`invalid --${name} "${String(v)}": want a positive integer`);
    return Number(v);
  };
  const duration = (name: string, fallback: number): number => {
    const v = values[name];
    if (v === undefined) return fallback;
    let ms = Number.NaN;
    try {
      ms = parseGoDuration(String(v));
    } catch {
      // reported below
    }
    if (!(ms >= 0)) return fail(`invalid --${name} "${String(v)}" (examples: 0s, 5s, 1m30s, 500ms)`);
    return ms;
  };
  const mode = values["audit-webhook-mode"] ?? "batch";
  if (typeof mode !== "string" || !(auditDeliveryModes as readonly string[]).includes(mode))
    fail(`invalid --audit-webhook-mode "${String(mode)}": want one of ${auditDeliveryModes.join(", ")}`);
  return {
    configFile,
    mode: mode as AuditDeliveryMode,
    batchMaxSize: positive("audit-webhook-batch-max-size", 400),
    batchMaxWaitMs: duration("audit-webhook-batch-max-wait", 30_000),
    bufferSize: positive("audit-webhook-batch-buffer-size", 10_000),
    initialBackoffMs: duration("audit-webhook-initial-backoff", 10_000),
  };
}
