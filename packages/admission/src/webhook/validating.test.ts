import { configMapType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../attributes.js";
import type { AdmissionObservation } from "../chain.js";
import { attributesFor, fakeServices } from "../internal/testing.js";
import {
  answer,
  encodePatch,
  fakeTransport,
  putWebhooks,
  refusal,
  webhookConfigMap,
  type FakeCall,
  type FakeHandler,
  type WebhookSpec,
} from "../internal/webhook-testing.js";
import { validatingAdmissionWebhook } from "./index.js";

function setup(webhooks: WebhookSpec[], handler: FakeHandler) {
  const services = fakeServices();
  putWebhooks(services, "Validating", "config", webhooks);
  const transport = fakeTransport(handler);
  const plugin = validatingAdmissionWebhook({ services, configuration: undefined, transport });
  return { services, transport, plugin };
}

function update(extra: Partial<Parameters<typeof attributesFor>[0]> = {}): AdmissionAttributes {
  return attributesFor({ operation: "UPDATE", type: configMapType, object: webhookConfigMap(), oldObject: { ...webhookConfigMap(), data: {} }, ...extra });
}

const hostOf = (call: FakeCall) => new URL(call.url).hostname;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("ValidatingAdmissionWebhook", () => {
  it("admits when every matching webhook allows, sending the object and the old object", async () => {
    const { plugin, transport } = setup([{ name: "a.example.com" }, { name: "b.example.com" }], (call) => answer(call));
    await plugin.validate?.(update());
    expect(transport.calls.map(hostOf).sort()).toEqual(["a.example.com", "b.example.com"]);
    expect((transport.calls[0] as FakeCall).review.request).toMatchObject({
      operation: "UPDATE",
      object: webhookConfigMap(),
      oldObject: { ...webhookConfigMap(), data: {} },
    });
  });

  it("reports each webhook call's duration and refusal to the services' observer", async () => {
    const seen: AdmissionObservation[] = [];
    const services = fakeServices();
    services.observeWebhook = (o) => void seen.push(o);
    putWebhooks(services, "Validating", "config", [{ name: "yes.example.com" }, { name: "no.example.com" }]);
    const transport = fakeTransport((call) =>
      hostOf(call) === "no.example.com" ? answer(call, { allowed: false, status: { code: 403, message: "no" } }) : answer(call),
    );
    const plugin = validatingAdmissionWebhook({ services, configuration: undefined, transport });
    await refusal(plugin.validate?.(update()));
    expect(
      seen.map(({ kind, name, type, operation, rejected }) => ({ kind, name, type, operation, rejected })).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { kind: "webhook", name: "no.example.com", type: "validate", operation: "UPDATE", rejected: true },
      { kind: "webhook", name: "yes.example.com", type: "validate", operation: "UPDATE", rejected: false },
    ]);
    expect(seen.every((o) => o.seconds >= 0)).toBe(true);
  });

  it("calls the webhooks in parallel", async () => {
    let inFlight = 0;
    let most = 0;
    const { plugin } = setup([{ name: "a.example.com" }, { name: "b.example.com" }, { name: "c.example.com" }], async (call) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await wait(20);
      inFlight--;
      return answer(call);
    });
    await plugin.validate?.(update());
    expect(most).toBe(3);
  });

  it("the first refusal in webhook order decides, whichever answered first", async () => {
    const { plugin, transport } = setup([{ name: "slow.example.com" }, { name: "fast.example.com" }], async (call) => {
      if (hostOf(call) === "slow.example.com") {
        await wait(30);
        return answer(call, { allowed: false, status: { code: 403, message: "slow says no" } });
      }
      return answer(call, { allowed: false, status: { code: 422, message: "fast says no" } });
    });
    const error = await refusal(plugin.validate?.(update()));
    expect(error.status).toMatchObject({ code: 403, message: 'admission webhook "slow.example.com" denied the request: slow says no' });
    expect(transport.calls).toHaveLength(2);
  });

  it("a failed call refuses with a 500 under Fail, and is logged and skipped under Ignore", async () => {
    const failing = setup([{ name: "down.example.com" }], () => ({ status: 503, body: "" }));
    const error = await refusal(failing.plugin.validate?.(update()));
    expect(error.message).toBe(
      'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: the server responded with HTTP 503',
    );

    const ignoring = setup([{ name: "down.example.com", failurePolicy: "Ignore" }], () => ({ status: 503, body: "" }));
    const attrs = update();
    await ignoring.plugin.validate?.(attrs);
    expect(ignoring.services.logged).toEqual([
      'failed calling webhook "down.example.com", failing open: failed to call webhook: the server responded with HTTP 503',
    ]);
    expect(attrs.auditAnnotations["failed-open.validating.webhook.admission.orch.io/round_0_index_0"]).toBe("down.example.com");
  });

  it("a v1 answer with a patch is an invalid answer; a v1beta1 answer's patch is ignored", async () => {
    const patch = encodePatch([{ op: "add", path: "/data/x", value: "1" }]);
    const v1 = setup([{ name: "patch.example.com" }], (call) => answer(call, { patchType: "JSONPatch", patch }));
    const error = await refusal(v1.plugin.validate?.(update()));
    expect(error.message).toContain(
      'failed calling webhook "patch.example.com": received invalid webhook response: validating webhook may not return response.patch',
    );

    const v1beta1 = setup([{ name: "patch.example.com", admissionReviewVersions: ["v1beta1"] }], (call) => answer(call, { patch }));
    const attrs = update();
    await v1beta1.plugin.validate?.(attrs);
    expect((v1beta1.transport.calls[0] as FakeCall).review.apiVersion).toBe("admission.orch.io/v1beta1");
    expect(attrs.object).toEqual(webhookConfigMap());
  });

  it("keeps warnings and audit annotations of every webhook", async () => {
    const { plugin } = setup([{ name: "a.example.com" }, { name: "b.example.com" }], (call) =>
      answer(call, { warnings: [`from ${hostOf(call)}`], auditAnnotations: { seen: "yes" } }),
    );
    const attrs = update();
    await plugin.validate?.(attrs);
    expect(attrs.warnings.sort()).toEqual(["from a.example.com", "from b.example.com"]);
    expect(attrs.auditAnnotations).toMatchObject({ "a.example.com/seen": "yes", "b.example.com/seen": "yes" });
  });

  it("a dry-run request refuses with a 400 for a webhook with side effects, and calls the others with dryRun true", async () => {
    const { plugin, transport } = setup(
      [
        { name: "unknown.example.com", sideEffects: "Unknown" },
        { name: "none.example.com", sideEffects: "None" },
      ],
      (call) => answer(call),
    );
    const error = await refusal(plugin.validate?.(update({ dryRun: true })));
    expect(error.status).toMatchObject({ code: 400, message: 'admission webhook "unknown.example.com" does not support dry run' });
    expect(transport.calls.map((c) => [hostOf(c), c.review.request["dryRun"]])).toEqual([["none.example.com", true]]);
  });

  it("is called for DELETE with the old object only, and for CONNECT", async () => {
    const { plugin, transport } = setup([{ name: "a.example.com" }], (call) => answer(call));
    await plugin.validate?.(
      attributesFor({
        operation: "DELETE",
        type: configMapType,
        oldObject: webhookConfigMap(),
        options: { kind: "DeleteOptions", apiVersion: "meta.orch.io/v1" },
      }),
    );
    expect((transport.calls[0] as FakeCall).review.request).toMatchObject({
      operation: "DELETE",
      object: null,
      oldObject: webhookConfigMap(),
      options: { kind: "DeleteOptions" },
    });
    expect(plugin.operations).toEqual(["CREATE", "UPDATE", "DELETE", "CONNECT"]);
  });
});
