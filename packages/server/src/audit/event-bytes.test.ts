import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "./event.js";
import { writeAuditEventJSON } from "./event-bytes.js";

const encoder = new TextEncoder();

/** The bytes `writeAuditEventJSON` writes for `value` in a buffer with room to spare. */
function written(value: unknown): Uint8Array {
  const bytes = new Uint8Array(1 << 16);
  const end = writeAuditEventJSON(value, bytes, 3, bytes.length);
  expect(end).toBeGreaterThanOrEqual(3);
  return bytes.slice(3, end);
}

const event: AuditEvent = {
  kind: "Event",
  apiVersion: "audit.orch.io/v1",
  level: "Metadata",
  auditID: "5f0e3c3e-1a1b-4c4d-8e8f-0a1b2c3d4e5f",
  stage: "ResponseComplete",
  requestURI: '/api/v1/namespaces/default/configmaps/bench?x="quoted"&é',
  verb: "get",
  user: { username: "getter", uid: undefined, groups: ["system:authenticated"], extra: { scopes: ["a\u0000b"] } },
  impersonatedUser: undefined,
  sourceIPs: ["127.0.0.1"],
  userAgent: undefined,
  objectRef: { resource: "configmaps", namespace: "default", apiVersion: "v1", name: "bench" },
  responseStatus: { metadata: {}, code: 200 },
  requestObject: undefined,
  responseObject: { items: [1, -0, 1e21, Number.NaN, true, null, "\ud800 lone", "😀"] },
  requestReceivedTimestamp: "2026-11-25T05:51:33.123000Z",
  stageTimestamp: "2026-11-25T05:51:33.124000Z",
  annotations: { "authorization.orch.io/decision": "allow", "authorization.orch.io/reason": "line\nbreak \u2028 \\" },
};

describe("writeAuditEventJSON", () => {
  it("writes the UTF-8 bytes of JSON.stringify for an audit event: key order, escapes, numbers, and undefined members left out", () => {
    expect(written(event)).toEqual(encoder.encode(JSON.stringify(event)));
  });

  it("writes the bytes of JSON.stringify for any JSON value, strings of any UTF-16 units included", () => {
    const text = fc.string({ unit: "binary", maxLength: 12 });
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.constant(undefined),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(text, tie("value"), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(value, (v) => {
        if (v === undefined) return;
        expect(written(v)).toEqual(encoder.encode(JSON.stringify(v)));
      }),
      { numRuns: 500 },
    );
  });

  it("hands objects of classes, toJSON methods and deep nesting to JSON.stringify, with the same result", () => {
    class Box {
      constructor(readonly inner: string) {}
      get hidden(): string {
        return "not serialised";
      }
    }
    let deep: unknown = "bottom";
    for (let i = 0; i < 40; i++) deep = { level: i, next: [deep] };
    const value = { box: new Box("x"), date: new Date(0), custom: { toJSON: () => ({ replaced: true }) }, deep, skipped: () => 1, symbol: Symbol("s") };
    expect(written(value)).toEqual(encoder.encode(JSON.stringify(value)));
  });

  it("answers -1 when the text does not fit before the end, and the position after it when it just fits", () => {
    const size = encoder.encode(JSON.stringify(event)).length;
    const bytes = new Uint8Array(size + 10);
    expect(writeAuditEventJSON(event, bytes, 10, size + 9)).toBe(-1);
    expect(writeAuditEventJSON(event, bytes, 10, size + 10)).toBe(size + 10);
    expect(new TextDecoder().decode(bytes.subarray(10))).toBe(JSON.stringify(event));
    // A string beyond ASCII that does not fit either.
    expect(writeAuditEventJSON({ s: "é".repeat(20) }, new Uint8Array(30), 0, 30)).toBe(-1);
  });

  it("throws as JSON.stringify does for a cycle or a bigint, and refuses a value with no JSON text", () => {
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    const bytes = new Uint8Array(1 << 16);
    expect(() => writeAuditEventJSON(cycle, bytes, 0, bytes.length)).toThrow(TypeError);
    expect(() => writeAuditEventJSON({ n: 1n }, bytes, 0, bytes.length)).toThrow(TypeError);
    expect(() => writeAuditEventJSON(undefined, bytes, 0, bytes.length)).toThrow(TypeError);
  });
});
