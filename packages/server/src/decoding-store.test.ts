import type { APIObject } from "@orch/meta";
import { MemoryStore } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { APIServer, type APIServerOptions } from "./api-server.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field
type Loose = any;

const servers: APIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

const group = "admissionregistration.orch.io";
const key = `/registry/${group}/validatingwebhookconfigurations/legacy`;
const annotation = `${group}/v1-match-conditions`;
const conditions = [{ name: "always", expression: "true" }];

/** A ValidatingWebhookConfiguration as a server whose storage version was `v1beta1` wrote it. */
function storedV1beta1(): APIObject {
  return {
    apiVersion: `${group}/v1beta1`,
    kind: "ValidatingWebhookConfiguration",
    metadata: {
      name: "legacy",
      uid: "7d0f4f6e-0000-4000-8000-000000000001",
      creationTimestamp: "2026-11-01T00:00:00Z",
      generation: 1,
      annotations: { [annotation]: JSON.stringify({ "check.example.com": conditions }) },
    },
    webhooks: [
      {
        name: "check.example.com",
        clientConfig: { url: "https://hook.example.com/check" },
        rules: [{ operations: ["CREATE"], apiGroups: ["example.com"], apiVersions: ["v1"], resources: ["widgets"], scope: "*" }],
        failurePolicy: "Ignore",
        matchPolicy: "Exact",
        namespaceSelector: {},
        objectSelector: {},
        sideEffects: "None",
        timeoutSeconds: 5,
        admissionReviewVersions: ["v1"],
      },
    ],
  };
}

async function serverWithLegacyObject(options: APIServerOptions = {}): Promise<{ server: APIServer; memory: MemoryStore }> {
  const memory = new MemoryStore();
  await memory.create(key, storedV1beta1());
  const server = new APIServer({ store: memory, ...options });
  servers.push(server);
  return { server, memory };
}

async function call(
  server: APIServer,
  method: string,
  url: string,
  body?: unknown,
  contentType = "application/json",
): Promise<{ status: number; json: Loose }> {
  const res = await server.handle({
    method,
    url,
    headers: new Headers(body === undefined ? {} : { "Content-Type": contentType }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** The first event of a watch of the collection at `version`, then the watch is closed. */
async function firstWatchEvent(server: APIServer, version: string): Promise<{ type: string; object: Loose }> {
  const abort = new AbortController();
  const res = await server.handle({
    method: "GET",
    url: `/apis/${group}/${version}/validatingwebhookconfigurations?watch=1&resourceVersion=0`,
    headers: new Headers(),
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  const stream = res.stream as AsyncGenerator<string>;
  try {
    const first = await stream.next();
    return JSON.parse(String(first.value));
  } finally {
    abort.abort();
    await stream.return(undefined);
  }
}

describe("objects stored in an older version of their kind", () => {
  it("reads convert them through the old version to the storage version, then to the requested one", async () => {
    const { server } = await serverWithLegacyObject();
    const v1 = await call(server, "GET", `/apis/${group}/v1/validatingwebhookconfigurations/legacy`);
    expect(v1.status).toBe(200);
    expect(v1.json.apiVersion).toBe(`${group}/v1`);
    expect(v1.json.webhooks[0].matchConditions).toEqual(conditions);
    expect(v1.json.metadata.annotations?.[annotation]).toBeUndefined();
    const beta = await call(server, "GET", `/apis/${group}/v1beta1/validatingwebhookconfigurations/legacy`);
    expect(beta.json.apiVersion).toBe(`${group}/v1beta1`);
    expect(beta.json.webhooks[0].matchConditions).toBeUndefined();
    expect(JSON.parse(beta.json.metadata.annotations[annotation])).toEqual({ "check.example.com": conditions });
    const list = await call(server, "GET", `/apis/${group}/v1/validatingwebhookconfigurations`);
    expect(list.json.items.map((o: APIObject) => o.apiVersion)).toEqual([`${group}/v1`]);
    expect(list.json.items[0].webhooks[0].matchConditions).toEqual(conditions);
    const added = await firstWatchEvent(server, "v1");
    expect(added.type).toBe("ADDED");
    expect(added.object.apiVersion).toBe(`${group}/v1`);
    expect(added.object.webhooks[0].matchConditions).toEqual(conditions);
    const addedBeta = await firstWatchEvent(server, "v1beta1");
    expect(addedBeta.object.apiVersion).toBe(`${group}/v1beta1`);
    expect(addedBeta.object.webhooks[0].matchConditions).toBeUndefined();
  });

  it("an unchanged update through the old version stores the object in the storage version", async () => {
    const { server, memory } = await serverWithLegacyObject();
    const beta = await call(server, "GET", `/apis/${group}/v1beta1/validatingwebhookconfigurations/legacy`);
    const put = await call(server, "PUT", `/apis/${group}/v1beta1/validatingwebhookconfigurations/legacy`, beta.json);
    expect(put.status).toBe(200);
    expect(put.json.apiVersion).toBe(`${group}/v1beta1`);
    const stored = (await memory.get(key))?.value as APIObject;
    expect(stored.apiVersion).toBe(`${group}/v1`);
    expect((stored["webhooks"] as { matchConditions?: unknown }[])[0]?.matchConditions).toEqual(conditions);
    expect(stored.metadata.annotations?.[annotation]).toBeUndefined();
  });

  it("converts through a version that is no longer served, and a patch stores the storage version", async () => {
    const { server, memory } = await serverWithLegacyObject({ runtimeConfig: { [`${group}/v1beta1`]: false } });
    expect((await call(server, "GET", `/apis/${group}/v1beta1/validatingwebhookconfigurations/legacy`)).status).toBe(404);
    const v1 = await call(server, "GET", `/apis/${group}/v1/validatingwebhookconfigurations/legacy`);
    expect(v1.json.webhooks[0].matchConditions).toEqual(conditions);
    const patched = await call(
      server,
      "PATCH",
      `/apis/${group}/v1/validatingwebhookconfigurations/legacy`,
      { metadata: { labels: { migrated: "yes" } } },
      "application/merge-patch+json",
    );
    expect(patched.status).toBe(200);
    const stored = (await memory.get(key))?.value as APIObject;
    expect(stored.apiVersion).toBe(`${group}/v1`);
    expect(stored.metadata.labels).toEqual({ migrated: "yes" });
    expect((stored["webhooks"] as { matchConditions?: unknown }[])[0]?.matchConditions).toEqual(conditions);
  });

  it("objects already in the storage version are read as stored", async () => {
    const memory = new MemoryStore();
    const server = new APIServer({ store: memory });
    servers.push(server);
    const created = await call(server, "POST", `/apis/${group}/v1/validatingwebhookconfigurations`, {
      ...storedV1beta1(),
      apiVersion: `${group}/v1`,
      metadata: { name: "current" },
    });
    expect(created.status).toBe(201);
    const entry = await memory.get(`/registry/${group}/validatingwebhookconfigurations/current`);
    const read = await server.store.get(`/registry/${group}/validatingwebhookconfigurations/current`);
    expect(read).toBe(entry);
  });
});
