import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AuditEvent } from "@orch/server";
import { parseAuditFlags } from "./audit-flags.js";
import { AuditLogWriter, backupTimestamp, loadAudit } from "./audit-log.js";
import { FlagError, failFlag, parseFlags, usage } from "./flags.js";

const event = (i: number, pad = 0): AuditEvent => ({
  kind: "Event",
  apiVersion: "audit.orch.io/v1",
  level: "Metadata",
  auditID: `id-${i}`,
  stage: "ResponseComplete",
  requestURI: `/api/v1/namespaces/${"x".repeat(pad)}`,
  verb: "get",
  user: { username: "admin", groups: [] },
  requestReceivedTimestamp: "2026-11-24T00:00:00.000000Z",
  stageTimestamp: "2026-11-24T00:00:00.000000Z",
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-audit-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lines = async (path: string) =>
  (await readFile(path, "utf8"))
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AuditEvent);

describe("AuditLogWriter", () => {
  it("appends one JSON line per event, in order", async () => {
    const path = join(dir, "audit.log");
    const writer = new AuditLogWriter({ path });
    writer.write([event(1), event(2)]);
    writer.write([event(3)]);
    await writer.flush();
    expect((await lines(path)).map((e) => e.auditID)).toEqual(["id-1", "id-2", "id-3"]);
  });

  it("keeps every line whole and in order across its buffers, multi-byte text and lines longer than a buffer included", async () => {
    const path = join(dir, "audit.log");
    const writer = new AuditLogWriter({ path });
    const events = Array.from({ length: 600 }, (_, i) => {
      const e = event(i, i % 97);
      e.requestURI += "é€😀".repeat(i % 13);
      return e;
    });
    events[300] = event(300, 200_000);
    for (let i = 0; i < events.length; i += 7) writer.write(events.slice(i, i + 7));
    await writer.flush();
    const written = await lines(path);
    expect(written.map((e) => e.auditID)).toEqual(events.map((e) => e.auditID));
    expect(written.map((e) => e.requestURI)).toEqual(events.map((e) => e.requestURI));
  });

  it("gathers events for a while before every write, not only the first after a pause", async () => {
    const path = join(dir, "audit.log");
    const timers: (() => void)[] = [];
    const setTimer = (_ms: number, fn: () => void) => {
      timers.push(fn);
      return () => void timers.splice(timers.indexOf(fn) >>> 0, 1);
    };
    const writer = new AuditLogWriter({ path, setTimer });
    writer.write([event(1)]);
    expect(timers).toHaveLength(1);
    timers[0]!();
    await vi.waitFor(async () => expect((await lines(path)).map((e) => e.auditID)).toEqual(["id-1"]));
    // Events that come while (or right after) a batch is written wait for the next gathering too.
    writer.write([event(2)]);
    writer.write([event(3)]);
    await vi.waitFor(() => expect(timers).toHaveLength(1));
    expect((await lines(path)).map((e) => e.auditID)).toEqual(["id-1"]);
    timers[0]!();
    await writer.flush();
    expect((await lines(path)).map((e) => e.auditID)).toEqual(["id-1", "id-2", "id-3"]);
  });

  it("writes what it holds at once on flush, without waiting for the gathering", async () => {
    const path = join(dir, "audit.log");
    const timers: (() => void)[] = [];
    const setTimer = (_ms: number, fn: () => void) => {
      timers.push(fn);
      return () => void timers.splice(timers.indexOf(fn) >>> 0, 1);
    };
    const writer = new AuditLogWriter({ path, setTimer });
    writer.write([event(1), event(2)]);
    await writer.flush();
    expect((await lines(path)).map((e) => e.auditID)).toEqual(["id-1", "id-2"]);
    expect(timers).toHaveLength(0);
  });

  it("drops and counts events beyond the buffer instead of waiting", async () => {
    const path = join(dir, "audit.log");
    const writer = new AuditLogWriter({ path, bufferEvents: 2 });
    writer.write([event(1), event(2), event(3), event(4)]);
    await writer.flush();
    expect(writer.dropped).toBe(2);
    expect((await lines(path)).map((e) => e.auditID)).toEqual(["id-1", "id-2"]);
  });

  it("writes - to stdout", async () => {
    let out = "";
    const writer = new AuditLogWriter({ path: "-", stdout: { write: (t: string) => (out += t) } });
    writer.write([event(1)]);
    await writer.flush();
    expect(JSON.parse(out)).toMatchObject({ auditID: "id-1" });
  });

  it("rotates by size to <path>-<timestamp> and keeps maxBackups", async () => {
    const path = join(dir, "audit.log");
    let now = Date.parse("2026-11-24T10:00:00Z");
    // Each event is ~0.6 MB: every write past the first rotates with a 1 MB limit.
    const writer = new AuditLogWriter({ path, maxSizeMB: 1, maxBackups: 2, now: () => now });
    for (let i = 1; i <= 5; i++) {
      writer.write([event(i, 600_000)]);
      await writer.flush();
      now += 1000;
    }
    const files = (await readdir(dir)).sort();
    // The file written at 10:00:0n is renamed at 10:00:0(n+1); the two newest backups stay.
    expect(files).toEqual([
      "audit.log",
      `audit.log-${backupTimestamp(Date.parse("2026-11-24T10:00:03Z"))}`,
      `audit.log-${backupTimestamp(Date.parse("2026-11-24T10:00:04Z"))}`,
    ]);
    expect(files[1]).toBe("audit.log-2026-11-24T10-00-03.000");
    expect((await lines(path)).map((e) => e.auditID)).toEqual(["id-5"]);
    expect((await lines(join(dir, files[2]!))).map((e) => e.auditID)).toEqual(["id-4"]);
  });

  it("removes backups older than maxAge days when it rotates", async () => {
    const path = join(dir, "audit.log");
    const old = join(dir, "audit.log-2026-01-01T00-00-00.000");
    await writeFile(old, "{}\n");
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    await utimes(old, twoDaysAgo, twoDaysAgo);
    await writeFile(join(dir, "audit.log-unrelated"), "keep\n");
    const writer = new AuditLogWriter({ path, maxSizeMB: 1, maxAgeDays: 1 });
    writer.write([event(1, 600_000)]);
    await writer.flush();
    writer.write([event(2, 600_000)]);
    await writer.flush();
    const files = await readdir(dir);
    expect(files).not.toContain("audit.log-2026-01-01T00-00-00.000");
    expect(files).toContain("audit.log-unrelated");
    expect(files.filter((f) => f.startsWith("audit.log-20"))).toHaveLength(1);
  });
});

describe("audit flags", () => {
  it("parses the flags and lists them in the usage", () => {
    expect(
      parseFlags(["--audit-policy-file", "p.yaml", "--audit-log-path=-", "--audit-log-maxsize", "100", "--audit-log-maxbackup", "3", "--audit-log-maxage", "7"])
        .audit,
    ).toEqual({ policyFile: "p.yaml", logPath: "-", maxSizeMB: 100, maxBackups: 3, maxAgeDays: 7 });
    for (const flag of ["--audit-policy-file", "--audit-log-path", "--audit-log-maxsize", "--audit-log-maxbackup", "--audit-log-maxage"])
      expect(usage).toContain(flag);
  });

  it("refuses bad values", () => {
    expect(() => parseAuditFlags({ "audit-log-maxsize": "-1" }, failFlag)).toThrow(
      new FlagError('invalid --audit-log-maxsize "-1": want a non-negative integer'),
    );
    expect(() => parseAuditFlags({ "audit-log-path": "a.log" }, failFlag)).toThrow("--audit-log-path needs --audit-policy-file");
    expect(() => parseAuditFlags({ "audit-policy-file": "" }, failFlag)).toThrow("invalid --audit-policy-file: empty");
  });
});

describe("loadAudit", () => {
  it("stops with the file and the line of a policy that does not parse", async () => {
    const file = join(dir, "policy.yaml");
    await writeFile(file, "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Loud\n");
    await expect(loadAudit({ policyFile: file, logPath: "-", maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 }, { domain: "orch.io" })).rejects.toThrow(
      `--audit-policy-file ${file}: line 4: rules[0].level: level must be one of None, Metadata, Request, RequestResponse, not "Loud"`,
    );
    await expect(loadAudit({ policyFile: join(dir, "missing"), maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 }, { domain: "orch.io" })).rejects.toThrow(/ENOENT/);
  });

  it("gives the server option and the writer", async () => {
    const file = join(dir, "policy.yaml");
    await writeFile(file, "apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n");
    const loaded = await loadAudit({ policyFile: file, logPath: join(dir, "a.log"), maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 }, { domain: "orch.io" });
    expect(loaded?.audit.policy).toEqual({ rules: [{ level: "Metadata" }] });
    expect(loaded?.audit.sink).toBeInstanceOf(AuditLogWriter);
    await expect(loaded?.writer.flush()).resolves.toBeUndefined();
    expect(await loadAudit({ policyFile: file, maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 }, { domain: "orch.io" })).toBeUndefined();
  });
});
