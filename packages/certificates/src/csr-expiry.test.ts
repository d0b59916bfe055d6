import type { APIObject } from "@orch/meta";
import { formatTime } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { csrExpiry } from "./csr-expiry.js";
import { testCA, testNow } from "./internal/test-pki.js";

const hour = 3600_000;
const created = formatTime(testNow);

function csr(conditions: { type: string; at: number }[] = [], certificate?: string): APIObject {
  return {
    apiVersion: "certificates.orch.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: "c", creationTimestamp: created },
    spec: {},
    status: {
      conditions: conditions.map((c) => ({ type: c.type, status: "True", lastUpdateTime: formatTime(c.at), lastTransitionTime: formatTime(c.at) })),
      ...(certificate ? { certificate } : {}),
    },
  };
}

describe("csrExpiry", () => {
  it("deletes a pending request 24 hours after its creation, not a moment before", () => {
    expect(csrExpiry(csr(), testNow + 24 * hour)).toEqual({ at: testNow + 24 * hour, due: false, reason: "pending" });
    expect(csrExpiry(csr(), testNow + 24 * hour + 1000)?.due).toBe(true);
  });

  it("deletes a denied or failed request one hour after its condition last changed", () => {
    expect(csrExpiry(csr([{ type: "Denied", at: testNow + 2 * hour }]), testNow + 3 * hour + 1000)).toEqual({
      at: testNow + 3 * hour,
      due: true,
      reason: "denied",
    });
    expect(
      csrExpiry(
        csr([
          { type: "Approved", at: testNow },
          { type: "Failed", at: testNow + hour },
        ]),
        testNow + hour,
      ),
    ).toEqual({ at: testNow + 2 * hour, due: false, reason: "failed" });
  });

  it("keeps an approved request waiting for its certificate, and deletes an issued one an hour after approval", () => {
    expect(csrExpiry(csr([{ type: "Approved", at: testNow }]), testNow + 48 * hour)).toBeUndefined();
    expect(csrExpiry(csr([{ type: "Approved", at: testNow }], "bm90IGEgY2VydGlmaWNhdGU="), testNow + hour + 1000)).toEqual({
      at: testNow + hour,
      due: true,
      reason: "issued",
    });
  });

  it("deletes an issued request once its certificate has expired, when that comes first", async () => {
    const { certPem } = await testCA(new Date(testNow + 30 * 60_000));
    const certificate = btoa(certPem);
    expect(csrExpiry(csr([{ type: "Approved", at: testNow }], certificate), testNow + 31 * 60_000)).toEqual({
      at: testNow + 30 * 60_000,
      due: true,
      reason: "certificate-expired",
    });
  });
});
