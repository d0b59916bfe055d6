import type { APIObject } from "@orch/meta";
import { configMapType, podType, resourceQuotaType, type ResourceType } from "@orch/resources";
import { FakeClock, MemoryStore } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { ObjectStore, type WriteOptions } from "./object-store.js";
import { QuotaController, quotaResyncPeriodMs, quotaSyncDelayMs } from "./quota-controller.js";
import { serveResource, type ServedResource } from "./served-resource.js";

const serve = (type: ResourceType): ServedResource => serveResource(type, type.group, type.versions.find((v) => v.storage) as ResourceType["versions"][number]);
const served = new Map([podType, resourceQuotaType, configMapType].map((t) => [`${t.group}/${t.resource}`, serve(t)]));
const of = (resource: string) => served.get(`/${resource}`) as ServedResource;
const write = (): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [] });

const pod = (name: string, phase?: string): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns" },
  spec: { containers: [{ name: "c", image: "i", resources: { requests: { cpu: "100m" } } }] },
  ...(phase ? { status: { phase } } : {}),
});
const quota = (hard: Record<string, string>): APIObject => ({ apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q", namespace: "ns" }, spec: { hard } });

let controller: QuotaController | undefined;
afterEach(() => controller?.stop());

async function setup() {
  const clock = new FakeClock();
  const store = new MemoryStore({ clock });
  const objects = new ObjectStore(store, clock, "orch.io", () => undefined);
  controller = new QuotaController({ domain: "orch.io", store, clock, objects, served: (group, resource) => served.get(`${group}/${resource}`), log: () => undefined });
  const status = async () => ((await store.get("/registry/core/resourcequotas/ns/q"))?.value as { status?: { hard?: unknown; used?: Record<string, string> } }).status;
  /** Lets the store's promises and the controller's timers run, `periods` debounce periods long. */
  const tick = async (periods = 1) => {
    for (let i = 0; i < periods; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      clock.advance(quotaSyncDelayMs);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { clock, store, objects, controller, status, tick };
}

describe("QuotaController", () => {
  it("sets status.hard and status.used of a quota from the namespace's objects", async () => {
    const { objects, controller, status, tick } = await setup();
    await objects.create(of("pods"), "ns", pod("a"), write());
    await objects.create(of("pods"), "ns", pod("done"), write());
    await objects.update(of("pods"), "ns", "done", pod("done", "Succeeded"), "status", write());
    await objects.create(of("configmaps"), "ns", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" } }, write());
    await controller.start();
    await objects.create(of("resourcequotas"), "ns", quota({ pods: "5", "count/pods": "5", "requests.cpu": "1", configmaps: "3" }), write());
    await tick(2);
    expect(await status()).toEqual({
      hard: { configmaps: "3", "count/pods": "5", pods: "5", "requests.cpu": "1" },
      used: { configmaps: "1", "count/pods": "2", pods: "1", "requests.cpu": "100m" },
    });
  });

  it("gives usage back after a delete, once it holds for a debounce period", async () => {
    const { objects, controller, status, tick } = await setup();
    await objects.create(of("resourcequotas"), "ns", quota({ pods: "5" }), write());
    await objects.create(of("pods"), "ns", pod("a"), write());
    await objects.create(of("pods"), "ns", pod("b"), write());
    await controller.start();
    await tick(2);
    expect((await status())?.used).toEqual({ pods: "2" });
    await objects.delete(of("pods"), "ns", "a", { dryRun: false });
    await tick(1);
    expect((await status())?.used).toEqual({ pods: "2" });
    await tick(2);
    expect((await status())?.used).toEqual({ pods: "1" });
  });

  it("recomputes when a pod becomes terminal and when the spec changes", async () => {
    const { objects, controller, status, tick } = await setup();
    await objects.create(of("resourcequotas"), "ns", quota({ pods: "5" }), write());
    await objects.create(of("pods"), "ns", pod("a"), write());
    await controller.start();
    await tick(2);
    expect((await status())?.used).toEqual({ pods: "1" });
    await objects.update(of("pods"), "ns", "a", pod("a", "Failed"), "status", write());
    await tick(4);
    expect((await status())?.used).toEqual({ pods: "0" });
    await objects.update(of("resourcequotas"), "ns", "q", quota({ pods: "5", "count/pods": "9" }), "", write());
    await tick(2);
    expect(await status()).toEqual({ hard: { "count/pods": "9", pods: "5" }, used: { "count/pods": "1", pods: "0" } });
  });

  it("counts what a spec change adds, and still what it counted after a status-only change", async () => {
    const { objects, controller, status, tick } = await setup();
    await objects.create(of("resourcequotas"), "ns", quota({ pods: "5" }), write());
    await controller.start();
    await tick(2);
    // A status-only change (admission's charge) keeps what the quota counts.
    const charged = { ...quota({ pods: "5" }), status: { hard: { pods: "5" }, used: { pods: "1" } } };
    await objects.update(of("resourcequotas"), "ns", "q", charged, "status", write());
    await objects.create(of("pods"), "ns", pod("a"), write());
    await tick(3);
    expect((await status())?.used).toEqual({ pods: "1" });
    await objects.update(of("resourcequotas"), "ns", "q", quota({ pods: "5", configmaps: "3" }), "", write());
    await tick(2);
    expect((await status())?.used).toEqual({ configmaps: "0", pods: "1" });
    // The configmap's event alone must bring the recount.
    await objects.create(of("configmaps"), "ns", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" } }, write());
    await tick(2);
    expect((await status())?.used).toEqual({ configmaps: "1", pods: "1" });
  });

  it("leaves status-only changes of a quota alone", async () => {
    const { objects, store, controller, tick } = await setup();
    await objects.create(of("resourcequotas"), "ns", quota({ pods: "5" }), write());
    await controller.start();
    await tick(2);
    const revision = await store.revision();
    await tick(3);
    expect(await store.revision()).toBe(revision);
  });

  it("corrects a charge no object stands for at the periodic resync", async () => {
    const { objects, controller, status, tick, clock } = await setup();
    await objects.create(of("resourcequotas"), "ns", quota({ pods: "5" }), write());
    await objects.create(of("pods"), "ns", pod("a"), write());
    await controller.start();
    await tick(2);
    // Admission charged a create that then failed: no store event follows.
    const stored = { ...quota({ pods: "5" }), status: { hard: { pods: "5" }, used: { pods: "3" } } };
    await objects.update(of("resourcequotas"), "ns", "q", stored, "status", write());
    await tick(3);
    expect((await status())?.used).toEqual({ pods: "3" });
    clock.advance(quotaResyncPeriodMs);
    await tick(3);
    expect((await status())?.used).toEqual({ pods: "1" });
  });
});
