import { describe, expect, it } from "vitest";
import { builtinControllers } from "./builtin-controllers.js";
import { selectControllers } from "./controller-manager.js";

describe("builtinControllers", () => {
  it("selects every loop but tokencleaner and bootstrapsigner with *, and those when named", () => {
    expect(selectControllers("*", builtinControllers)).toEqual([
      "garbagecollector",
      "csrapproving",
      "csrsigning",
      "csrcleaner",
      "pvc-protection",
      "pv-protection",
      "namespace",
      "serviceaccount",
      "endpoint",
      "endpointslice",
      "resourcequota",
      "clusterrole-aggregation",
      "replicaset",
      "replicationcontroller",
      "deployment",
      "job",
      "cronjob",
      "statefulset",
      "daemonset",
      "disruption",
      "ttl-after-finished",
    ]);
    expect(selectControllers("*,tokencleaner,bootstrapsigner", builtinControllers)).toHaveLength(23);
  });

  it("creates each controller under the name it is selected by", () => {
    for (const d of builtinControllers) expect(d.create().name).toBe(d.name);
  });
});
