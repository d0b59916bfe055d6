import { isBadRequest, isInvalid, type APIObject, type StatusError } from "@orch/meta";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { configMapType } from "./config-map.js";
import { leaseType } from "./lease.js";
import { namespaceType } from "./namespace.js";
import type { ResourceType } from "./resource-type.js";
import { stringMap } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";
import { secretType } from "./secret.js";
import {
  decodeObject,
  dropUnknownFields,
  duplicateFieldMessage,
  findDuplicateFields,
  findUnknownFields,
  strictDecodingError,
  unknownFieldMessage,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "./validate.js";

function decodeFailure(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    return error as StatusError;
  }
  throw new Error("expected a failure");
}

describe("decodeObject", () => {
  it("returns the object with unknown fields stripped and times normalised", () => {
    const decoded = decodeObject(configMapType, "v1", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", creationTimestamp: "2026-01-01T01:00:00+01:00", bogus: 1 },
      data: { k: "v" },
      extra: true,
    });
    expect(decoded).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "a", creationTimestamp: "2026-01-01T00:00:00Z" },
      data: { k: "v" },
    });
  });

  it("treats null members as absent, as the reference's decoder does", () => {
    expect(decodeObject(configMapType, "v1", { metadata: { name: "a", creationTimestamp: null }, data: null })).toEqual({ metadata: { name: "a" } });
  });

  it("gives an empty metadata when the body has none", () => {
    expect(decodeObject(configMapType, "v1", {}).metadata).toEqual({});
  });

  it.each([
    [
      configMapType,
      { data: { a: 1 } },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number 1 into Go struct field ConfigMap.data of type string',
    ],
    [
      configMapType,
      { data: "x" },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string',
    ],
    [configMapType, { metadata: { labels: [] } }, "cannot unmarshal array into Go struct field ConfigMap.metadata.labels of type map[string]string"],
    [configMapType, { binaryData: { a: "!!" } }, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0'],
    [secretType, { data: { a: "YWJj!" } }, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4'],
    [leaseType, { spec: { leaseDurationSeconds: 1.5 } }, "cannot unmarshal number 1.5 into Go struct field Lease.spec.leaseDurationSeconds of type int32"],
    [leaseType, { spec: { renewTime: "yesterday" } }, 'Lease in version "v1" cannot be handled as a Lease: invalid micro time "yesterday"'],
    [namespaceType, [], 'Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal array into Go value of type Namespace'],
    [namespaceType, "x", "cannot unmarshal string into Go value of type Namespace"],
  ])("rejects a wrong JSON type with a 400 (%#)", (type, body, message) => {
    const error = decodeFailure(() => decodeObject(type, "v1", body));
    expect(isBadRequest(error)).toBe(true);
    expect(error.message).toContain(message);
  });

  it("throws a TypeError for a version the type does not have", () => {
    expect(() => decodeObject(configMapType, "v2", {})).toThrow(TypeError);
  });
});

describe("decodeObject: values outside an enum of an embedder's kind", () => {
  const gadgetType: ResourceType = {
    group: "example.{domain}",
    resource: "gadgets",
    singular: "gadget",
    kind: "Gadget",
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        storage: true,
        schema: kindSchema({
          spec: z
            .object({
              color: z.enum(["red", "blue"]).optional(),
              size: z.number().optional(),
              parts: z.array(z.object({ kind: z.literal("bolt").optional() })).optional(),
              modes: z.record(z.string(), z.enum(["on", "off"])).optional(),
              labels: stringMap().optional(),
            })
            .optional(),
        }),
      },
    ],
  };
  const decode = (spec: object, domain?: string) => decodeFailure(() => decodeObject(gadgetType, "v1", { metadata: { name: "g" }, spec }, domain));

  it("is a 422 Invalid with a FieldValueNotSupported cause at the field, worded as the reference's", () => {
    const error = decode({ color: "green" });
    expect(isInvalid(error)).toBe(true);
    expect(error.status).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: 'Gadget.example.orch.io "g" is invalid: spec.color: Unsupported value: "green": supported values: "red", "blue"',
      details: {
        name: "g",
        group: "example.orch.io",
        kind: "Gadget",
        causes: [{ reason: "FieldValueNotSupported", message: 'Unsupported value: "green": supported values: "red", "blue"', field: "spec.color" }],
      },
    });
  });

  it("names every such field, in list items and map values, and the group under the server's domain", () => {
    const error = decode({ color: "green", parts: [{ kind: "bolt" }, { kind: "nut" }], modes: { fan: "auto" } }, "k8s.io");
    expect(error.status.details?.group).toBe("example.k8s.io");
    expect(error.status.details?.causes).toEqual([
      { reason: "FieldValueNotSupported", message: 'Unsupported value: "green": supported values: "red", "blue"', field: "spec.color" },
      { reason: "FieldValueNotSupported", message: 'Unsupported value: "nut": supported values: "bolt"', field: "spec.parts[1].kind" },
      { reason: "FieldValueNotSupported", message: 'Unsupported value: "auto": supported values: "on", "off"', field: "spec.modes[fan]" },
    ]);
  });

  it("stays the decoder's 400 when a JSON type is wrong too, as decoding comes before validation", () => {
    const error = decode({ color: "green", size: "big" });
    expect(isBadRequest(error)).toBe(true);
    expect(error.message).toBe(
      'Gadget in version "v1" cannot be handled as a Gadget: json: cannot unmarshal string into Go struct field Gadget.spec.size of type float64',
    );
    // An enum takes no other type: a number there is outside it, as zod reports it.
    expect(decode({ color: 3 }).status.details?.causes?.[0]?.message).toBe('Unsupported value: 3: supported values: "red", "blue"');
  });

  it("accepts the allowed values", () => {
    expect(decodeObject(gadgetType, "v1", { metadata: { name: "g" }, spec: { color: "red", modes: { fan: "on" } } })).toMatchObject({ spec: { color: "red" } });
  });
});

