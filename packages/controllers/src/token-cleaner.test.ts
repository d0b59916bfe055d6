import { bootstrapTokenSecret } from "@orch/certificates";
import { Client, inProcessTransport } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, runController, settle, type RunningController } from "./internal/testing.js";
import { TokenCleanerController, tokenCleanerController } from "./token-cleaner.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

const hour = 3600 * 1000;

async function setup() {
  const clock = new FakeClock(Date.now());
  const client = new Client({ transport: inProcessTransport(new APIServer()) });
  const controller = await runController(new TokenCleanerController(), client, { clock });
  running.push(controller);
  const exists = async (name: string, namespace = "orch-system") => {
    try {
      await client.secrets.get(name, { namespace });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  };
  const create = (secret: APIObject) => client.secrets.create(secret as Parameters<typeof client.secrets.create>[0]);
  return { clock, client, create, exists, logs: controller.logs };
}

describe("TokenCleanerController", () => {
  it("is off by default", () => {
    expect(tokenCleanerController.enabledByDefault).toBe(false);
  });

  it("deletes an expired token Secret at once and an unexpired one at its expiration; keeps one without expiration", async () => {
    const { clock, create, exists, logs } = await setup();
    await create(bootstrapTokenSecret("aaaaaa.0123456789abcdef", { expires: clock.now() - 1000 }));
    await create(bootstrapTokenSecret("bbbbbb.0123456789abcdef", { expires: clock.now() + hour }));
    await create(bootstrapTokenSecret("cccccc.0123456789abcdef"));
    expect(await eventually(async () => !(await exists("bootstrap-token-aaaaaa")))).toBe(true);
    expect(logs).toContain("tokencleaner: deleting expired bootstrap token Secret orch-system/bootstrap-token-aaaaaa");
    clock.advance(hour - 1000);
    await settle();
    expect(await exists("bootstrap-token-bbbbbb")).toBe(true);
    clock.advance(1000);
    expect(await eventually(async () => !(await exists("bootstrap-token-bbbbbb")))).toBe(true);
    expect(await exists("bootstrap-token-cccccc")).toBe(true);
  });

  it("leaves Secrets of another type or namespace alone", async () => {
    const { clock, create, exists } = await setup();
    const expired = bootstrapTokenSecret("dddddd.0123456789abcdef", { expires: clock.now() - 1000 });
    await create({ ...expired, type: "Opaque" });
    await create({ ...expired, metadata: { ...expired.metadata, namespace: "default" } });
    await create(bootstrapTokenSecret("eeeeee.0123456789abcdef", { expires: clock.now() - 1000 }));
    expect(await eventually(async () => !(await exists("bootstrap-token-eeeeee")))).toBe(true);
    expect(await exists("bootstrap-token-dddddd")).toBe(true);
    expect(await exists("bootstrap-token-dddddd", "default")).toBe(true);
  });
});
