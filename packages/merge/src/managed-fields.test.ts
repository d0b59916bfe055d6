import { describe, expect, it } from "vitest";
import {
  decodeManagedFields,
  defaultFieldManager,
  encodeManagedFields,
  isResetManagedFields,
  updatedManagedFields,
  updateManagedFields,
  validateFieldManager,
  type JSONObject,
} from "./managed-fields.js";
import { managerKey } from "./internal/ownership.js";
import { widgetSchema } from "./testdata/apply/schemas.js";
import { typeInfoOf } from "./type-info.js";

const t = typeInfoOf(widgetSchema);
const w = (spec: JSONObject): JSONObject => ({ apiVersion: "v1", kind: "Widget", metadata: { name: "w" }, spec });

describe("defaultFieldManager", () => {
  it("takes the User-Agent up to its first slash, at most 128 characters", () => {
    expect(defaultFieldManager("kubectl/v1.30.0 (linux/amd64) kubernetes/abc")).toBe("kubectl");
    expect(defaultFieldManager("x".repeat(200))).toHaveLength(128);
    expect(defaultFieldManager(undefined)).toBe("");
  });

  it("answers each User-Agent alike when asked again in a row or after another", () => {
    expect(defaultFieldManager("orch-ctl/1.0")).toBe("orch-ctl");
    expect(defaultFieldManager("orch-ctl/1.0")).toBe("orch-ctl");
    expect(defaultFieldManager("curl/8")).toBe("curl");
    expect(defaultFieldManager(undefined)).toBe("");
    expect(defaultFieldManager("orch-ctl/1.0")).toBe("orch-ctl");
  });
});

describe("validateFieldManager", () => {
  it("refuses a name over 128 bytes and non-printable characters", () => {
    expect(validateFieldManager("x".repeat(129))).toEqual([expect.objectContaining({ type: "FieldValueTooLong", field: "fieldManager" })]);
    expect(validateFieldManager("a\u0007b")[0]?.detail).toContain("invalid character U+0007 (at position 1)");
    expect(validateFieldManager("kubectl client")).toEqual([]);
    expect(validateFieldManager("", { apply: true })[0]?.type).toBe("FieldValueRequired");
  });
});

describe("decodeManagedFields", () => {
  it.each([
    [[{ manager: "m", operation: "Patch", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} }], "entry 0: operation"],
    [[{ manager: "m", operation: "Apply", apiVersion: "", fieldsType: "FieldsV1" }], "entry 0: apiVersion"],
    [[{ manager: "m", operation: "Apply", apiVersion: "v1" }], "entry 0: missing fieldsType"],
    [[{ manager: "m", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV2" }], "entry 0: invalid fieldsType"],
    [
      [
        { manager: "m", operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: {} },
        { manager: "m", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "q:x": {} } },
      ],
      'entry 1: invalid managed fields entry "q:x"',
    ],
    ["nope", "expected a list"],
  ])("refuses %j with a 400 naming the entry", (input, text) => {
    expect(() => decodeManagedFields(input)).toThrow(text);
  });

  it("round-trips entries, sorted applies first, then by time", () => {
    const entries = [
      { manager: "b", operation: "Update", apiVersion: "v1", time: "2026-01-02T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:a": {} } } },
      {
        manager: "a",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:b": {} } },
        subresource: "status",
      },
      { manager: "c", operation: "Apply", apiVersion: "v1", time: "2026-01-03T00:00:00Z", fieldsType: "FieldsV1", fieldsV1: { "f:spec": { "f:c": {} } } },
    ];
    expect(encodeManagedFields(decodeManagedFields(entries)).map((e) => e.manager)).toEqual(["c", "a", "b"]);
  });
});

