import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bytes, componentNameOf, int32, int64, mapOf, microTime, named, quantity, resourceList, stringMap, time } from "./fields.js";

describe("field schemas", () => {
  it.each([
    ["2026-01-01T01:00:00+01:00", "2026-01-01T00:00:00Z"],
    ["2026-01-01T00:00:00.9Z", "2026-01-01T00:00:00Z"],
  ])("time() stores %s as %s", (input, stored) => {
    expect(time().parse(input)).toBe(stored);
  });

  it("microTime() keeps six fraction digits", () => {
    expect(microTime().parse("2026-01-01T00:00:00.5Z")).toBe("2026-01-01T00:00:00.500000Z");
  });

  it("time() and bytes() fail with the reference's message", () => {
    expect(time().safeParse("nope").error?.issues[0]?.message).toContain('invalid time "nope"');
    expect(bytes().safeParse("a").error?.issues[0]?.message).toBe("illegal base64 data at input byte 0");
    expect(bytes().parse("YW\nJj")).toBe("YWJj");
  });

  it("int32() and int64() take integers in range", () => {
    expect(int32().safeParse(2 ** 31).success).toBe(false);
    expect(int32().safeParse(1.5).success).toBe(false);
    expect(int64().parse(2 ** 40)).toBe(2 ** 40);
  });

  it("describe their OpenAPI formats", () => {
    const json = z.toJSONSchema(z.object({ t: time(), b: bytes(), i: int32() }), { io: "input", target: "openapi-3.0" }) as {
      properties: Record<string, { format?: string }>;
    };
    expect([json.properties["t"]?.format, json.properties["b"]?.format, json.properties["i"]?.format]).toEqual(["date-time", "byte", "int32"]);
  });

  it("names only the very instance given to named()", () => {
    const s = named(z.object({}), "api.test.v1.Thing");
    expect(componentNameOf(s)).toBe("api.test.v1.Thing");
    expect(componentNameOf(s.describe("copy"))).toBeUndefined();
  });

  it("mapOf() keeps the input map when every value decodes to itself, and copies otherwise", () => {
    const labels = { app: "web", tier: "front" };
    expect(stringMap().parse(labels)).toBe(labels);
    const canonical = { cpu: "100m", memory: "64Mi" };
    expect(resourceList().parse(canonical)).toBe(canonical);
    const loose = { cpu: "0.1", memory: 1024 };
    const decoded = resourceList().parse(loose);
    expect(decoded).not.toBe(loose);
    expect(decoded).toEqual({ cpu: "100m", memory: "1024" });
    expect(loose).toEqual({ cpu: "0.1", memory: 1024 });
    const frozen = Object.freeze({ app: "web" });
    const thawed = stringMap().parse(frozen);
    expect(thawed).not.toBe(frozen);
    expect(Object.isFrozen(thawed)).toBe(false);
  });

  it("mapOf() reports a bad value at its key and drops a __proto__ key", () => {
    const issue = stringMap().safeParse({ a: "x", b: 1 }).error?.issues[0];
    expect(issue?.path).toEqual(["b"]);
    expect(issue?.code).toBe("invalid_type");
    const hostile = JSON.parse('{"a":"x","__proto__":"y"}') as Record<string, string>;
    const decoded = mapOf(z.string()).parse(hostile);
    expect(Object.keys(decoded)).toEqual(["a"]);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });

  it("mapOf() is a record to JSON Schema", () => {
    expect(z.toJSONSchema(stringMap(), { io: "input", target: "openapi-3.0" })).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
  });

  it("quantity() decodes strings and numbers to the canonical text, and is a string-or-number union to JSON Schema", () => {
    expect(quantity().parse("0.1")).toBe("100m");
    expect(quantity().parse(1024)).toBe("1024");
    expect(quantity().parse("1Gi")).toBe("1Gi");
    expect(quantity().safeParse(true).error?.issues[0]?.code).toBe("invalid_type");
    expect(quantity().safeParse("1 Gi").error?.issues[0]).toMatchObject({
      code: "custom",
      message: expect.stringContaining("quantities must match the regular expression"),
    });
    expect(z.toJSONSchema(quantity(), { io: "input", target: "openapi-3.0" })).toEqual({
      anyOf: [{ type: "string" }, { type: "number" }],
      format: "int-or-string",
    });
    expect(z.toJSONSchema(quantity().describe("x"), { io: "input", target: "openapi-3.0" })).toMatchObject({ format: "int-or-string", description: "x" });
    expect(quantity().optional().parse("2000m")).toBe("2");
  });
});
