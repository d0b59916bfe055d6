import { Client, inProcessTransport, type Transport } from "@orch/client";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { describe, expect, it } from "vitest";
import { eventually } from "./internal/testing.js";
import { LeaderElector } from "./leader-election.js";

/** A transport that can be cut, as a network partition would. */
function cuttable(server: APIServer): { transport: Transport; cut: { on: boolean } } {
  const inner = inProcessTransport(server);
  const cut = { on: false };
  return {
    cut,
    transport: {
      request: (req) => (cut.on ? Promise.reject(new Error("network is down")) : inner.request(req)),
    },
  };
}

function elector(server: APIServer, clock: FakeClock, identity: string) {
  const { transport, cut } = cuttable(server);
  const log: string[] = [];
  const e = new LeaderElector({
    client: new Client({ transport }),
    clock,
    namespace: "default",
    name: "controllers",
    identity,
    onStartedLeading: () => void log.push("start"),
    onStoppedLeading: () => void log.push("stop"),
  });
  return { e, cut, log };
}

/** Lets the in-process requests of the electors settle. */
const settle = () => new Promise((r) => setTimeout(r, 10));

/** Two candidates on one server and clock: `a` started first and leads, `b` started after and waits. */
async function aLeadsBWaits() {
  const server = new APIServer();
  const clock = new FakeClock();
  const a = elector(server, clock, "a");
  const b = elector(server, clock, "b");
  a.e.start();
  expect(await eventually(() => a.e.isLeader())).toBe(true);
  b.e.start();
  await settle();
  return { server, clock, a, b };
}

describe("LeaderElector", () => {
  it("one of two candidates leads; the other takes over only after the lease expires; never both", async () => {
    const { server, clock, a, b } = await aLeadsBWaits();
    expect(b.e.isLeader()).toBe(false);
    const lease = await new Client({ transport: inProcessTransport(server) }).leases.get("controllers", { namespace: "default" });
    expect(lease.spec).toMatchObject({ holderIdentity: "a", leaseDurationSeconds: 15 });

    // a keeps renewing every 2 s: b never gets in.
    for (let t = 0; t < 30_000; t += 500) {
      clock.advance(500);
      await settle();
      expect(a.e.isLeader() && b.e.isLeader()).toBe(false);
    }
    expect(a.e.isLeader()).toBe(true);
    expect(b.e.isLeader()).toBe(false);

    // a is cut off: it steps down after the 10 s renew deadline, b takes over after 15 s, never overlapping.
    a.cut.on = true;
    let bLeadsAt: number | undefined;
    let aStoppedAt: number | undefined;
    for (let t = 500; t <= 25_000; t += 500) {
      clock.advance(500);
      await settle();
      expect(a.e.isLeader() && b.e.isLeader()).toBe(false);
      if (aStoppedAt === undefined && !a.e.isLeader()) aStoppedAt = t;
      if (bLeadsAt === undefined && b.e.isLeader()) bLeadsAt = t;
    }
    expect(aStoppedAt).toBeLessThanOrEqual(10_000);
    expect(bLeadsAt).toBeGreaterThanOrEqual(15_000);
    expect(a.log).toEqual(["start", "stop"]);
    expect(b.log).toEqual(["start"]);
    await a.e.stop();
    await b.e.stop();
  });

  it("releases the lease on stop, so the other candidate takes over at its next try", async () => {
    const { clock, a, b } = await aLeadsBWaits();
    await a.e.stop();
    expect(a.e.isLeader()).toBe(false);
    expect(a.log).toEqual(["start", "stop"]);
    clock.advance(2000);
    expect(await eventually(() => b.e.isLeader())).toBe(true);
    await b.e.stop();
  });
});
