import { FakeClock, MemoryStore, type Store } from "@orch/store";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ControlLoop } from "./control-loop.js";

const loops: ControlLoop[] = [];
afterEach(() => {
  for (const loop of loops.splice(0)) loop.stop();
});

/** A store whose first `failures` watches end with an error. */
function brokenWatches(memory: MemoryStore, failures: number): Store {
  let left = failures;
  return new Proxy(memory, {
    get(target, property) {
      if (property === "watch") {
        return (prefix: string, from: number, signal: AbortSignal) =>
          left-- > 0
            ? (async function* () {
                yield* [];
                throw new Error("watch broke");
              })()
            : target.watch(prefix, from, signal);
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * A loop that keeps `seen` (the keys under `/a/`) by listing and following; the first
 * `watchFailures` watches fail, and so do the next `n` loads after `failLoads(n)`.
 */
function setup(options: { watchFailures?: number } = {}) {
  const clock = new FakeClock();
  const memory = new MemoryStore({ clock });
  const store = brokenWatches(memory, options.watchFailures ?? 0);
  const seen = new Set<string>();
  const ended: string[] = [];
  const failed: string[] = [];
  let loads = 0;
  let loadFailures = 0;
  const loop: ControlLoop = new ControlLoop(
    { store, clock },
    {
      reload: () => load(),
      reloadFailed: (error) => failed.push(error instanceof Error ? error.message : String(error)),
    },
  );
  loops.push(loop);
  async function load(): Promise<void> {
    const signal = loop.begin();
    loads++;
    if (loadFailures-- > 0) throw new Error("store away");
    const { entries, revision } = await store.list("/a/");
    seen.clear();
    for (const entry of entries) seen.add(entry.key);
    loop.follow(
      "/a/",
      revision,
      signal,
      (event) => seen.add(event.entry.key),
      (error) => ended.push(String(error)),
    );
  }
  const failLoads = (n: number) => {
    loadFailures = n;
  };
  return { clock, memory, seen, ended, failed, loop, load, loads: () => loads, failLoads };
}

describe("ControlLoop", () => {
  it("follows the store from the listed revision", async () => {
    const { memory, seen, load } = setup();
    await memory.create("/a/1", {});
    await load();
    await memory.create("/a/2", {});
    await vi.waitFor(() => expect([...seen]).toEqual(["/a/1", "/a/2"]));
  });

  it("reloads a second after a watch fails, and tells why", async () => {
    const { clock, memory, seen, ended, load, loads } = setup({ watchFailures: 1 });
    await load();
    await vi.waitFor(() => expect(ended).toEqual(["Error: watch broke"]));
    await memory.create("/a/missed", {});
    clock.advance(999);
    expect(loads()).toBe(1);
    clock.advance(1);
    await vi.waitFor(() => expect(seen.has("/a/missed")).toBe(true));
    expect(loads()).toBe(2);
    await memory.create("/a/after", {});
    await vi.waitFor(() => expect(seen.has("/a/after")).toBe(true));
  });

  it("tries a failed reload again a second later, telling each failure", async () => {
    const { clock, memory, seen, ended, failed, load, loads, failLoads } = setup({ watchFailures: 1 });
    await load();
    await vi.waitFor(() => expect(ended).toHaveLength(1));
    failLoads(2);
    await memory.create("/a/late", {});
    clock.advance(1000);
    await vi.waitFor(() => expect(failed).toEqual(["store away"]));
    clock.advance(1000);
    await vi.waitFor(() => expect(failed).toEqual(["store away", "store away"]));
    expect(seen.has("/a/late")).toBe(false);
    clock.advance(1000);
    await vi.waitFor(() => expect(seen.has("/a/late")).toBe(true));
    expect(loads()).toBe(4);
  });

  it("reloads nothing once stopped, or once reloaded meanwhile", async () => {
    const stopped = setup({ watchFailures: 1 });
    await stopped.load();
    await vi.waitFor(() => expect(stopped.ended).toHaveLength(1));
    stopped.loop.stop();
    stopped.clock.advance(5000);
    expect(stopped.loads()).toBe(1);
    expect(stopped.loop.running).toBe(false);

    const reloaded = setup({ watchFailures: 1 });
    await reloaded.load();
    await vi.waitFor(() => expect(reloaded.ended).toHaveLength(1));
    await reloaded.load();
    reloaded.clock.advance(5000);
    expect(reloaded.loads()).toBe(2);
  });

  it("runs later work on the clock until stopped, and begins only aborted generations after", () => {
    const { clock, loop } = setup();
    const ran: string[] = [];
    loop.later(10, () => ran.push("before start"));
    const signal = loop.begin();
    loop.later(10, () => ran.push("first"));
    loop.later(20, () => ran.push("cancelled"));
    clock.advance(10);
    loop.stop();
    clock.advance(10);
    expect(ran).toEqual(["first"]);
    expect(signal.aborted).toBe(true);
    expect(loop.begin().aborted).toBe(true);
    loop.later(1, () => ran.push("after stop"));
    clock.advance(1);
    expect(ran).toEqual(["first"]);
  });
});
