import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  effectiveListType,
  extensionPrefix,
  listType,
  mapType,
  mergeMarkerExtensions,
  mergeMarkersFromJSONSchema,
  mergeMarkersOf,
  patchStrategy,
  structType,
  withMergeMarkers,
} from "./merge-markers.js";

describe("merge markers", () => {
  it("attach to a copy and leave the original schema unmarked", () => {
    const base = z.array(z.string());
    const marked = listType(base, "set");
    expect(mergeMarkersOf(marked)).toEqual({ listType: "set" });
    expect(mergeMarkersOf(base)).toBeUndefined();
  });

  it("are found through optional, nullable, default and lazy wrappers", () => {
    const owners = listType(z.array(z.object({ uid: z.string() })), "map", ["uid"]);
    const expected = { listType: "map", listMapKeys: ["uid"] };
    expect(mergeMarkersOf(owners.optional())).toEqual(expected);
    expect(mergeMarkersOf(owners.nullable().optional())).toEqual(expected);
    expect(mergeMarkersOf(owners.default([]))).toEqual(expected);
    expect(mergeMarkersOf(z.lazy(() => owners))).toEqual(expected);
  });

  it("survive describe() and meta(), which clone the schema", () => {
    const marked = mapType(z.record(z.string(), z.string()), "atomic").describe("a map");
    expect(mergeMarkersOf(marked)).toEqual({ mapType: "atomic" });
  });

  it("accumulate when several helpers are applied", () => {
    const s = patchStrategy(listType(z.array(z.object({ type: z.string() })), "map", ["type"]), "merge", "type");
    expect(mergeMarkersOf(s)).toEqual({ listType: "map", listMapKeys: ["type"], patchStrategy: "merge", patchMergeKey: "type" });
  });

  it("reject a map list without keys", () => {
    expect(() => listType(z.array(z.object({})), "map")).toThrow(TypeError);
  });

  it.each([
    [{ listType: "set" as const }, { listType: "set", keys: [] }],
    [
      { patchStrategy: "merge" as const, patchMergeKey: "name" },
      { listType: "map", keys: ["name"] },
    ],
    [{ patchStrategy: "merge" as const }, { listType: "atomic", keys: [] }],
    [undefined, { listType: "atomic", keys: [] }],
  ])("effective list type of %j is %j", (markers, expected) => {
    expect(effectiveListType(markers)).toEqual(expected);
  });

  it("print as x-kubernetes-* extensions for domain k8s.io and x-orch-* otherwise", () => {
    expect(extensionPrefix("k8s.io")).toBe("kubernetes");
    expect(extensionPrefix("orch.io")).toBe("orch");
    const markers = { listType: "map" as const, listMapKeys: ["uid"], patchStrategy: "merge" as const, patchMergeKey: "uid" };
    expect(mergeMarkerExtensions(markers, "kubernetes")).toEqual({
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["uid"],
      "x-kubernetes-patch-strategy": "merge",
      "x-kubernetes-patch-merge-key": "uid",
    });
    expect(mergeMarkerExtensions({ structType: "atomic" }, "orch")).toEqual({ "x-orch-map-type": "atomic" });
  });

  it("read back from JSON schema extensions", () => {
    expect(mergeMarkersFromJSONSchema({ type: "array", "x-orch-list-type": "map", "x-orch-list-map-keys": ["a"] }, "orch")).toEqual({
      listType: "map",
      listMapKeys: ["a"],
    });
    expect(mergeMarkersFromJSONSchema({ type: "object", additionalProperties: {}, "x-orch-map-type": "atomic" }, "orch")).toEqual({ mapType: "atomic" });
    expect(mergeMarkersFromJSONSchema({ type: "object", properties: {}, "x-orch-map-type": "atomic" }, "orch")).toEqual({ structType: "atomic" });
    expect(mergeMarkersFromJSONSchema({ type: "string" }, "orch")).toBeUndefined();
  });

  it("structType marks objects", () => {
    expect(mergeMarkersOf(structType(z.object({}), "atomic"))).toEqual({ structType: "atomic" });
    expect(mergeMarkersOf(withMergeMarkers(z.object({}), { structType: "granular" }))).toEqual({ structType: "granular" });
  });
});
