import { Client, configMapsRef, inProcessTransport } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import type { Controller, ControllerContext, ControllerDescriptor } from "./controller.js";
import { ControllerManager, selectControllers } from "./controller-manager.js";
import { eventually } from "./internal/testing.js";

const descriptor = (name: string, enabledByDefault: boolean, events: string[] = []): ControllerDescriptor => ({
  name,
  enabledByDefault,
  create: (): Controller => ({
    name,
    run: async (ctx: ControllerContext) => {
      ctx.informers.informerFor(configMapsRef);
      await ctx.informers.waitForSync();
      events.push(`run ${name}`);
    },
    stop: async () => void events.push(`stop ${name}`),
  }),
});

describe("selectControllers", () => {
  const all = [descriptor("garbagecollector", true), descriptor("namespace", true), descriptor("tokencleaner", false)];
  it("reads the reference's syntax: * for the default-on set, name adds, -name removes", () => {
    expect(selectControllers("*", all)).toEqual(["garbagecollector", "namespace"]);
    expect(selectControllers("*,tokencleaner,-namespace", all)).toEqual(["garbagecollector", "tokencleaner"]);
    expect(selectControllers(["namespace"], all)).toEqual(["namespace"]);
    expect(selectControllers("-garbagecollector,garbagecollector", all)).toEqual([]);
    expect(selectControllers("", all)).toEqual([]);
  });
  it("rejects an unknown name", () => {
    expect(() => selectControllers("*,nope", all)).toThrow(/"nope" is not in the list of known controllers/);
    expect(() => selectControllers("-nope", all)).toThrow(TypeError);
  });
});

describe("ControllerManager", () => {
  it("runs the selection only while it leads, sharing one informer per resource", async () => {
    const server = new APIServer();
    const clock = new FakeClock();
    const client = new Client({ transport: inProcessTransport(server) });
    await client.configMaps.create({ metadata: { name: "x" } } as APIObject, { namespace: "default" });
    const eventsA: string[] = [];
    const eventsB: string[] = [];
    const make = (identity: string, events: string[]) =>
      new ControllerManager({
        client,
        clock,
        controllers: [descriptor("one", true, events), descriptor("two", true, events), descriptor("off", false, events)],
        selection: "*",
        leaderElection: { namespace: "default", name: "manager", identity },
      });
    const a = make("a", eventsA);
    const b = make("b", eventsB);
    expect(a.enabled).toEqual(["one", "two"]);
    a.start();
    expect(await eventually(() => eventsA.length === 2)).toBe(true);
    expect([...eventsA].sort()).toEqual(["run one", "run two"]);
    expect(a.running).toEqual(["one", "two"]);
    b.start();
    await new Promise((r) => setTimeout(r, 20));
    expect(b.isLeader()).toBe(false);
    expect(b.running).toEqual([]);
    await a.stop();
    expect(eventsA.slice(2).sort()).toEqual(["stop one", "stop two"]);
    clock.advance(2000);
    expect(await eventually(() => eventsB.length === 2)).toBe(true);
    expect(b.isLeader()).toBe(true);
    await b.stop();
  });

  it("without leader election runs the controllers from start to stop", async () => {
    const client = new Client({ transport: inProcessTransport(new APIServer()) });
    const events: string[] = [];
    const m = new ControllerManager({ client, controllers: [descriptor("one", true, events)] });
    m.start();
    expect(await eventually(() => events.length === 1)).toBe(true);
    expect(m.isLeader()).toBe(true);
    await m.stop();
    expect(events).toEqual(["run one", "stop one"]);
  });

  it("throws on an unknown controller in the selection", () => {
    const client = new Client({ transport: inProcessTransport(new APIServer()) });
    expect(() => new ControllerManager({ client, controllers: [], selection: "gc" })).toThrow(TypeError);
  });
});