describe("validateObjectMeta", () => {
  const errorsOf = (metadata: object, options: { namespaced: boolean; nameIsLabel?: boolean }, domain = "orch.io") =>
    validateObjectMeta({ metadata } as APIObject, options, { domain }).map((e) => `${e.field}: ${e.type}: ${e.detail}`);

  it.each<[string, object, { namespaced: boolean; nameIsLabel?: boolean }, string[]]>([
    ["a valid namespaced object", { name: "a", namespace: "ns" }, { namespaced: true }, []],
    [
      "no name and no namespace",
      {},
      { namespaced: true },
      ["metadata.name: FieldValueRequired: name or generateName is required", "metadata.namespace: FieldValueRequired: "],
    ],
    [
      "a namespace on a cluster kind",
      { name: "a", namespace: "x" },
      { namespaced: false },
      ["metadata.namespace: FieldValueForbidden: not allowed on this type"],
    ],
    [
      "a dotted name where a label is needed",
      { name: "a.b" },
      { namespaced: false, nameIsLabel: true },
      ["metadata.name: FieldValueInvalid: must not contain dots"],
    ],
    [
      "a negative generation",
      { name: "a", generation: -1 },
      { namespaced: false },
      ["metadata.generation: FieldValueInvalid: must be greater than or equal to 0"],
    ],
    [
      "an unqualified non-standard finalizer",
      { name: "a", finalizers: ["mine"] },
      { namespaced: false },
      ["metadata.finalizers: FieldValueInvalid: name is neither a standard finalizer name nor is it fully qualified"],
    ],
    [
      "orphan with foregroundDeletion",
      { name: "a", finalizers: ["orphan", "foregroundDeletion"] },
      { namespaced: false },
      ["metadata.finalizers: FieldValueInvalid: finalizer orphan and foregroundDeletion cannot be both set"],
    ],
    ["standard and qualified finalizers", { name: "a", finalizers: ["orch", "example.com/x"] }, { namespaced: false }, []],
    [
      "an owner reference missing its uid",
      { name: "a", ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p" }] },
      { namespaced: false },
      ["metadata.ownerReferences.uid: FieldValueInvalid: must not be empty"],
    ],
    [
      "a managedFields entry with a bad operation",
      { name: "a", managedFields: [{ operation: "Patch" }] },
      { namespaced: false },
      ["metadata.managedFields[0].operation: FieldValueInvalid: must be `Apply` or `Update`"],
    ],
  ])("reports %s", (_what, metadata, options, expected) => {
    expect(errorsOf(metadata, options)).toEqual(expected);
  });

  it("knows the standard finalizer of domain k8s.io", () => {
    expect(errorsOf({ name: "a", finalizers: ["kubernetes"] }, { namespaced: false }, "k8s.io")).toEqual([]);
    expect(errorsOf({ name: "a", finalizers: ["kubernetes"] }, { namespaced: false })).toHaveLength(1);
  });

  it("checks generateName as a prefix", () => {
    expect(errorsOf({ name: "ab-x1234", generateName: "ab-" }, { namespaced: false })).toEqual([]);
    expect(errorsOf({ name: "a", generateName: "AB-" }, { namespaced: false })[0]).toContain("metadata.generateName: FieldValueInvalid");
  });

  it("limits annotations to 256 KiB", () => {
    const errors = validateObjectMeta({ metadata: { name: "a", annotations: { a: "x".repeat(262144) } } }, { namespaced: false });
    expect(errors.map((e) => `${e.field}: ${e.detail}`)).toEqual(["metadata.annotations: must have at most 262144 bytes"]);
  });
});

describe("validateObjectMetaUpdate", () => {
  const old: APIObject = {
    metadata: { name: "a", namespace: "ns", uid: "u1", creationTimestamp: "2026-01-01T00:00:00Z", generation: 2, resourceVersion: "5" },
  };

  it("accepts an unchanged identity", () => {
    expect(validateObjectMetaUpdate(structuredClone(old), old)).toEqual([]);
  });

  it.each([
    ["name", "b"],
    ["namespace", "other"],
    ["uid", "u2"],
    ["creationTimestamp", "2027-01-01T00:00:00Z"],
  ])("reports a changed metadata.%s as immutable", (field, value) => {
    const next = structuredClone(old);
    (next.metadata as Record<string, unknown>)[field] = value;
    expect(validateObjectMetaUpdate(next, old)).toEqual([{ type: "FieldValueInvalid", field: `metadata.${field}`, value, detail: "field is immutable" }]);
  });

  it("rejects a decremented generation and new finalizers during deletion", () => {
    const deleting: APIObject = { metadata: { ...old.metadata, deletionTimestamp: "2026-01-02T00:00:00Z", finalizers: ["a.io/x"] } };
    const next: APIObject = { metadata: { ...deleting.metadata, generation: 1, finalizers: ["a.io/x", "b.io/y"] } };
    expect(validateObjectMetaUpdate(next, deleting).map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'metadata.finalizers: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
      "metadata.generation: must not be decremented",
    ]);
  });

  it("checks labels and the rest only when asked", () => {
    const next: APIObject = { metadata: { ...old.metadata, labels: { "bad key": "v" } } };
    expect(validateObjectMetaUpdate(next, old)).toEqual([]);
    expect(validateObjectMetaUpdate(next, old, { includeCommon: true })).toHaveLength(1);
  });

  it("requires a resourceVersion when asked", () => {
    const next: APIObject = { metadata: { ...old.metadata, resourceVersion: "" } };
    expect(validateObjectMetaUpdate(next, old, { requireResourceVersion: true }).map((e) => e.detail)).toEqual(["must be specified for an update"]);
  });
});

