import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { encodeBase64Text } from "./internal/base64.js";
import { mergeStringData, secretType, validateSecret, validateSecretUpdate } from "./secret.js";
import { secretTypes } from "./secret-types.js";
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
    expect(messages(validateSecret(secret({ data: { "a/b": "" } }), ctx))[0]).toContain('data[a/b]: Invalid value: "a/b": a valid config key');
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
    [
      t.dockercfg,
      { ".dockercfg": b64("[]") },
      undefined,
      ['data[.dockercfg]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ],
    [t.basicAuth, {}, undefined, ["data[username]: Required value", "data[password]: Required value"]],
    [t.basicAuth, { password: "" }, undefined, []],
    [t.sshAuth, {}, undefined, ["data[ssh-privatekey]: Required value"]],
    [t.tls, { "tls.crt": "" }, undefined, ["data[tls.key]: Required value"]],
    [t.bootstrapToken, {}, undefined, ["data[token-id]: Required value", "data[token-secret]: Required value"]],
    ["Opaque", {}, undefined, []],
  ])("type %s with data %j needs its keys", (type, data, annotations, expected) => {
    expect(messages(validateSecret(secret({ type, data }, annotations), ctx))).toEqual(expected);
  });

  it("puts the label domain in the type names: kubernetes.io under k8s.io, as the reference", () => {
    expect(secretTypes("orch.io").tls).toBe("orch.io/tls");
    expect(messages(validateSecret(secret({ type: "kubernetes.io/service-account-token" }), { domain: "k8s.io" }))).toEqual([
      "metadata.annotations[kubernetes.io/service-account.name]: Required value",
    ]);
    expect(messages(validateSecret(secret({ type: "kubernetes.io/tls", data: {} }), { domain: "k8s.io" }))).toEqual([
      "data[tls.crt]: Required value",
      "data[tls.key]: Required value",
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

  describe("of the bootstrap token type", () => {
    const valid = { "token-id": "abcdef", "token-secret": "0123456789abcdef", "usage-bootstrap-authentication": "true" };
    /** A token Secret of `domain` whose `stringData` is `valid` changed by `changes`. */
    const tokenSecret = (changes: Record<string, string> = {}, domain = "orch.io"): APIObject => ({
      metadata: { name: "bootstrap-token-abcdef", namespace: domain === "k8s.io" ? "kube-system" : "orch-system" },
      type: domain === "k8s.io" ? "bootstrap.kubernetes.io/token" : "bootstrap.orch.io/token",
      stringData: { ...valid, ...changes },
    });
    /** What the strategy finds wrong with `object` on create: defaults (which merge `stringData`), then validate. */
    const create = (object: APIObject, domain = "orch.io") => {
      const c = { domain, now: 0 };
      secretType.strategy?.defaults?.(object, c);
      secretType.strategy?.prepareForCreate?.(object, c);
      return secretType.strategy?.validate?.(object, c) ?? [];
    };
    /** What the strategy finds wrong with `object` replacing `old` on update, as the server runs it. */
    const update = (object: APIObject, old: APIObject) => {
      secretType.strategy?.prepareForUpdate?.(object, old, ctx);
      secretType.strategy?.defaults?.(object, ctx);
      return [...(secretType.strategy?.validate?.(object, ctx) ?? []), ...(secretType.strategy?.validateUpdate?.(object, old, ctx) ?? [])];
    };
    const stored = (): APIObject => {
      const object = tokenSecret();
      expect(create(object)).toEqual([]);
      return object;
    };

    it("accepts a valid token Secret given as stringData, in either domain, an expired one included", () => {
      expect(create(tokenSecret({ expiration: "2020-01-01T00:00:00Z", "auth-extra-groups": "system:bootstrappers:worker" }))).toEqual([]);
      expect(create(tokenSecret({}, "k8s.io"), "k8s.io")).toEqual([]);
    });

    it.each([
      ["a bad token id", { "token-id": "ABC" }, "data[token-id]", "FieldValueInvalid", 'data[token-id]: Invalid value: "ABC": must match [a-z0-9]{6}'],
      [
        "a token secret of the wrong length",
        { "token-secret": "0123456789abcdef0" },
        "data[token-secret]",
        "FieldValueInvalid",
        'data[token-secret]: Invalid value: "<secret data>": must match [a-z0-9]{16}',
      ],
      [
        "a bad expiration",
        { expiration: "2026-13-01T00:00:00Z" },
        "data[expiration]",
        "FieldValueInvalid",
        'data[expiration]: Invalid value: "2026-13-01T00:00:00Z": must be an RFC 3339 time such as 2006-01-02T15:04:05Z',
      ],
      [
        "a usage other than true",
        { "usage-bootstrap-authentication": "yes" },
        "data[usage-bootstrap-authentication]",
        "FieldValueInvalid",
        'data[usage-bootstrap-authentication]: Invalid value: "yes": must be "true" when present',
      ],
      [
        "an extra group without the system:bootstrappers: prefix",
        { "auth-extra-groups": "system:masters" },
        "data[auth-extra-groups]",
        "FieldValueInvalid",
        'data[auth-extra-groups]: Invalid value: "system:masters": must match ^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$',
      ],
    ])("refuses %s on create and on update, at its data path", (_what, changes, field, type, message) => {
      const created = create(tokenSecret(changes));
      expect(created.map((e) => [e.field, e.type])).toEqual([[field, type]]);
      expect(messages(created)).toEqual([message]);
      const updated = update(tokenSecret(changes), stored());
      expect(updated.map((e) => [e.field, e.type])).toEqual([[field, type]]);
      expect(messages(updated)).toEqual([message]);
    });

    it("checks data given as base64 too, and a bad token id under k8s.io", () => {
      const object: APIObject = {
        metadata: { name: "bootstrap-token-abcdef", namespace: "orch-system" },
        type: t.bootstrapToken,
        data: { "token-id": b64("abcdef"), "token-secret": b64("short") },
      };
      expect(messages(create(object))).toEqual(['data[token-secret]: Invalid value: "<secret data>": must match [a-z0-9]{16}']);
      expect(messages(create(tokenSecret({ "token-id": "abc" }, "k8s.io"), "k8s.io"))).toEqual([
        'data[token-id]: Invalid value: "abc": must match [a-z0-9]{6}',
      ]);
    });

    it("holds the data alone to the rules: a token Secret in another namespace or under another name is stored (it is no token)", () => {
      expect(create({ ...tokenSecret(), metadata: { name: "bootstrap-token-abcdef", namespace: "default" } })).toEqual([]);
      expect(create({ ...tokenSecret(), metadata: { name: "not-a-token", namespace: "orch-system" } })).toEqual([]);
      expect(messages(create({ ...tokenSecret({ "token-secret": "x" }), metadata: { name: "t", namespace: "default" } }))).toEqual([
        'data[token-secret]: Invalid value: "<secret data>": must match [a-z0-9]{16}',
      ]);
    });

    it("leaves a Secret of another type alone, and the orch.io type alone under k8s.io", () => {
      expect(create({ ...tokenSecret({ "token-id": "ABC" }), type: "Opaque" })).toEqual([]);
      expect(create(tokenSecret({ "token-id": "ABC" }), "k8s.io")).toEqual([]);
    });
  });
});
