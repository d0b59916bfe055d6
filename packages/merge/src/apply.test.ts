import { isStatusError } from "./testdata/apply/status.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apply, applyConflictError } from "./apply.js";
import { updateManagedFields, type JSONObject } from "./managed-fields.js";
import { scenarios, type SchemaName, type Step } from "./testdata/apply/scenarios.js";
import { podSchema, widgetAtomicSchema, widgetSchema } from "./testdata/apply/schemas.js";
import { typeInfoOf, unstructured, type TypeNode } from "./type-info.js";

const types: Record<SchemaName, TypeNode> = {
  widget: typeInfoOf(widgetSchema),
  widgetAtomic: typeInfoOf(widgetAtomicSchema),
  pod: typeInfoOf(podSchema),
  unstructured,
};

function run(live: JSONObject | undefined, step: Step, type: TypeNode, now: number): JSONObject {
  const apiVersion = String((step.apply ?? step.update)?.["apiVersion"] ?? "v1");
  if (step.apply)
    return apply({
      live,
      applied: step.apply,
      manager: step.manager,
      force: step.force ?? false,
      apiVersion,
      now,
      typeInfo: type,
      subresource: step.subresource,
    }).object;
  return updateManagedFields({ live, next: step.update as JSONObject, manager: step.manager, apiVersion, subresource: step.subresource, now, typeInfo: type })
    .object;
}

function managedOf(object: JSONObject): Record<string, unknown> {
  const entries = ((object["metadata"] as JSONObject | undefined)?.["managedFields"] ?? []) as JSONObject[];
  const out: Record<string, unknown> = {};
  for (const e of entries) out[[e["manager"], e["operation"], ...(e["subresource"] ? [e["subresource"]] : [])].join("/")] = e["fieldsV1"];
  return out;
}

function withoutManaged(object: JSONObject): JSONObject {
  const { managedFields: _m, ...metadata } = (object["metadata"] ?? {}) as JSONObject;
  return { ...object, metadata };
}

describe("apply scenarios (server-side apply)", () => {
  for (const s of scenarios) {
    it(`${s.point}: ${s.name}`, () => {
      let live: JSONObject | undefined = s.live;
      const last = s.steps.length - 1;
      let thrown: unknown;
      s.steps.forEach((step, i) => {
        const type = types[step.schema ?? s.schema];
        if (i < last) {
          live = run(live, step, type, 1000 * (i + 1));
          return;
        }
        try {
          live = run(live, step, type, 1000 * (i + 1));
        } catch (e) {
          thrown = e;
        }
      });
      if (s.expect.conflicts || s.expect.error) {
        expect(isStatusError(thrown), String(thrown)).toBe(true);
        const status = (thrown as { status: { reason: string; code: number; message: string; details?: { causes?: { field?: string; reason?: string }[] } } })
          .status;
        if (s.expect.error) {
          expect(status.reason).toBe(s.expect.error);
          return;
        }
        expect(status.reason).toBe("Conflict");
        expect(status.code).toBe(409);
        expect(status.details?.causes?.map((c) => c.field).sort()).toEqual(s.expect.conflicts);
        expect(status.details?.causes?.every((c) => c.reason === "FieldManagerConflict")).toBe(true);
        if (s.expect.message) expect(status.message).toBe(s.expect.message);
        return;
      }
      expect(thrown).toBeUndefined();
      const result = live as unknown as JSONObject;
      if (s.expect.object) expect(withoutManaged(result)).toEqual(s.expect.object);
      if (s.expect.managed) expect(managedOf(result)).toEqual(s.expect.managed);
    });
  }
});

describe("apply", () => {
  it("records apiVersion, RFC 3339 time and FieldsV1 on the entry", () => {
    const { managedFields } = apply({
      live: undefined,
      applied: { apiVersion: "v1", kind: "Widget", metadata: { name: "w" }, spec: { replicas: 1 } },
      manager: "m",
      force: false,
      apiVersion: "v1",
      now: Date.UTC(2026, 10, 21, 20, 49, 14, 500),
      typeInfo: types.widget,
    });
    expect(managedFields).toEqual([
      {
        manager: "m",
        operation: "Apply",
        apiVersion: "v1",
        time: "2026-11-21T20:49:14Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:spec": { "f:replicas": {} } },
      },
    ]);
  });

  it("resets a field left without owner to its default through the defaults callback", () => {
    const t = types.widget;
    const first = apply({
      live: undefined,
      applied: { apiVersion: "v1", kind: "Widget", metadata: { name: "w" }, spec: { replicas: 5, paused: true } },
      manager: "m",
      force: false,
      apiVersion: "v1",
      now: 0,
      typeInfo: t,
    }).object;
    const defaults = (o: JSONObject): JSONObject => {
      const spec = (o["spec"] ?? {}) as JSONObject;
      return spec["replicas"] === undefined ? { ...o, spec: { ...spec, replicas: 1 } } : o;
    };
    const second = apply({
      live: first,
      applied: { apiVersion: "v1", kind: "Widget", metadata: { name: "w" }, spec: { paused: true } },
      manager: "m",
      force: false,
      apiVersion: "v1",
      now: 1000,
      typeInfo: t,
      defaults,
    }).object;
    expect(second["spec"]).toEqual({ paused: true, replicas: 1 });
  });

  it("formats the reference's conflict message with a sub-resource", () => {
    const e = applyConflictError([{ manager: "kubelet", operation: "Update", apiVersion: "v1", subresource: "status", field: ".status.phase" }]);
    expect(e.status.message).toBe('Apply failed with 1 conflict: conflict with "kubelet" with subresource "status" using v1: .status.phase');
  });

  it("does not own fields it is told to ignore", () => {
    const { managedFields } = apply({
      live: undefined,
      applied: { apiVersion: "v1", kind: "Widget", metadata: { name: "w" }, spec: { replicas: 1 }, status: { phase: "x" } },
      manager: "m",
      force: false,
      apiVersion: "v1",
      now: 0,
      typeInfo: types.widget,
      ignoredFields: (() => {
        const s = new (fieldSetCtor())();
        s.insert(["f:status"]);
        return s;
      })(),
    });
    expect(managedFields[0]?.fieldsV1).toEqual({ "f:spec": { "f:replicas": {} } });
  });
});

