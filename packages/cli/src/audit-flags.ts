/**
 * The audit flags of `orch-apiserver`, as the reference names them: the policy and the log
 * backend (JSON lines, rotated by size).
 * @module
 */
import type { FlagFailure } from "./authentication-flags.js";

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
}

/** The `parseArgs` options of the audit flags. */
export const auditOptions = {
  "audit-policy-file": { type: "string" },
  "audit-log-path": { type: "string" },
  "audit-log-maxsize": { type: "string" },
  "audit-log-maxbackup": { type: "string" },
  "audit-log-maxage": { type: "string" },
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
  return flags;
}
