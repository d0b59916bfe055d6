import { describe, expect, it } from "vitest";
import { componentStatus, componentStatuses, componentStatusType } from "./component-status.js";
import { decodeObject } from "./validate.js";

describe("ComponentStatus", () => {
  it("is a computed, read-only, cluster-scoped core v1 kind with short name cs", () => {
    expect(componentStatusType).toMatchObject({
      group: "",
      resource: "componentstatuses",
      scope: "Cluster",
      shortNames: ["cs"],
      computed: componentStatuses,
      verbs: ["get", "list"],
    });
  });

  it("computes controller-manager and storage from the server's facts", async () => {
    const facts = (store: boolean, controllers: boolean) => ({
      domain: "orch.io",
      now: 0,
      storeHealthy: async () => store,
      controllersRunning: () => controllers,
    });
    expect(await componentStatuses(facts(true, true))).toEqual([
      componentStatus("controller-manager", { healthy: true, message: "ok" }),
      componentStatus("storage", { healthy: true, message: "ok" }),
    ]);
    const down = await componentStatuses(facts(false, false));
    expect(down.map((o) => o["conditions"])).toEqual([
      [{ type: "Healthy", status: "False", message: "", error: "the namespace controller is not running" }],
      [{ type: "Healthy", status: "False", message: "", error: "the store does not answer" }],
    ]);
  });

  it("builds healthy and unhealthy objects that decode with the schema", () => {
    const healthy = componentStatus("etcd-0", { healthy: true, message: "ok" });
    expect(decodeObject(componentStatusType, "v1", healthy)).toEqual({
      apiVersion: "v1",
      kind: "ComponentStatus",
      metadata: { name: "etcd-0" },
      conditions: [{ type: "Healthy", status: "True", message: "ok" }],
    });
    expect(componentStatus("store", { healthy: false, error: "timeout" })["conditions"]).toEqual([{ type: "Healthy", status: "False", error: "timeout" }]);
  });

  it.each([
    ["healthy", componentStatus("a", { healthy: true, message: "ok" }), ["Healthy", "ok", ""]],
    ["unhealthy", componentStatus("a", { healthy: false, error: "down", message: "m" }), ["Unhealthy", "m", "down"]],
    ["without condition", { metadata: { name: "a" } }, ["Unknown", "", ""]],
  ])("prints STATUS MESSAGE ERROR when %s", (_what, object, expected) => {
    const columns = componentStatusType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Status", "Message", "Error"]);
    expect(columns.map((c) => c.cell(object))).toEqual(expected);
  });
});
