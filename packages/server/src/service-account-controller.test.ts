import { forbidden, type APIObject } from "@orch/meta";
import { namespaceType, serviceAccountType } from "@orch/resources";
import { FakeClock, MemoryStore, type Store } from "@orch/store";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ObjectStore, type WriteOptions } from "./object-store.js";
import { objectKey, serveResource, type ServedResource } from "./served-resource.js";
import { ServiceAccountController } from "./service-account-controller.js";

const namespaces = serveResource(namespaceType, "", namespaceType.versions[0] as (typeof namespaceType.versions)[number]);
const accounts = serveResource(serviceAccountType, "", serviceAccountType.versions[0] as (typeof serviceAccountType.versions)[number]);
const write = (): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [] });

const controllers: ServiceAccountController[] = [];
afterEach(() => {
  for (const c of controllers.splice(0)) c.stop();
});

/** A store whose first `failures` watches end with an error. */
function failingWatches(store: Store, failures: number): Store {
  let left = failures;
  return {
    get: (key, opts) => store.get(key, opts),
    list: (prefix, opts) => store.list(prefix, opts),
    create: (key, value) => store.create(key, value),
    update: (key, value, rev) => store.update(key, value, rev),
    delete: (key, rev) => store.delete(key, rev),
    revision: () => store.revision(),
    compact: (revision) => store.compact(revision),
    watch(prefix, from, signal) {
      if (left-- > 0) {
        return (async function* () {
          yield* [];
          throw new Error("watch broke");
        })();
      }
      return store.watch(prefix, from, signal);
    },
  };
}

function setup(options: { watchFailures?: number } = {}) {
  const clock = new FakeClock();
  const memory = new MemoryStore({ clock });
  const store = failingWatches(memory, options.watchFailures ?? 0);
  const objects = new ObjectStore(store, clock, "orch.io", () => undefined);
  const logged: string[] = [];
  const served = (group: string, resource: string): ServedResource | undefined =>
    group === "" ? ({ namespaces, serviceaccounts: accounts } as Record<string, ServedResource>)[resource] : undefined;
  const controller = new ServiceAccountController({ domain: "orch.io", store, clock, objects, served, log: (m) => logged.push(m) });
  controllers.push(controller);
  const namespace = async (name: string) => {
    await objects.create(namespaces, "", { apiVersion: "v1", kind: "Namespace", metadata: { name } }, write());
  };
  const account = async (ns: string) => {
    const entry = await memory.get(objectKey(accounts, ns, "default"));
    return entry?.value as APIObject | undefined;
  };
  const terminate = async (name: string) => {
    await objects.delete(namespaces, "", name, { dryRun: false });
  };
  return { clock, memory, objects, controller, logged, namespace, account, terminate };
}

describe("ServiceAccountController", () => {
  it("creates default in every namespace at start, except terminating ones, before start resolves", async () => {
    const { controller, namespace, account, terminate } = setup();
    await namespace("default");
    await namespace("team");
    await namespace("gone");
    await terminate("gone");
    await controller.start();
    expect(await account("default")).toMatchObject({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "default", uid: expect.any(String) } });
    expect(await account("team")).toBeDefined();
    expect(await account("gone")).toBeUndefined();
  });

  it("leaves an existing default account as it is", async () => {
    const { controller, namespace, memory, objects } = setup();
    await namespace("team");
    await objects.create(accounts, "team", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "team", labels: { mine: "yes" } } }, write());
    const before = await memory.get(objectKey(accounts, "team", "default"));
    await controller.start();
    const after = await memory.get(objectKey(accounts, "team", "default"));
    expect(after?.modRevision).toBe(before?.modRevision);
  });

  it("creates default in each new namespace", async () => {
    const { controller, namespace, account } = setup();
    await controller.start();
    await namespace("fresh");
    await vi.waitFor(async () => expect(await account("fresh")).toBeDefined());
  });

  it("creates default again when it is deleted, but not in a terminating namespace", async () => {
    const { controller, namespace, account, objects, terminate } = setup();
    await namespace("team");
    await namespace("closing");
    await controller.start();
    const first = await account("team");
    await objects.delete(accounts, "team", "default", { dryRun: false });
    await vi.waitFor(async () => expect((await account("team"))?.metadata.uid).not.toBe(first?.metadata.uid));
    expect(await account("team")).toBeDefined();
    await terminate("closing");
    await objects.delete(accounts, "closing", "default", { dryRun: false });
    // A later namespace is served, so the deletion above was seen and left alone.
    await namespace("later");
    await vi.waitFor(async () => expect(await account("later")).toBeDefined());
    expect(await account("closing")).toBeUndefined();
  });

  it("does not create an account other than default again", async () => {
    const { controller, namespace, account, objects, memory } = setup();
    await namespace("team");
    await controller.start();
    await objects.create(accounts, "team", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "builder", namespace: "team" } }, write());
    await objects.delete(accounts, "team", "builder", { dryRun: false });
    await namespace("later");
    await vi.waitFor(async () => expect(await account("later")).toBeDefined());
    expect(await memory.get(objectKey(accounts, "team", "builder"))).toBeUndefined();
  });

  it("lists again and resumes a second after a watch fails", async () => {
    const { controller, namespace, account, clock, logged } = setup({ watchFailures: 2 });
    await controller.start();
    await vi.waitFor(() => expect(logged.some((m) => m.includes("watch ended (watch broke); relisting"))).toBe(true));
    await namespace("missed");
    expect(await account("missed")).toBeUndefined();
    clock.advance(1000);
    await vi.waitFor(async () => expect(await account("missed")).toBeDefined());
    await namespace("after");
    await vi.waitFor(async () => expect(await account("after")).toBeDefined());
  });

  it("tries a failed create again later, ignores a refusal for a terminating namespace", async () => {
    const failing = setup();
    await failing.namespace("team");
    let refusals = 1;
    const create = failing.objects.create.bind(failing.objects);
    failing.objects.create = async (served, ns, object, opts) => {
      if (served === accounts && refusals-- > 0) throw forbidden({ group: "", resource: "serviceaccounts" }, "default", "the webhook is away");
      return create(served, ns, object, opts);
    };
    await failing.controller.start();
    expect(await failing.account("team")).toBeUndefined();
    expect(failing.logged.join("\n")).toContain("creating team/default failed (serviceaccounts \"default\" is forbidden: the webhook is away); trying again in 1000 ms");
    failing.clock.advance(1000);
    await vi.waitFor(async () => expect(await failing.account("team")).toBeDefined());

    const terminating = setup();
    await terminating.namespace("closing");
    terminating.objects.create = async () => {
      const error = forbidden({ group: "", resource: "serviceaccounts" }, "default", "unable to create new content in namespace closing because it is being terminated");
      error.status.details = { ...error.status.details, causes: [{ reason: "NamespaceTerminating", message: "namespace closing is being terminated", field: "metadata.namespace" }] };
      throw error;
    };
    await terminating.controller.start();
    expect(terminating.logged).toEqual([]);
  });

  it("does nothing more once stopped", async () => {
    const { controller, namespace, account } = setup();
    await controller.start();
    controller.stop();
    await namespace("late");
    await new Promise((r) => setTimeout(r, 20));
    expect(await account("late")).toBeUndefined();
  });
});
