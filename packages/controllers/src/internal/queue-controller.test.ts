import { Client, inProcessTransport } from "@orch/client";
import { badRequest, conflict } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import type { ControllerContext } from "../controller.js";
import { QueueController, RetryQuietly } from "./queue-controller.js";
import { eventually, runController, type RunningController } from "./testing.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

/** Fails each key with the errors given, then succeeds; records the attempts. */
class Scripted extends QueueController {
  readonly name = "scripted";
  protected override readonly baseDelayMs = 1;
  readonly attempts: string[] = [];
  constructor(private readonly failures: Map<string, Error[]>) {
    super();
  }
  protected watch(_ctx: ControllerContext): (() => void)[] {
    for (const key of this.failures.keys()) this.queue.add(key);
    return [];
  }
  protected sync(key: string): Promise<void> {
    this.attempts.push(key);
    const error = this.failures.get(key)?.shift();
    return error ? Promise.reject(error) : Promise.resolve();
  }
}

describe("QueueController", () => {
  it("retries every failed key; logs real failures but not conflicts or RetryQuietly", async () => {
    const qr = { group: "", resource: "configmaps" };
    const controller = new Scripted(
      new Map<string, Error[]>([
        ["conflicted", [conflict(qr, "conflicted"), conflict(qr, "conflicted")]],
        ["quiet", [new RetryQuietly("not yet")]],
        ["broken", [badRequest("bad")]],
      ]),
    );
    const run = await runController(controller, new Client({ transport: inProcessTransport(new APIServer()) }));
    running.push(run);
    expect(await eventually(() => controller.attempts.filter((k) => k === "conflicted").length === 3 && controller.attempts.includes("broken"))).toBe(true);
    expect(
      await eventually(() => controller.attempts.filter((k) => k === "broken").length === 2 && controller.attempts.filter((k) => k === "quiet").length === 2),
    ).toBe(true);
    expect(run.logs).toEqual(["scripted: broken: bad"]);
  });
});
