import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { controllerRevisionType, validateControllerRevision, validateControllerRevisionUpdate } from "./controller-revision.js";
import { decodeObject } from "./validate.js";

const cr = (fields: Record<string, unknown>): APIObject => ({ metadata: { name: "web-1", namespace: "ns" }, ...fields });
const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

describe("ControllerRevision", () => {
  it("is a namespaced apps/v1 kind", () => {
    expect(controllerRevisionType).toMatchObject({ group: "apps", resource: "controllerrevisions", kind: "ControllerRevision", scope: "Namespaced" });
  });

  it("keeps data as any JSON object on decode", () => {
    const decoded = decodeObject(controllerRevisionType, "v1", cr({ revision: 2, data: { spec: { template: { a: [1, "x"] } } } }));
    expect(decoded["data"]).toEqual({ spec: { template: { a: [1, "x"] } } });
  });

  it.each([
    ["a valid revision", { revision: 1, data: {} }, []],
    ["revision 0", { revision: 0, data: {} }, []],
    ["a missing revision", { data: {} }, [["revision", "FieldValueRequired"]]],
    ["a negative revision", { revision: -1, data: {} }, [["revision", "FieldValueInvalid"]]],
    ["missing data", { revision: 1 }, [["data", "FieldValueRequired"]]],
  ])("validates %s", (_what, fields, expected) => {
    expect(causes(validateControllerRevision(cr(fields)))).toEqual(expected);
  });

  it("freezes data after creation but lets metadata and revision change", () => {
    const old = cr({ revision: 1, data: { a: 1 } });
    expect(validateControllerRevisionUpdate(cr({ revision: 2, data: { a: 1 } }), old)).toEqual([]);
    const errors = validateControllerRevisionUpdate(cr({ revision: 1, data: { a: 2 } }), old);
    expect(causes(errors)).toEqual([["data", "FieldValueInvalid"]]);
    expect(errors[0]?.detail).toBe("field is immutable");
  });

  it("shows the controller and the revision", () => {
    const [controller, revision] = controllerRevisionType.strategy?.tableColumns ?? [];
    const object = cr({ revision: 3, data: {} });
    object.metadata.ownerReferences = [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: "u", controller: true }];
    expect(controller?.cell(object)).toBe("statefulset.apps/web");
    expect(controller?.cell(cr({}))).toBe("<none>");
    expect(revision?.cell(object)).toBe(3);
  });
});