describe("unknown and duplicate fields", () => {
  it("finds fields the schema does not know, never map keys", () => {
    const value = {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "a", bogus: 1, labels: { anything: "x" }, ownerReferences: [{ uid: "u", extra: true }] },
      spec: { foo: 1, finalizers: [] },
      status: { conditions: [{ type: "A", status: "True", nope: 1 }] },
      top: 1,
    };
    expect(findUnknownFields(value, namespaceType, "v1")).toEqual([
      "metadata.bogus",
      "metadata.ownerReferences[0].extra",
      "spec.foo",
      "status.conditions[0].nope",
      "top",
    ]);
  });

  it("drops unknown fields without touching the input", () => {
    const value = { metadata: { name: "a", bogus: 1 }, data: { k: "v" }, extra: 1 };
    expect(dropUnknownFields(value, configMapType, "v1")).toEqual({ metadata: { name: "a" }, data: { k: "v" } });
    expect(value.extra).toBe(1);
  });

  it.each([
    ['{"metadata":{"name":"a","name":"b"}}', ["metadata.name"]],
    ['{"a":1,"b":[{"x":1,"x":2}],"a":2}', ["b[0].x", "a"]],
    ['{"a":"\\"q","a":1}', ["a"]],
    ['{"a":{}}', []],
    ['{"a":', []],
  ])("findDuplicateFields(%s) is %j", (text, expected) => {
    expect(findDuplicateFields(text)).toEqual(expected);
  });

  it.each([
    ['{"metadata":{"name":"a","name":"b"}}', ["metadata.name"]],
    ['{"a":1,"b":[{"x":1,"x":2}],"a":2}', ["b[0].x", "a"]],
    ['{"a":"\\"q:","a":1}', ["a"]],
    ['{"a:b":"c:d","e":{"f\\":":[1,{"g":":"}]}}', []],
    ['{"__proto__":{"a":1},"b":[]}', []],
  ])("findDuplicateFields(%s, its parse) is %j: member counts decide when there are none", (text, expected) => {
    expect(findDuplicateFields(text, JSON.parse(text))).toEqual(expected);
  });

  it("words the messages and the Strict error as the reference", () => {
    expect(unknownFieldMessage("spec.foo")).toBe('unknown field "spec.foo"');
    expect(duplicateFieldMessage("metadata.name")).toBe('duplicate field "metadata.name"');
    const error = strictDecodingError(configMapType, "v1", [unknownFieldMessage("spec"), duplicateFieldMessage("metadata.name")]);
    expect(error.status.code).toBe(400);
    expect(error.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec", duplicate field "metadata.name"',
    );
  });
});
