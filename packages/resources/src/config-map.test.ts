import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { configMapType, validateConfigMap, validateConfigMapUpdate } from "./config-map.js";
import { encodeBase64Text } from "./internal/base64.js";

const cm = (fields: Record<string, unknown>): APIObject => ({ metadata: { name: "c", namespace: "ns" }, ...fields });
const messages = (errors: ReturnType<typeof validateConfigMap>) => errors.map(formatFieldError);

describe("ConfigMap", () => {
  it("is a namespaced core v1 kind with short name cm", () => {
    expect(configMapType).toMatchObject({ group: "", resource: "configmaps", kind: "ConfigMap", scope: "Namespaced", shortNames: ["cm"] });
    expect(configMapType.strategy?.tracksGeneration).toBeUndefined();
  });

  it.each([
    ["good keys", { data: { "a.b_c-D9": "x" }, binaryData: { bin: "AAEC" } }, []],
    [
      "a key with a space",
      { data: { "a b": "x" } },
      [
        "data[a b]: Invalid value: \"a b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      ],
    ],
    ["the key .", { binaryData: { ".": "" } }, ["binaryData[.]: Invalid value: \".\": must not be '.'"]],
    ["the key ..", { data: { "..": "" } }, ["data[..]: Invalid value: \"..\": must not be '..'"]],
    ["a key starting with ..", { data: { "..a": "" } }, ["data[..a]: Invalid value: \"..a\": must not start with '..'"]],
    [
      "a key of 254 characters",
      { data: { ["k".repeat(254)]: "" } },
      [`data[${"k".repeat(254)}]: Invalid value: "${"k".repeat(254)}": must be no more than 253 characters`],
    ],
    ["a key in both maps", { data: { k: "x" }, binaryData: { k: "AA==" } }, ['data[k]: Invalid value: "k": duplicate of key present in binaryData']],
  ])("validates %s", (_what, fields, expected) => {
    expect(messages(validateConfigMap(cm(fields)))).toEqual(expected);
  });

  it("limits data and binaryData to 1 MiB together, as an error on the whole object", () => {
    const half = "x".repeat(512 * 1024);
    expect(validateConfigMap(cm({ data: { a: half }, binaryData: { b: encodeBase64Text(half) } }))).toEqual([]);
    const errors = validateConfigMap(cm({ data: { a: half }, binaryData: { b: encodeBase64Text(`${half}x`) } }));
    expect(messages(errors)).toEqual(["Too long: must have at most 1048576 bytes"]);
  });

  it("freezes data and binaryData once immutable, and immutable itself", () => {
    const old = cm({ data: { a: "1" }, immutable: true });
    expect(validateConfigMapUpdate(cm({ data: { a: "1" }, immutable: true, metadata: { name: "c", labels: { x: "y" } } }), old)).toEqual([]);
    expect(messages(validateConfigMapUpdate(cm({ data: { a: "2" }, binaryData: { b: "AA==" } }), old))).toEqual([
      "immutable: Forbidden: field is immutable when `immutable` is set",
      "data: Forbidden: field is immutable when `immutable` is set",
      "binaryData: Forbidden: field is immutable when `immutable` is set",
    ]);
  });

  it("lets a mutable config map change and become immutable", () => {
    expect(validateConfigMapUpdate(cm({ data: { a: "2" }, immutable: true }), cm({ data: { a: "1" }, immutable: false }))).toEqual([]);
  });

  it("shows the number of entries in the Data column", () => {
    const column = configMapType.strategy?.tableColumns?.[0];
    expect(column?.name).toBe("Data");
    expect(column?.cell(cm({ data: { a: "", b: "" }, binaryData: { c: "" } }))).toBe(3);
    expect(column?.cell(cm({}))).toBe(0);
  });
});
