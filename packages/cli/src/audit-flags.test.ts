import { describe, expect, it } from "vitest";
import { parseAuditFlags } from "./audit-flags.js";

const fail = (message: string): never => {
  throw new Error(message);
};

describe("parseAuditFlags: the webhook backend", () => {
  it("takes the reference's defaults", () => {
    const flags = parseAuditFlags({ "audit-policy-file": "p.yaml", "audit-webhook-config-file": "w.yaml" }, fail);
    expect(flags.webhook).toEqual({
      configFile: "w.yaml",
      mode: "batch",
      batchMaxSize: 400,
      batchMaxWaitMs: 30_000,
      bufferSize: 10_000,
      initialBackoffMs: 10_000,
    });
  });

  it("reads every webhook flag", () => {
    const flags = parseAuditFlags(
      {
        "audit-policy-file": "p.yaml",
        "audit-webhook-config-file": "w.yaml",
        "audit-webhook-mode": "blocking-strict",
        "audit-webhook-batch-max-size": "10",
        "audit-webhook-batch-max-wait": "1m30s",
        "audit-webhook-batch-buffer-size": "50",
        "audit-webhook-initial-backoff": "500ms",
      },
      fail,
    );
    expect(flags.webhook).toEqual({
      configFile: "w.yaml",
      mode: "blocking-strict",
      batchMaxSize: 10,
      batchMaxWaitMs: 90_000,
      bufferSize: 50,
      initialBackoffMs: 500,
    });
  });

  it.each([
    [{ "audit-webhook-config-file": "w.yaml" }, "--audit-webhook-config-file needs --audit-policy-file"],
    [{ "audit-policy-file": "p", "audit-webhook-config-file": "w", "audit-webhook-mode": "fast" }, 'invalid --audit-webhook-mode "fast"'],
    [{ "audit-policy-file": "p", "audit-webhook-config-file": "w", "audit-webhook-batch-max-size": "0" }, 'invalid --audit-webhook-batch-max-size "0"'],
    [{ "audit-policy-file": "p", "audit-webhook-config-file": "w", "audit-webhook-batch-max-wait": "soon" }, 'invalid --audit-webhook-batch-max-wait "soon"'],
  ])("refuses %j", (values, message) => {
    expect(() => parseAuditFlags(values, fail)).toThrow(message);
  });
});
