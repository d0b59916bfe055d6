import { Client, inProcessTransport, type Transport, type TransportResponse } from "@orch/client";
import { isNotFound } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { serviceAccountsRef } from "./internal/refs.js";
import { eventually, interceptTransport, jsonResponse, runController, settle, type RunningController } from "./internal/testing.js";
import { ServiceAccountController, serviceAccountController } from "./service-account.js";

const running: RunningController[] = [];
const servers: APIServer[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const s of servers.splice(0)) await s.shutdown();
});

async function setup(options: { wrap?: (inner: Transport) => Transport; before?: (client: Client) => Promise<void> } = {}) {
  const server = new APIServer();
  servers.push(server);
  const client = new Client({ transport: (options.wrap ?? ((t) => t))(inProcessTransport(server)) });
  await options.before?.(client);
  const controller = await runController(new ServiceAccountController(), client);
  running.push(controller);
  const accounts = client.resource(serviceAccountsRef);
  const account = async (namespace: string) => {
    try {
      return await accounts.get("default", { namespace });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  return { client, accounts, account, logs: controller.logs };
}

/** A 403 of the NamespaceLifecycle plugin, with its cause when `terminating`. */
function refusal(terminating: boolean): TransportResponse {
  return jsonResponse(403, {
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    reason: "Forbidden",
    code: 403,
    message: 'serviceaccounts "default" is forbidden: unable to create new content in namespace team because it is being terminated',
    details: {
      name: "default",
      kind: "serviceaccounts",
      ...(terminating ? { causes: [{ reason: "NamespaceTerminating", message: "namespace team is being terminated", field: "metadata.namespace" }] } : {}),
    },
  });
}

describe("ServiceAccountController", () => {
  it("is named serviceaccount and on by default", () => {
    expect(serviceAccountController).toMatchObject({ name: "serviceaccount", enabledByDefault: true });
  });

  it("creates default in every namespace there is at start, except terminating ones, and in each new one", async () => {
    const { client, account, logs } = await setup({
      before: async (client) => {
        await client.namespaces.create({ metadata: { name: "team" } });
        await client.namespaces.create({ metadata: { name: "closing" } });
        await client.namespaces.delete("closing");
      },
    });
    expect(await eventually(async () => (await account("team")) !== undefined)).toBe(true);
    expect(await eventually(async () => (await account("default")) !== undefined)).toBe(true);
    await client.namespaces.create({ metadata: { name: "fresh" } });
    expect(await eventually(async () => (await account("fresh")) !== undefined)).toBe(true);
    expect(await account("fresh")).toMatchObject({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "fresh" } });
    expect(await account("closing")).toBeUndefined();
    expect(logs).toEqual([]);
  });

  it("creates default again when it is deleted, but not in a terminating namespace", async () => {
    const { client, accounts, account } = await setup();
    await client.namespaces.create({ metadata: { name: "team" } });
    await client.namespaces.create({ metadata: { name: "closing" } });
    expect(await eventually(async () => (await account("team")) !== undefined && (await account("closing")) !== undefined)).toBe(true);
    const first = await account("team");
    await accounts.delete("default", { namespace: "team" });
    expect(await eventually(async () => ((await account("team"))?.metadata.uid ?? first?.metadata.uid) !== first?.metadata.uid)).toBe(true);

    await client.namespaces.delete("closing");
    await accounts.delete("default", { namespace: "closing" });
    // A later namespace gets its account: the deletion above was seen, and left alone.
    await client.namespaces.create({ metadata: { name: "later" } });
    expect(await eventually(async () => (await account("later")) !== undefined)).toBe(true);
    await settle(50);
    expect(await account("closing")).toBeUndefined();
  });

  it("leaves an existing default account and other accounts alone", async () => {
    const { client, accounts, account } = await setup({
      before: async (client) => {
        await client.namespaces.create({ metadata: { name: "team" } });
        await client.resource(serviceAccountsRef).create({ metadata: { name: "default", namespace: "team", labels: { mine: "yes" } } });
      },
    });
    const before = await account("team");
    await accounts.create({ metadata: { name: "builder", namespace: "team" } });
    await accounts.delete("builder", { namespace: "team" });
    await client.namespaces.create({ metadata: { name: "later" } });
    expect(await eventually(async () => (await account("later")) !== undefined)).toBe(true);
    expect((await account("team"))?.metadata.resourceVersion).toBe(before?.metadata.resourceVersion);
    expect((await accounts.list({ namespace: "team" })).items.map((a) => a.metadata.name)).toEqual(["default"]);
  });

  it("takes a refusal because the namespace is terminating as done, and retries any other failure", async () => {
    let refuse: "terminating" | "other" | undefined = "terminating";
    const { client, account, logs } = await setup({
      wrap: (inner) =>
        interceptTransport(inner, (request, next) => {
          if (request.method === "POST" && request.path === "/api/v1/namespaces/team/serviceaccounts" && refuse)
            return Promise.resolve(refusal(refuse === "terminating"));
          return next();
        }),
    });
    await client.namespaces.create({ metadata: { name: "team" } });
    await settle(50);
    expect(await account("team")).toBeUndefined();
    expect(logs.filter((l) => l.includes("team"))).toEqual([]);

    refuse = "other";
    await client.namespaces.patch("team", { metadata: { labels: { touched: "yes" } } }, "merge");
    expect(await eventually(() => logs.some((l) => l.startsWith("serviceaccount: team: ") && l.includes("is forbidden")))).toBe(true);
    refuse = undefined;
    expect(await eventually(async () => (await account("team")) !== undefined)).toBe(true);
  });
});
