import { describe, expect, it } from "vitest";
import { notFound } from "./status-error.js";
import { inStatusOrder } from "./status-order.js";
import type { Status } from "./types.js";

describe("inStatusOrder", () => {
  it("orders the members as the reference writes them and keeps the values", () => {
    const scrambled = {
      code: 409,
      details: { name: "x" },
      reason: "Conflict",
      message: "m",
      status: "Failure",
      metadata: {},
      apiVersion: "v1",
      kind: "Status",
    } as Status;
    expect(JSON.stringify(inStatusOrder(scrambled))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"m","reason":"Conflict","details":{"name":"x"},"code":409}',
    );
  });

  it("answers a Status already in order as it is, as the error factories build it", () => {
    const status = notFound({ group: "", resource: "configmaps" }, "x").status;
    expect(Object.keys(status)).toEqual(["kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"]);
    expect(inStatusOrder(status)).toBe(status);
  });
});
