import { alreadyExists, conflict, type APIObject } from "@orch/meta";
import { configMapType } from "@orch/resources";
import { FakeClock, MemoryStore, type Store } from "@orch/store";
import { describe, expect, it } from "vitest";
import { ObjectStore, type WriteOptions } from "./object-store.js";
import { objectKey, serveResource } from "./served-resource.js";

const configMaps = serveResource(configMapType, "", configMapType.versions[0] as (typeof configMapType.versions)[number]);
const write = (dryRun = false): WriteOptions => ({ dryRun, fieldValidation: "Ignore", warnings: [] });
const cm = (metadata: APIObject["metadata"], data: Record<string, string> = {}): APIObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { namespace: "default", ...metadata },
  data,
});

/** `store`, counting writes, whose first `failures.create` creates are AlreadyExists and first `failures.update` updates Conflict. */
function flaky(store: Store, failures: Partial<Record<"create" | "update", number>>): Store & { calls: Record<string, number> } {
  const calls: Record<string, number> = { create: 0, update: 0, delete: 0 };
  const left = { create: 0, update: 0, ...failures };
  return {
    calls,
    get: (key, opts) => store.get(key, opts),
    list: (prefix, opts) => store.list(prefix, opts),
    delete: (key, rev) => store.delete(key, rev),
    watch: (prefix, from, signal) => store.watch(prefix, from, signal),
    revision: () => store.revision(),
    compact: (revision) => store.compact(revision),
    async create(key: string, value: object) {
      calls.create = (calls.create ?? 0) + 1;
      if (left.create-- > 0) throw alreadyExists({ group: "", resource: "configmaps" }, key);
      return store.create(key, value);
    },
    async update(key: string, value: object, rev: number) {
      calls.update = (calls.update ?? 0) + 1;
      if (left.update-- > 0) throw conflict({ group: "", resource: "configmaps" }, key);
      return store.update(key, value, rev);
    },
  } satisfies Store & { calls: Record<string, number> };
}

function setup(failures: Partial<Record<"create" | "update", number>> = {}) {
  const clock = new FakeClock();
  const memory = new MemoryStore({ clock });
  const store = flaky(memory, failures);
  const objects = new ObjectStore(store, clock, "orch.io", () => undefined);
  return { memory, store, objects };
}