import { FieldSet } from "./field-set.js";
function fieldSetCtor() {
  return FieldSet;
}

// ---- property tests

const scalar = fc.oneof(fc.constantFrom("a", "b", "c"), fc.integer({ min: 0, max: 3 }));
const specArb = fc.record(
  {
    replicas: fc.integer({ min: 0, max: 3 }),
    paused: fc.boolean(),
    tags: fc.uniqueArray(fc.constantFrom("a", "b", "c", "d")),
    args: fc.array(fc.constantFrom("x", "y")),
    items: fc.uniqueArray(fc.record({ name: fc.constantFrom("a", "b", "c"), value: fc.constantFrom("1", "2") }, { requiredKeys: ["name"] }), {
      selector: (i) => i.name,
    }),
    settings: fc.dictionary(fc.constantFrom("a", "b", "c"), fc.constantFrom("1", "2")),
    selector: fc.dictionary(fc.constantFrom("a", "b"), fc.constantFrom("1", "2")),
    template: fc.record({ image: fc.constantFrom("i", "j"), pull: fc.constantFrom("Always", "Never") }, { requiredKeys: [] }),
    extra: fc.dictionary(fc.constantFrom("p", "q"), scalar),
  },
  { requiredKeys: [] },
);
const objectArb = specArb.map((spec) => ({ apiVersion: "v1", kind: "Widget", metadata: { name: "w" }, spec }) as JSONObject);
const managerArb = fc.constantFrom("m1", "m2", "m3");

describe("apply properties", () => {
  it("applying the same configuration twice changes nothing the second time", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(managerArb, objectArb, fc.boolean()), { maxLength: 4 }), managerArb, objectArb, (history, manager, config) => {
        let live: JSONObject | undefined;
        let now = 0;
        for (const [m, o, isApply] of history) {
          now += 1000;
          live = isApply
            ? apply({ live, applied: o, manager: m, force: true, apiVersion: "v1", now, typeInfo: types.widget }).object
            : updateManagedFields({ live, next: o, manager: m, apiVersion: "v1", now, typeInfo: types.widget }).object;
        }
        const once = apply({ live, applied: config, manager, force: true, apiVersion: "v1", now: now + 1000, typeInfo: types.widget }).object;
        const twice = apply({ live: once, applied: config, manager, force: false, apiVersion: "v1", now: now + 2000, typeInfo: types.widget }).object;
        expect(twice).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });

  it("an update never conflicts, and its manager owns what it changed", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(managerArb, objectArb), { maxLength: 4 }), objectArb, (history, next) => {
        let live: JSONObject | undefined;
        let now = 0;
        for (const [m, o] of history)
          live = apply({ live, applied: o, manager: m, force: true, apiVersion: "v1", now: (now += 1000), typeInfo: types.widget }).object;
        const result = updateManagedFields({ live, next, manager: "editor", apiVersion: "v1", now: now + 1000, typeInfo: types.widget });
        expect(withoutManaged(result.object)).toEqual(withoutManaged(next));
      }),
      { numRuns: 300 },
    );
  });

  it("the applied configuration is always part of the result", () => {
    fc.assert(
      fc.property(objectArb, objectArb, (first, second) => {
        const a = apply({ live: undefined, applied: first, manager: "m1", force: false, apiVersion: "v1", now: 0, typeInfo: types.widget }).object;
        const b = apply({ live: a, applied: second, manager: "m2", force: true, apiVersion: "v1", now: 1000, typeInfo: types.widget }).object;
        const spec = b["spec"] as JSONObject;
        for (const [key, value] of Object.entries(second["spec"] as JSONObject)) {
          if (key === "replicas" || key === "paused" || key === "args" || key === "selector") expect(spec[key]).toEqual(value);
        }
      }),
      { numRuns: 200 },
    );
  });
});

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe("inputs are never mutated", () => {
  it("apply and update work on deep-frozen stored objects", () => {
    const t = types.pod;
    const config = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "a", image: "x", env: [{ name: "E", value: "1" }] }] },
    };
    const stored = deepFreeze(
      apply({ live: undefined, applied: deepFreeze(structuredClone(config)), manager: "m", force: false, apiVersion: "v1", now: 0, typeInfo: t }).object,
    );
    const changedConfig = deepFreeze({ ...config, spec: { containers: [{ name: "a", image: "y" }, { name: "b" }] } });
    const applied = apply({ live: stored, applied: changedConfig, manager: "m", force: false, apiVersion: "v1", now: 1000, typeInfo: t }).object;
    expect((applied["spec"] as { containers: unknown[] }).containers).toEqual([{ name: "a", image: "y" }, { name: "b" }]);
    const updated = updateManagedFields({
      live: deepFreeze(applied),
      next: deepFreeze({ ...applied, spec: { containers: [] } }),
      manager: "u",
      apiVersion: "v1",
      now: 2000,
      typeInfo: t,
    }).object;
    expect(updated["spec"]).toEqual({ containers: [] });
  });
});
