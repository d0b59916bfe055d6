import { signCertificate } from "@orch/certificates";
import { Client, inProcessTransport } from "@orch/client";
import { isNotFound, type APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { afterEach, describe, expect, it } from "vitest";
import { CSRCleanerController } from "./csr-cleaner.js";
import { base64OfText } from "./internal/base64.js";
import { csrRef } from "./internal/refs.js";
import { aliceRequest, testCA } from "./internal/test-pki.js";
import { eventually, runController, settle, type RunningController } from "./internal/testing.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

const minute = 60 * 1000;
const hour = 60 * minute;

async function setup() {
  // The server stamps times on the real clock; the controller's clock starts there and is advanced.
  const clock = new FakeClock(Date.now());
  const client = new Client({ transport: inProcessTransport(new APIServer()) });
  const controller = await runController(new CSRCleanerController(), client, { clock });
  running.push(controller);
  const csrs = client.resource(csrRef);
  const create = (name: string) =>
    csrs.create({
      metadata: { name },
      spec: { signerName: "orch.io/orch-apiserver-client", usages: ["client auth"], request: base64OfText(aliceRequest) },
    } as APIObject);
  const decide = async (name: string, type: "Approved" | "Denied") => {
    const csr = await csrs.get(name);
    csr["status"] = { conditions: [{ type, status: "True", reason: "Test" }] };
    await csrs.update(csr, { subresource: "approval" });
  };
  const exists = async (name: string) => {
    try {
      await csrs.get(name);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  };
  /** Advances the clock once the controller has seen every event so far. */
  const advance = async (ms: number) => {
    await settle();
    clock.advance(ms);
  };
  return { clock, csrs, create, decide, exists, advance, logs: controller.logs };
}

describe("CSRCleanerController", () => {
  it("deletes a pending request 24 hours after its creation, not before", async () => {
    const { create, exists, advance, logs } = await setup();
    await create("pending");
    await advance(23 * hour);
    await settle();
    expect(await exists("pending")).toBe(true);
    await advance(hour + 2000);
    expect(await eventually(async () => !(await exists("pending")))).toBe(true);
    expect(logs).toContain("csrcleaner: deleting pending (pending)");
  });

  it("deletes a denied request an hour after the decision", async () => {
    const { create, decide, exists, advance } = await setup();
    await create("denied");
    await decide("denied", "Denied");
    await advance(59 * minute);
    await settle();
    expect(await exists("denied")).toBe(true);
    await advance(2 * minute);
    expect(await eventually(async () => !(await exists("denied")))).toBe(true);
  });

  it("deletes an issued request once its certificate has expired, before the hour after approval", async () => {
    const { clock, csrs, create, decide, exists, advance, logs } = await setup();
    await create("issued");
    await decide("issued", "Approved");
    const certificate = await signCertificate({
      request: aliceRequest,
      usages: ["client auth"],
      signerName: "orch.io/orch-apiserver-client",
      ca: { certPem: testCA.certPem, keyPem: testCA.keyPem },
      expirationSeconds: 600,
      now: clock.now(),
    });
    const csr = await csrs.get("issued");
    csr["status"] = { ...(csr["status"] as object), certificate: base64OfText(certificate) };
    await csrs.updateStatus(csr);
    await advance(9 * minute);
    await settle();
    expect(await exists("issued")).toBe(true);
    await advance(2 * minute);
    expect(await eventually(async () => !(await exists("issued")))).toBe(true);
    expect(logs).toContain("csrcleaner: deleting issued (certificate-expired)");
  });

  it("keeps an approved request still waiting for its certificate", async () => {
    const { create, decide, exists, advance } = await setup();
    await create("waiting");
    await decide("waiting", "Approved");
    await advance(48 * hour);
    await settle();
    expect(await exists("waiting")).toBe(true);
  });
});
