import { isAlreadyExists, isConflict, isNotFound, type APIObject, type WatchEvent } from "@orch/meta";
import { APIServer } from "@orch/server";
import { describe, expect, it } from "vitest";
import { Client } from "./client.js";
import { httpTransport } from "./http-transport.js";
import { inProcessTransport } from "./in-process-transport.js";
import { Informer } from "./informer.js";

const transports = {
  "in process": (server: APIServer) => inProcessTransport(server),
  // The HTTP transport with APIServer.fetch as its fetch port: HTTP semantics and streamed bodies, no socket.
  "over fetch": (server: APIServer) => httpTransport({ baseURL: "http://orch.test", fetch: (input, init) => server.fetch(new Request(input, init)) }),
};

const configMap = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): APIObject => ({
  metadata: { name, labels },
  data,
});

async function next<T>(iterator: AsyncIterator<T>): Promise<T> {
  const r = await iterator.next();
  if (r.done) throw new Error("stream ended");
  return r.value;
}

describe.each(Object.entries(transports))("%s against a real APIServer", (_name, transport) => {
  function setup() {
    const server = new APIServer();
    const client = new Client({ transport: transport(server) });
    return { server, client };
  }

  it("creates, gets, updates with optimistic concurrency, patches and deletes a ConfigMap", async () => {
    const { client } = setup();
    const cms = client.configMaps;
    const created = await cms.create(configMap("settings", { a: "1" }), { namespace: "default" });
    expect(created).toMatchObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "default" }, data: { a: "1" } });
    expect(created.metadata.uid).toBeTruthy();
    await expect(cms.create(configMap("settings"), { namespace: "default" })).rejects.toSatisfy(isAlreadyExists);

    const got = await cms.get("settings", { namespace: "default" });
    expect(got.metadata.resourceVersion).toBe(created.metadata.resourceVersion);

    const updated = await cms.update({ ...got, data: { a: "2" } });
    expect(updated.data).toEqual({ a: "2" });
    await expect(cms.update({ ...got, data: { a: "3" } })).rejects.toSatisfy(isConflict);

    const merged = await cms.patch("settings", { data: { b: "x" } }, "merge", { namespace: "default" });
    expect(merged.data).toEqual({ a: "2", b: "x" });
    const jsonPatched = await cms.patch("settings", [{ op: "remove", path: "/data/a" }], "json", { namespace: "default" });
    expect(jsonPatched.data).toEqual({ b: "x" });

    const dry = await cms.delete("settings", { namespace: "default", dryRun: true });
    expect(dry).toBeTruthy();
    await cms.get("settings", { namespace: "default" });
    await cms.delete("settings", { namespace: "default" });
    await expect(cms.get("settings", { namespace: "default" })).rejects.toSatisfy(isNotFound);
  });

  it("lists in pages with continue tokens and by label selector", async () => {
    const { client } = setup();
    for (let i = 0; i < 7; i++) {
      await client.configMaps.create(configMap(`cm-${i}`, {}, { parity: i % 2 ? "odd" : "even" }), { namespace: "default" });
    }
    const first = await client.configMaps.list({ namespace: "default", limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.metadata.continue).toBeTruthy();
    const all = await client.configMaps.listAll({ namespace: "default", limit: 3 });
    expect(all.items.map((i) => i.metadata.name)).toEqual(["cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"]);
    const odd = await client.configMaps.list({ namespace: "default", labelSelector: "parity=odd" });
    expect(odd.items.map((i) => i.metadata.name)).toEqual(["cm-1", "cm-3", "cm-5"]);
    const ns = await client.namespaces.list();
    expect(ns.items.map((n) => n.metadata.name)).toContain("default");
  });

  it("watches changes from a resourceVersion until the signal aborts", async () => {
    const { client } = setup();
    const start = await client.configMaps.list({ namespace: "default" });
    const controller = new AbortController();
    const watch = client.configMaps.watch({ namespace: "default", resourceVersion: start.metadata.resourceVersion ?? "", signal: controller.signal });
    const events = watch[Symbol.asyncIterator]();
    const firstEvent = next(events);
    await client.configMaps.create(configMap("w", { a: "1" }), { namespace: "default" });
    const added: WatchEvent = await firstEvent;
    expect(added.type).toBe("ADDED");
    await client.configMaps.patch("w", { data: { a: "2" } }, "merge", { namespace: "default" });
    expect(await next(events)).toMatchObject({ type: "MODIFIED", object: { data: { a: "2" } } });
    await client.configMaps.delete("w", { namespace: "default" });
    expect((await next(events)).type).toBe("DELETED");
    const pending = events.next();
    controller.abort();
    expect((await pending).done).toBe(true);
  });

  it("keeps an informer in sync", async () => {
    const { client } = setup();
    await client.configMaps.create(configMap("before"), { namespace: "default" });
    const informer = new Informer(client.configMaps, { namespace: "default" });
    const added: string[] = [];
    informer.addEventHandler({ onAdd: (o) => added.push(o.metadata.name ?? "") });
    informer.start();
    await informer.waitForSync();
    await client.configMaps.create(configMap("after"), { namespace: "default" });
    for (let i = 0; i < 100 && added.length < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(added).toEqual(["before", "after"]);
    await informer.stop();
  });
});

describe("the in-process transport's user", () => {
  const whoami = (client: Client) =>
    client.call<{ status: { userInfo: unknown } }>({
      method: "POST",
      path: "/apis/authentication.orch.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" },
    });

  it("makes every request as that user, through the server's pipeline", async () => {
    const server = new APIServer();
    const client = new Client({ transport: inProcessTransport(server, { user: { name: "jane", uid: "u-7", groups: ["qa"] } }) });
    expect((await whoami(client)).status.userInfo).toEqual({ username: "jane", uid: "u-7", groups: ["qa"] });
  });

  it("makes requests as system:anonymous without one, as a client with no credential", async () => {
    const client = new Client({ transport: inProcessTransport(new APIServer()) });
    expect((await whoami(client)).status.userInfo).toEqual({ username: "system:anonymous", groups: ["system:unauthenticated"] });
  });

  it("is refused with 401 when the server allows no anonymous requests and no user is given", async () => {
    const client = new Client({ transport: inProcessTransport(new APIServer({ anonymousAuth: false })) });
    await expect(whoami(client)).rejects.toMatchObject({ status: { code: 401, reason: "Unauthorized" } });
  });
});