describe("updateManagedFields", () => {
  it("records an Update entry for the fields a create sets", () => {
    const r = updateManagedFields({
      live: undefined,
      next: w({ replicas: 1, settings: { a: "1" } }),
      manager: "kubectl-create",
      apiVersion: "v1",
      now: Date.UTC(2026, 0, 1),
      typeInfo: t,
    });
    expect(r.managedFields).toEqual([
      {
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {}, "f:settings": { ".": {}, "f:a": {} } } },
      },
    ]);
  });

  it("answers the entries alone (updatedManagedFields) as updateManagedFields sets them, without copying the object", () => {
    const next = w({ replicas: 1 });
    const first = updateManagedFields({ live: undefined, next, manager: "m", apiVersion: "v1", now: 0, typeInfo: t });
    expect(updatedManagedFields({ live: undefined, next, manager: "m", apiVersion: "v1", now: 0, typeInfo: t })).toEqual(first.managedFields);
    expect(first.managedFields.length).toBe(1);
    const changed = w({ replicas: 2 });
    expect(updatedManagedFields({ live: first.object, next: changed, manager: "other", apiVersion: "v1", now: 1000, typeInfo: t })).toEqual(
      updateManagedFields({ live: first.object, next: changed, manager: "other", apiVersion: "v1", now: 1000, typeInfo: t }).managedFields,
    );
    expect(next).toEqual(w({ replicas: 1 }));
  });

  it("puts the entries last in metadata, on its own copy, leaving the caller's object and its old entries alone", () => {
    const first = updateManagedFields({ live: undefined, next: w({ replicas: 1 }), manager: "m", apiVersion: "v1", now: 0, typeInfo: t });
    const oldEntries = (first.object["metadata"] as JSONObject)["managedFields"];
    const next: JSONObject = { ...first.object, spec: { replicas: 3 } };
    const second = updateManagedFields({ live: first.object, next, manager: "other", apiVersion: "v1", now: 1000, typeInfo: t });
    const meta = second.object["metadata"] as JSONObject;
    expect(Object.keys(meta)).toEqual(["name", "managedFields"]);
    expect(meta["managedFields"]).toBe(second.managedFields);
    // "other" took the only field "m" owned.
    expect(second.managedFields.map((e) => e.manager)).toEqual(["other"]);
    expect(next["metadata"]).toBe(first.object["metadata"]);
    expect((next["metadata"] as JSONObject)["managedFields"]).toBe(oldEntries);
    expect(oldEntries).toHaveLength(1);
  });

  it("leaves managedFields as they were when nothing changed", () => {
    const first = updateManagedFields({ live: undefined, next: w({ replicas: 1 }), manager: "m", apiVersion: "v1", now: 0, typeInfo: t });
    const second = updateManagedFields({ live: first.object, next: w({ replicas: 1 }), manager: "other", apiVersion: "v1", now: 5000, typeInfo: t });
    expect(second.managedFields).toEqual(first.managedFields);
  });

  it("keeps at most 10 update entries, folding the oldest into ancient-changes", () => {
    let live: JSONObject | undefined;
    for (let i = 0; i < 12; i++) {
      live = updateManagedFields({
        live,
        next: w({ settings: { ...((live?.["spec"] as JSONObject | undefined)?.["settings"] as object), [`k${i}`]: "v" } }),
        manager: `m${i}`,
        apiVersion: "v1",
        now: 1000 * i,
        typeInfo: t,
      }).object;
    }
    const entries = (live?.["metadata"] as JSONObject)["managedFields"] as JSONObject[];
    expect(entries).toHaveLength(10);
    const ancient = entries.find((e) => e["manager"] === "ancient-changes");
    expect(ancient?.["fieldsV1"]).toEqual({ "f:spec": { "f:settings": { ".": {}, "f:k0": {}, "f:k1": {}, "f:k2": {} } } });
    expect(entries.some((e) => e["manager"] === "m0" || e["manager"] === "m1" || e["manager"] === "m2")).toBe(false);
  });

  it("removes managers left owning nothing", () => {
    const a = updateManagedFields({ live: undefined, next: w({ replicas: 1 }), manager: "a", apiVersion: "v1", now: 0, typeInfo: t });
    const b = updateManagedFields({ live: a.object, next: w({ replicas: 2 }), manager: "b", apiVersion: "v1", now: 1000, typeInfo: t });
    expect(b.managedFields.map((e) => e.manager)).toEqual(["b"]);
  });

  it("reads a one-empty-entry list as a reset and an empty list as nothing", () => {
    expect(isResetManagedFields([{}])).toBe(true);
    expect(isResetManagedFields([])).toBe(false);
    expect(isResetManagedFields([{}, {}])).toBe(false);
  });
});

describe("managerKey", () => {
  it("is the JSON of [manager, operation, update API version, sub-resource], whatever the strings hold", () => {
    for (const manager of ["kubectl", "", 'a"b', "\\u2028 \n é", "x".repeat(130)]) {
      for (const subresource of [undefined, "", "status", 'sc"ale']) {
        expect(managerKey({ manager, operation: "Update", apiVersion: "apps/v1", subresource })).toBe(
          JSON.stringify([manager, "Update", "apps/v1", subresource ?? ""]),
        );
        expect(managerKey({ manager, operation: "Apply", apiVersion: "apps/v1", subresource })).toBe(JSON.stringify([manager, "Apply", "", subresource ?? ""]));
      }
    }
  });

  it("answers the same key for the same manager called again, and another for any part that differs", () => {
    const base = { manager: "kubectl", operation: "Update" as const, apiVersion: "v1" };
    const first = managerKey(base);
    expect(managerKey({ ...base })).toBe(first);
    expect(managerKey({ ...base, apiVersion: "v2" })).toBe(JSON.stringify(["kubectl", "Update", "v2", ""]));
    expect(managerKey({ ...base, subresource: "status" })).toBe(JSON.stringify(["kubectl", "Update", "v1", "status"]));
    expect(managerKey({ ...base, operation: "Apply" })).toBe(JSON.stringify(["kubectl", "Apply", "", ""]));
    expect(managerKey({ ...base, manager: "other" })).toBe(JSON.stringify(["other", "Update", "v1", ""]));
    expect(managerKey(base)).toBe(first);
  });
});
