import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { leaseType, validateLease } from "./lease.js";
import { decodeObject } from "./validate.js";

const lease = (spec: Record<string, unknown>): APIObject => ({ metadata: { name: "l", namespace: "ns" }, spec });

describe("Lease", () => {
  it("is served in coordination.{domain}/v1, namespaced, without short names", () => {
    expect(leaseType).toMatchObject({ group: "coordination.{domain}", resource: "leases", kind: "Lease", scope: "Namespaced" });
    expect(leaseType.shortNames).toBeUndefined();
  });

  it("normalises micro-times on decode", () => {
    const decoded = decodeObject(leaseType, "v1", { spec: { renewTime: "2026-11-21T21:49:14.1234567+01:00", acquireTime: "2026-11-21T20:49:14Z" } });
    expect(decoded["spec"]).toEqual({ renewTime: "2026-11-21T20:49:14.123456Z", acquireTime: "2026-11-21T20:49:14.000000Z" });
  });

  it.each([
    [{ leaseDurationSeconds: 15, leaseTransitions: 0, holderIdentity: "a" }, []],
    [{ leaseDurationSeconds: 0 }, ["spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0"]],
    [{ leaseTransitions: -1 }, ["spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0"]],
  ])("validates spec %j", (spec, expected) => {
    expect(validateLease(lease(spec)).map(formatFieldError)).toEqual(expected);
  });

  it("shows the holder", () => {
    const column = leaseType.strategy?.tableColumns?.[0];
    expect(column?.name).toBe("Holder");
    expect(column?.cell(lease({ holderIdentity: "node-1" }))).toBe("node-1");
    expect(column?.cell(lease({}))).toBe("");
  });
});
