import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { encodeBase64Text } from "./internal/base64.js";
import { mergeStringData, secretType, secretTypes, validateSecret, validateSecretUpdate } from "./secret.js";
import { decodeObject } from "./validate.js";

const ctx = { domain: "orch.io", now: 0 };
const secret = (fields: Record<string, unknown>, annotations?: Record<string, string>): APIObject => ({
  metadata: { name: "s", namespace: "ns", ...(annotations ? { annotations } : {}) },
  ...fields,
});
const messages = (errors: ReturnType<typeof validateSecret>) => errors.map(formatFieldError);
const b64 = encodeBase64Text;

describe("Secret", () => {
  it("is a namespaced core v1 kind without short names, selectable by type", () => {
    expect(secretType).toMatchObject({ group: "", resource: "secrets", kind: "Secret", scope: "Namespaced" });
    expect(secretType.shortNames).toBeUndefined();
    expect(secretType.strategy?.selectableFieldNames).toEqual(["type"]);
    expect(secretType.strategy?.selectableFields?.(secret({ type: "Opaque" }))).toEqual({ type: "Opaque" });
  });

  it("defaults type to Opaque and merges stringData into data, overriding it", () => {
    const object = secret({ data: { a: b64("old"), keep: b64("k") }, stringData: { a: "new", b: "é" } });
    secretType.strategy?.defaults?.(object, ctx);
    expect(object).toEqual(secret({ data: { a: b64("new"), keep: b64("k"), b: b64("é") }, type: "Opaque" }));
    expect("stringData" in object).toBe(false);
  });

  it("drops stringData on create and update even when defaults did not run", () => {
    const object = secret({ stringData: { a: "x" } });
    secretType.strategy?.prepareForUpdate?.(object, secret({}), ctx);
    expect(object).toEqual(secret({ data: { a: b64("x") } }));
    mergeStringData(object);
    expect(object).toEqual(secret({ data: { a: b64("x") } }));
  });

  it("decodes stringData and rejects invalid base64 in data", () => {
    expect(decodeObject(secretType, "v1", { stringData: { a: "x" } })).toMatchObject({ stringData: { a: "x" } });
    expect(() => decodeObject(secretType, "v1", { data: { a: "%%%" } })).toThrow(/illegal base64 data at input byte 0/);
  });

  it("validates keys and limits the decoded data to 1 MiB", () => {
    expect(messages(validateSecret(secret({ data: { "a/b": "" } }), ctx))[0]).toContain("data[a/b]: Invalid value: \"a/b\": a valid config key");
    const big = b64("x".repeat(1024 * 1024));
    expect(validateSecret(secret({ data: { a: big } }), ctx)).toEqual([]);
    expect(messages(validateSecret(secret({ data: { a: big, b: b64("y") } }), ctx))).toEqual(["data: Too long: must have at most 1048576 bytes"]);
  });

  const t = secretTypes("orch.io");
  it.each([
    [t.serviceAccountToken, {}, undefined, ["metadata.annotations[orch.io/service-account.name]: Required value"]],
    [t.serviceAccountToken, {}, { "orch.io/service-account.name": "default" }, []],
    [t.dockerConfigJSON, {}, undefined, ["data[.dockerconfigjson]: Required value"]],
    [t.dockerConfigJSON, { ".dockerconfigjson": b64('{"auths":{}}') }, undefined, []],
    [t.dockercfg, { ".dockercfg": b64("[]") }, undefined, ['data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}']],
    [t.basicAuth, {}, undefined, ["data[username]: Required value", "data[password]: Required value"]],
    [t.basicAuth, { password: "" }, undefined, []],
    [t.sshAuth, {}, undefined, ["data[ssh-privatekey]: Required value"]],
    [t.tls, { "tls.crt": "" }, undefined, ["data[tls.key]: Required value"]],
    [t.bootstrapToken, {}, undefined, []],
    ["Opaque", {}, undefined, []],
  ])("type %s with data %j needs its keys", (type, data, annotations, expected) => {
    expect(messages(validateSecret(secret({ type, data }, annotations), ctx))).toEqual(expected);
  });

  it("puts the product domain in the type names", () => {
    expect(secretTypes("k8s.io").tls).toBe("k8s.io/tls");
    expect(messages(validateSecret(secret({ type: "k8s.io/service-account-token" }), { domain: "k8s.io" }))).toEqual([
      "metadata.annotations[k8s.io/service-account.name]: Required value",
    ]);
  });

  it("keeps type and, once immutable, data unchanged", () => {
    const old = secret({ type: "Opaque", data: { a: b64("1") }, immutable: true });
    expect(validateSecretUpdate(secret({ type: "Opaque", data: { a: b64("1") }, immutable: true }), old)).toEqual([]);
    expect(messages(validateSecretUpdate(secret({ type: "orch.io/tls", data: {}, immutable: true }), old))).toEqual([
      'type: Invalid value: "orch.io/tls": field is immutable',
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
  });

  it("shows Type and Data columns", () => {
    const columns = secretType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Type", "Data"]);
    const object = secret({ type: "Opaque", data: { a: "", b: "" } });
    expect(columns.map((c) => c.cell(object))).toEqual(["Opaque", 2]);
  });
});
