import { bootstrapTokenSecret, clusterInfoKubeconfig, verifyClusterInfo } from "@orch/certificates";
import { Client, inProcessTransport } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { BootstrapSignerController, bootstrapSignerController } from "./bootstrap-signer.js";
import { testCA } from "./internal/test-pki.js";
import { eventually, runController, settle, type RunningController } from "./internal/testing.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

const hour = 3600 * 1000;
const kubeconfig = clusterInfoKubeconfig({ server: "https://127.0.0.1:6443", caPem: testCA.certPem });
const tokenA = "aaaaaa.0123456789abcdef";
const tokenB = "bbbbbb.0123456789abcdef";
const tokenC = "cccccc.0123456789abcdef";

async function setup() {
  const clock = new FakeClock(Date.now());
  const client = new Client({ transport: inProcessTransport(new APIServer()) });
  const controller = await runController(new BootstrapSignerController(), client, { clock });
  running.push(controller);
  const createSecret = (secret: APIObject) => client.secrets.create(secret as Parameters<typeof client.secrets.create>[0]);
  const data = async () => (await client.configMaps.get("cluster-info", { namespace: "orch-public" })).data ?? {};
  const signatureKeys = async () =>
    Object.keys(await data())
      .filter((k) => k.startsWith("jws-kubeconfig-"))
      .sort();
  const createClusterInfo = (extra: Record<string, string> = {}) =>
    client.configMaps.create({ metadata: { name: "cluster-info", namespace: "orch-public" }, data: { kubeconfig, ...extra } });
  return { clock, client, createSecret, createClusterInfo, data, signatureKeys, logs: controller.logs };
}

describe("BootstrapSignerController", () => {
  it("is off by default", () => {
    expect(bootstrapSignerController.enabledByDefault).toBe(false);
  });

  it("signs cluster-info for every unexpired signing token, drops stale signatures, and verifies", async () => {
    const { createSecret, createClusterInfo, data, signatureKeys } = await setup();
    await createSecret(bootstrapTokenSecret(tokenA));
    await createSecret(bootstrapTokenSecret(tokenB, { usages: ["authentication"] }));
    await createClusterInfo({ "jws-kubeconfig-zzzzzz": "stale..signature" });
    expect(await eventually(async () => JSON.stringify(await signatureKeys()) === JSON.stringify(["jws-kubeconfig-aaaaaa"]))).toBe(true);
    const signed = await data();
    expect(await verifyClusterInfo(kubeconfig, signed["jws-kubeconfig-aaaaaa"] ?? "", tokenA)).toBe(true);
    expect(signed["kubeconfig"]).toBe(kubeconfig);
  });

  it("follows tokens: a new one is added, a deleted one and an expired one are removed", async () => {
    const { clock, client, createSecret, createClusterInfo, signatureKeys } = await setup();
    await createClusterInfo();
    await createSecret(bootstrapTokenSecret(tokenA));
    await createSecret(bootstrapTokenSecret(tokenC, { expires: clock.now() + hour }));
    expect(await eventually(async () => (await signatureKeys()).length === 2)).toBe(true);
    await client.secrets.delete("bootstrap-token-aaaaaa", { namespace: "orch-system" });
    expect(await eventually(async () => JSON.stringify(await signatureKeys()) === JSON.stringify(["jws-kubeconfig-cccccc"]))).toBe(true);
    await settle();
    clock.advance(hour);
    expect(await eventually(async () => (await signatureKeys()).length === 0)).toBe(true);
  });

  it("does nothing while cluster-info is missing, and signs it once it appears", async () => {
    const { client, createSecret, createClusterInfo, signatureKeys, logs } = await setup();
    await createSecret(bootstrapTokenSecret(tokenA));
    await settle(100);
    expect((await client.configMaps.list({ namespace: "orch-public" })).items).toEqual([]);
    expect(logs).toEqual([]);
    await createClusterInfo();
    expect(await eventually(async () => (await signatureKeys()).length === 1)).toBe(true);
  });
});
