import { csrExpiry } from "@orch/certificates";
import { Client, inProcessTransport } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { CSRSigningController } from "./csr-signing.js";
import { base64OfText, textOfBase64 } from "./internal/base64.js";
import { csrRef } from "./internal/refs.js";
import { aliceRequest, nodeN1Request, testCA } from "./internal/test-pki.js";
import { eventually, runController, settle, type RunningController } from "./internal/testing.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

const signing = { caCertPem: testCA.certPem, caKeyPem: testCA.keyPem, durationMs: 24 * 3600 * 1000 };

async function setup(withCA = true) {
  const client = new Client({ transport: inProcessTransport(new APIServer()) });
  const controller = await runController(new CSRSigningController(), client, withCA ? { signing } : {});
  running.push(controller);
  const csrs = client.resource(csrRef);
  const create = (name: string, spec: Record<string, unknown>) =>
    csrs.create({
      metadata: { name },
      spec: { usages: ["digital signature", "key encipherment", "client auth"], request: base64OfText(nodeN1Request), ...spec },
    } as APIObject);
  const decide = async (name: string, type: "Approved" | "Denied") => {
    const csr = await csrs.get(name);
    csr["status"] = { conditions: [{ type, status: "True", reason: "Test", message: "by the test" }] };
    await csrs.update(csr, { subresource: "approval" });
  };
  const status = async (name: string) => ((await csrs.get(name))["status"] ?? {}) as { certificate?: string; conditions?: Record<string, string>[] };
  return { create, decide, status, get: (name: string) => csrs.get(name), logs: controller.logs };
}

describe("CSRSigningController", () => {
  it("signs an approved request of a built-in signer, for the shorter of expirationSeconds and the signing duration", async () => {
    const { create, decide, status, get } = await setup();
    await create("node", { signerName: "orch.io/orch-apiserver-client-nodeagent", expirationSeconds: 1800 });
    await decide("node", "Approved");
    expect(await eventually(async () => (await status("node")).certificate !== undefined)).toBe(true);
    expect(textOfBase64((await status("node")).certificate ?? "")).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/);
    // The certificate's end, read back by the cleaner's rule: half an hour from now.
    const expiry = csrExpiry(await get("node"), Date.now());
    expect(expiry?.reason).toBe("certificate-expired");
    expect(Math.abs((expiry?.at ?? 0) - (Date.now() + 1800 * 1000))).toBeLessThan(60 * 1000);
  });

  it("refuses a request that breaks its signer's restrictions with a Failed condition and a log line", async () => {
    const { create, decide, status, logs } = await setup();
    await create("alice-as-node", { signerName: "orch.io/orch-apiserver-client-nodeagent", request: base64OfText(aliceRequest) });
    await decide("alice-as-node", "Approved");
    expect(await eventually(async () => (await status("alice-as-node")).conditions?.some((c) => c["type"] === "Failed") ?? false)).toBe(true);
    const s = await status("alice-as-node");
    expect(s.certificate).toBeUndefined();
    expect(s.conditions?.find((c) => c["type"] === "Failed")).toMatchObject({
      status: "True",
      reason: "SignerValidationFailure",
      message: "subject organization is not system:nodes",
    });
    expect(logs.some((l) => l.includes("refusing to sign alice-as-node"))).toBe(true);
  });

  it("leaves pending, denied and other signers' requests alone", async () => {
    const { create, decide, status } = await setup();
    await create("pending", { signerName: "orch.io/orch-apiserver-client" });
    await create("denied", { signerName: "orch.io/orch-apiserver-client" });
    await decide("denied", "Denied");
    await create("custom", { signerName: "example.com/custom" });
    await decide("custom", "Approved");
    await create("control", { signerName: "orch.io/orch-apiserver-client", request: base64OfText(aliceRequest) });
    await decide("control", "Approved");
    expect(await eventually(async () => (await status("control")).certificate !== undefined)).toBe(true);
    await settle(100);
    for (const name of ["pending", "denied", "custom"]) expect((await status(name)).certificate).toBeUndefined();
  });

  it("stays idle, saying why, without a CA", async () => {
    const { create, decide, status, logs } = await setup(false);
    await create("node", { signerName: "orch.io/orch-apiserver-client-nodeagent" });
    await decide("node", "Approved");
    await settle(100);
    expect((await status("node")).certificate).toBeUndefined();
    expect(logs).toEqual(["csrsigning: no cluster signing CA was given: not signing certificate requests"]);
  });
});
