import { Client, inProcessTransport } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { ClusterRoleAggregationController, clusterRoleAggregationController } from "./clusterrole-aggregation.js";
import { clusterRolesRef } from "./internal/refs.js";
import { eventually, interceptTransport, runController, settle, type RunningController } from "./internal/testing.js";

const running: RunningController[] = [];
const servers: APIServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await s.shutdown();
});

const getConfigMaps = { apiGroups: [""], resources: ["configmaps"], verbs: ["get"] };
const listSecrets = { apiGroups: [""], resources: ["secrets"], verbs: ["list"] };
const watchPods = { apiGroups: [""], resources: ["pods"], verbs: ["watch"] };

async function setup() {
  const server = new APIServer();
  servers.push(server);
  const writes: string[] = [];
  const client = new Client({
    transport: interceptTransport(inProcessTransport(server), (request, next) => {
      if (request.method === "PUT") writes.push(request.path.split("/").pop() ?? "");
      return next();
    }),
  });
  const roles = client.resource(clusterRolesRef);
  const role = (name: string, labels: Record<string, string>, rules: unknown[]) => roles.create({ metadata: { name, labels }, rules } as APIObject);
  const rulesOf = async (name: string) => (await roles.get(name))["rules"];
  await role("parts-a", { team: "a" }, [getConfigMaps]);
  await role("parts-b", { team: "b" }, [listSecrets, getConfigMaps]);
  await roles.create({
    metadata: { name: "agg" },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { team: "a" } }, { matchLabels: { team: "b" } }] },
  } as APIObject);
  running.push(await runController(new ClusterRoleAggregationController(), client));
  return { roles, role, rulesOf, writes };
}

describe("ClusterRoleAggregationController", () => {
  it("is named clusterrole-aggregation and on by default", () => {
    expect(clusterRoleAggregationController).toMatchObject({ name: "clusterrole-aggregation", enabledByDefault: true });
  });

  it("gives an aggregated role the union of the rules of the roles its selectors pick, each rule once", async () => {
    const { rulesOf } = await setup();
    expect(await eventually(async () => JSON.stringify(await rulesOf("agg")) === JSON.stringify([getConfigMaps, listSecrets]))).toBe(true);
  });

  it("follows label and rule changes of the other roles", async () => {
    const { roles, role, rulesOf } = await setup();
    expect(await eventually(async () => ((await rulesOf("agg")) as unknown[] | undefined)?.length === 2)).toBe(true);
    const b = await roles.get("parts-b");
    await roles.update({ ...b, metadata: { ...b.metadata, labels: { team: "c" } } });
    expect(await eventually(async () => JSON.stringify(await rulesOf("agg")) === JSON.stringify([getConfigMaps]))).toBe(true);
    await role("parts-c", { team: "a" }, [watchPods]);
    expect(await eventually(async () => JSON.stringify(await rulesOf("agg")) === JSON.stringify([getConfigMaps, watchPods]))).toBe(true);
    await roles.delete("parts-a");
    expect(await eventually(async () => JSON.stringify(await rulesOf("agg")) === JSON.stringify([watchPods]))).toBe(true);
  });

  it("does not write a role whose rules are already right", async () => {
    const { roles, rulesOf, writes } = await setup();
    expect(await eventually(async () => ((await rulesOf("agg")) as unknown[] | undefined)?.length === 2)).toBe(true);
    await settle(50);
    const before = (await roles.get("agg")).metadata.resourceVersion;
    const aggWrites = writes.filter((w) => w === "agg").length;
    expect(aggWrites).toBe(1);
    const a = await roles.get("parts-a");
    await roles.update({ ...a, metadata: { ...a.metadata, annotations: { touched: "yes" } } });
    await settle(100);
    expect(writes.filter((w) => w === "agg")).toHaveLength(aggWrites);
    expect((await roles.get("agg")).metadata.resourceVersion).toBe(before);
  });
});