describe("ObjectStore.guaranteedUpdate: the one write loop", () => {
  it("creates without reading, and retries a taken generated name under a fresh one (8 names in all)", async () => {
    const { store, objects } = setup({ create: 7 });
    const result = await objects.create(configMaps, "default", cm({ generateName: "web-" }), write());
    expect(result.code).toBe(201);
    expect((result.body as APIObject).metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
    expect(store.calls.create).toBe(8);
    const again = setup({ create: 8 });
    await expect(again.objects.create(configMaps, "default", cm({ generateName: "web-" }), write())).rejects.toMatchObject({
      code: 409,
      reason: "AlreadyExists",
    });
  });

  it("does not retry a taken name that was not generated", async () => {
    const { objects, store } = setup({ create: 1 });
    await expect(objects.create(configMaps, "default", cm({ name: "a" }), write())).rejects.toMatchObject({
      code: 409,
      message: 'configmaps "a" already exists',
    });
    expect(store.calls.create).toBe(1);
  });

  it("answers a dry-run create without writing, and 409 when the name is taken", async () => {
    const { objects, memory } = setup();
    const dry = await objects.create(configMaps, "default", cm({ name: "a" }), write(true));
    expect(dry).toMatchObject({ code: 201, body: { metadata: { name: "a", uid: expect.any(String) } } });
    expect(await memory.get(objectKey(configMaps, "default", "a"))).toBeUndefined();
    await objects.create(configMaps, "default", cm({ name: "a" }), write());
    await expect(objects.create(configMaps, "default", cm({ name: "a" }), write(true))).rejects.toMatchObject({ code: 409, reason: "AlreadyExists" });
  });

  it("runs tryUpdate again on the newer object after a conflict, then gives up with 409", async () => {
    const { objects } = setup({ update: 3 });
    await objects.create(configMaps, "default", cm({ name: "a" }), write());
    let tries = 0;
    const result = await objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false }, async (current) => {
      tries++;
      return { kind: "update", object: await objects.beforeUpdate(configMaps, { ...structuredClone(current), data: { k: "v" } }, current, write()) };
    });
    expect(tries).toBe(4);
    expect(result).toMatchObject({ code: 200, body: { data: { k: "v" } } });
    const stuck = setup({ update: 100 });
    await stuck.objects.create(configMaps, "default", cm({ name: "a" }), write());
    await expect(
      stuck.objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false }, (current) => ({
        kind: "update",
        object: { ...structuredClone(current), data: { k: "v" } },
      })),
    ).rejects.toMatchObject({
      code: 409,
      message: 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    });
    expect(stuck.store.calls.update).toBe(17);
  });

  it("answers a no-op, or an unchanged object, without writing", async () => {
    const { objects, store } = setup();
    const created = await objects.create(configMaps, "default", cm({ name: "a" }, { k: "v" }), write());
    const noop = await objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false }, () => ({
      kind: "noop",
      answer: { code: 202, body: created.body },
    }));
    expect(noop.code).toBe(202);
    const same = await objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false }, (current) => ({
      kind: "update",
      object: structuredClone(current),
    }));
    expect(same).toEqual({ code: 200, body: created.body });
    expect(store.calls.update).toBe(0);
  });

  it("is 404 for a missing object in update mode, and hands undefined to tryUpdate in upsert mode", async () => {
    const { objects } = setup();
    await expect(
      objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false }, () => ({ kind: "noop", answer: { code: 200, body: cm({}) } })),
    ).rejects.toMatchObject({
      code: 404,
      message: 'configmaps "a" not found',
    });
    const created = await objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false, mode: "upsert" }, async (current) => {
      expect(current).toBeUndefined();
      return { kind: "create", object: await objects.prepareCreate(configMaps, "default", cm({ name: "a" }), write()) };
    });
    expect(created.code).toBe(201);
  });

  it("updates, under upsert, an object created between the read and the create", async () => {
    const { objects, memory } = setup();
    const seen: (string | undefined)[] = [];
    const result = await objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false, mode: "upsert" }, async (current) => {
      seen.push(current?.metadata.name);
      if (!current) {
        // Another writer wins the race.
        if (!(await memory.get(objectKey(configMaps, "default", "a")))) await objects.create(configMaps, "default", cm({ name: "a" }), write());
        return { kind: "create", object: await objects.prepareCreate(configMaps, "default", cm({ name: "a" }), write()) };
      }
      return { kind: "update", object: await objects.beforeUpdate(configMaps, { ...structuredClone(current), data: { mine: "yes" } }, current, write()) };
    });
    expect(seen).toEqual([undefined, "a"]);
    expect(result).toMatchObject({ code: 200, body: { data: { mine: "yes" } } });
  });

  it("creates on a PUT of a missing object of a kind that allows it (not through a sub-resource)", async () => {
    const { objects, memory } = setup();
    const type = { ...configMapType, strategy: { ...configMapType.strategy, allowCreateOnUpdate: true } };
    const upserting = serveResource(type, "", configMaps.version);
    const dry = await objects.update(upserting, "default", "a", cm({ name: "a", resourceVersion: "7" }), "", write(true));
    expect(dry).toMatchObject({ code: 201, body: { metadata: { name: "a", uid: expect.any(String) } } });
    expect(await memory.get(objectKey(configMaps, "default", "a"))).toBeUndefined();
    const created = await objects.update(upserting, "default", "a", cm({ name: "a", resourceVersion: "7" }, { k: "v" }), "", write());
    expect(created).toMatchObject({ code: 201, body: { data: { k: "v" } } });
    const replaced = await objects.update(upserting, "default", "a", cm({ name: "a" }, { k: "w" }), "", write());
    expect(replaced).toMatchObject({ code: 200, body: { data: { k: "w" } } });
    await expect(objects.update(upserting, "default", "b", cm({ name: "b" }), "status", write())).rejects.toMatchObject({ code: 404 });
    await expect(objects.update(configMaps, "default", "b", cm({ name: "b" }), "", write())).rejects.toMatchObject({ code: 404 });
  });

  it("checks preconditions on every attempt, with the reference's messages", async () => {
    const { objects } = setup();
    const created = (await objects.create(configMaps, "default", cm({ name: "a" }), write())).body as APIObject;
    const flags = (preconditions: { uid?: string; resourceVersion?: string }) => ({ dryRun: false, preconditions });
    const never = () => ({ kind: "noop" as const, answer: { code: 200, body: created } });
    await expect(objects.guaranteedUpdate(configMaps, "default", "a", flags({ uid: "x" }), never)).rejects.toMatchObject({
      code: 409,
      message: `Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: x, UID in object meta: ${created.metadata.uid}`,
    });
    await expect(objects.guaranteedUpdate(configMaps, "default", "a", flags({ resourceVersion: "999" }), never)).rejects.toMatchObject({
      code: 409,
      message: `Operation cannot be fulfilled on configmaps "a": Precondition failed: ResourceVersion in precondition: 999, ResourceVersion in object meta: ${created.metadata.resourceVersion}`,
    });
    expect((await objects.guaranteedUpdate(configMaps, "default", "a", flags({ uid: created.metadata.uid ?? "" }), never)).code).toBe(200);
  });

  it("deletes nothing under dry-run, and removes an object once its last finalizer goes", async () => {
    const { objects, memory } = setup();
    await objects.create(configMaps, "default", cm({ name: "a", finalizers: ["example.com/x"] }), write());
    expect((await objects.delete(configMaps, "default", "a", { dryRun: true })).body).toMatchObject({ metadata: { deletionTimestamp: expect.any(String) } });
    expect((await memory.get(objectKey(configMaps, "default", "a")))?.value).not.toHaveProperty("metadata.deletionTimestamp");
    const marked = await objects.delete(configMaps, "default", "a", { dryRun: false });
    expect(marked).toMatchObject({ code: 200, body: { metadata: { deletionTimestamp: expect.any(String), finalizers: ["example.com/x"] } } });
    await objects.guaranteedUpdate(configMaps, "default", "a", { dryRun: false }, async (current) => {
      const next = structuredClone(current);
      next.metadata.finalizers = [];
      return { kind: "update", object: await objects.beforeUpdate(configMaps, next, current, write()) };
    });
    expect(await memory.get(objectKey(configMaps, "default", "a"))).toBeUndefined();
  });
});
