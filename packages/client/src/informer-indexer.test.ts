import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { Indexer, labelIndex, namespaceIndex, objectKey } from "./informer-indexer.js";

const obj = (name: string, namespace: string | undefined, labels: Record<string, string> = {}): APIObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels, ...(namespace === undefined ? {} : { namespace }) },
});
const put = (indexer: Indexer, o: APIObject) => indexer.set(objectKey(o), o);

describe("Indexer", () => {
  it("indexes by namespace, cluster-scoped objects under the empty string", () => {
    const indexer = new Indexer();
    put(indexer, obj("a", "x"));
    put(indexer, obj("n", undefined));
    expect(indexer.indexKeys(namespaceIndex, "x")).toEqual(["x/a"]);
    expect(indexer.indexKeys(namespaceIndex, "")).toEqual(["n"]);
  });

  it("moves an object between buckets on update, drops empty buckets, and unindexes on delete", () => {
    const indexer = new Indexer();
    indexer.addIndexers({ app: labelIndex("app"), every: (o) => Object.values(o.metadata.labels ?? {}) });
    put(indexer, obj("a", "x", { app: "web", tier: "front" }));
    expect(indexer.indexValues("every").sort()).toEqual(["front", "web"]);
    const old = put(indexer, obj("a", "x", { app: "db" }));
    expect(old?.metadata.labels).toEqual({ app: "web", tier: "front" });
    expect(indexer.indexValues("app")).toEqual(["db"]);
    expect(indexer.indexValues("every")).toEqual(["db"]);
    expect(indexer.byIndex("app", "web")).toEqual([]);
    expect(indexer.delete("x/a")?.metadata.name).toBe("a");
    expect(indexer.delete("x/a")).toBeUndefined();
    expect(indexer.indexValues("app")).toEqual([]);
    expect(indexer.indexValues(namespaceIndex)).toEqual([]);
    expect(indexer.size).toBe(0);
  });

  it("fills an index added late from the objects already cached", () => {
    const indexer = new Indexer();
    put(indexer, obj("a", "x", { app: "web" }));
    put(indexer, obj("b", "y", { app: "web" }));
    indexer.addIndexers({ app: labelIndex("app") });
    expect(indexer.indexKeys("app", "web")).toEqual(["x/a", "y/b"]);
    expect(indexer.indexNames()).toEqual([namespaceIndex, "app"]);
    expect(() => indexer.indexKeys("nope", "v")).toThrow(/no index named "nope"/);
  });
});
