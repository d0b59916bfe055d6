import fc from "fast-check";
import { encodeFieldsV1, FieldSet } from "@orch/merge";
import { configMapType, decodeObject } from "@orch/resources";
import { deepFreeze } from "@orch/store";
import { describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";
import { decodedStoredManagedFields } from "./stored-ownership.js";

/** What the decoder makes of `entries` as the managedFields of a ConfigMap. */
function decoded(entries: unknown): unknown {
  return decodeObject(configMapType, "v1", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", managedFields: entries } }).metadata.managedFields;
}

const cloneWithoutSlot = (value: object) => JSON.parse(JSON.stringify(value)) as unknown;
const encoded = () => deepFreeze(encodeFieldsV1(FieldSet.of(["f:data", "f:k"], ["f:metadata", "f:labels", "f:x"])));
const entry = (extra: Record<string, unknown> = {}) => ({
  manager: "kubectl",
  operation: "Update",
  apiVersion: "v1",
  time: "2026-01-01T00:00:00Z",
  fieldsType: "FieldsV1",
  fieldsV1: { "f:data": { ".": {}, "f:k": {} } },
  ...extra,
});

describe("the stored managedFields a patch carries unchanged", () => {
  it("are what the decoder makes of them, member order included, when it would only copy them", () => {
    const lists: unknown[] = [
      [],
      [entry()],
      [entry({ fieldsV1: encoded() }), entry({ manager: "other", subresource: "status" })],
      [{ manager: "m", operation: "Apply", apiVersion: "v1" }],
    ];
    for (const list of lists) {
      const fast = decodedStoredManagedFields(deepFreeze(list as object));
      expect(fast).toBeDefined();
      expect(JSON.stringify(fast)).toBe(JSON.stringify(decoded(list)));
      expect(fast).toEqual(decoded(list));
    }
    // A FieldsV1 value the server encoded is copied without being walked.
    const stored = encoded();
    expect(decodedStoredManagedFields(deepFreeze([entry({ fieldsV1: stored })]))?.[0]?.fieldsV1).toEqual(cloneWithoutSlot(stored));
  });

  it("gives the decoder whatever it would report, drop, normalise or refuse", () => {
    const refused: unknown[] = [
      undefined,
      null,
      {},
      [null],
      [entry({ extra: "x" })],
      [entry({ manager: null })],
      [entry({ manager: 7 })],
      [entry({ time: "2026-01-01T00:00:00.000Z" })],
      [entry({ time: "yesterday" })],
      [entry({ fieldsV1: { "f:data": { "f:k": null } } })],
      [entry({ fieldsV1: [] })],
      [entry({ fieldsV1: "f:data" })],
      [entry({ subresource: undefined })],
      [Object.assign(Object.create(null) as object, entry())],
    ];
    for (const list of refused) expect(decodedStoredManagedFields(list)).toBeUndefined();
  });

  it("agree with the decoder on any list the decoder takes as it is", () => {
    const text = fc.constantFrom("", "m", "v1", "Update", "Apply", "FieldsV1", "status");
    const fields = fc.dictionary(fc.constantFrom("f:a", "f:b", ".", "k:{}"), fc.constant({}), { maxKeys: 3, noNullPrototype: true });
    const anEntry = fc.record(
      {
        manager: text,
        operation: text,
        apiVersion: text,
        subresource: text,
        fieldsType: text,
        fieldsV1: fields,
        time: fc.constantFrom("2026-01-01T00:00:00Z"),
      },
      { requiredKeys: [], noNullPrototype: true },
    );
    fc.assert(
      fc.property(fc.array(anEntry, { maxLength: 3 }), (list) => {
        const fast = decodedStoredManagedFields(list);
        expect(fast).toBeDefined();
        expect(JSON.stringify(fast)).toBe(JSON.stringify(decoded(list)));
      }),
    );
  });

  it("keep their ownership through a merge patch that leaves them alone, and change with one that names them", async () => {
    const server = new APIServer();
    const url = "/api/v1/namespaces/default/configmaps";
    const send = async (method: string, path: string, body: unknown, contentType = "application/json") => {
      const res = await server.handle({
        method,
        url: path,
        headers: new Headers({ "content-type": contentType }),
        body: new TextEncoder().encode(JSON.stringify(body)),
      });
      return JSON.parse(typeof res.body === "string" ? res.body : new TextDecoder().decode(res.body)) as { metadata: { managedFields?: unknown[] } };
    };
    await send("POST", `${url}?fieldManager=creator`, { metadata: { name: "a" }, data: { k: "v" } });
    const patched = await send("PATCH", `${url}/a?fieldManager=patcher`, { data: { other: "o" } }, "application/merge-patch+json");
    expect(patched.metadata.managedFields?.map((e) => (e as { manager: string }).manager)).toEqual(["creator", "patcher"]);
    const reset = await send("PATCH", `${url}/a`, { metadata: { managedFields: [{}] } }, "application/merge-patch+json");
    expect(reset.metadata.managedFields).toBeUndefined();
    await server.shutdown();
  });
});
