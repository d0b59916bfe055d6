import { MemoryStore } from "@orch/store";
import { describe, expect, it } from "vitest";
import { measuredStore, storeKeyType } from "./measured-store.js";
import { noopMetrics, type MetricsRecorder } from "./metrics.js";

describe("storeKeyType", () => {
  it("names keys and prefixes by resource and group, the core group by resource alone", () => {
    expect(storeKeyType("/registry/core/configmaps/default/a")).toBe("configmaps");
    expect(storeKeyType("/registry/apps/deployments/")).toBe("deployments.apps");
    expect(storeKeyType("/other")).toBe("/other");
  });

  it("names a key without both a group and a resource by the key itself", () => {
    expect(storeKeyType("/registry/core/configmaps")).toBe("configmaps");
    for (const key of [
      "/registry",
      "/registry/",
      "/registry/core",
      "/registry/core/",
      "/registry//configmaps/a",
      "/registryx/core/configmaps",
      "registry/core/configmaps",
    ]) {
      expect(storeKeyType(key)).toBe(key);
    }
  });
});

describe("measuredStore", () => {
  it("times every call, failed ones included, by operation and type", async () => {
    const calls: [string, string][] = [];
    const recorder: MetricsRecorder = { ...noopMetrics, storageRequest: (operation, type, seconds) => void (seconds >= 0 && calls.push([operation, type])) };
    const store = measuredStore(new MemoryStore(), recorder);
    const created = await store.create("/registry/core/configmaps/default/a", { data: 1 });
    await store.get("/registry/core/configmaps/default/a");
    await store.list("/registry/apps/deployments/");
    await store.update("/registry/core/configmaps/default/a", { data: 2 }, created.modRevision);
    await expect(store.create("/registry/core/configmaps/default/a", {})).rejects.toThrow();
    await store.delete("/registry/core/configmaps/default/a");
    await store.revision();
    expect(calls).toEqual([
      ["create", "configmaps"],
      ["get", "configmaps"],
      ["list", "deployments.apps"],
      ["update", "configmaps"],
      ["create", "configmaps"],
      ["delete", "configmaps"],
      ["revision", ""],
    ]);
  });
});
