import { configMapType, priorityClassType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor } from "../internal/testing.js";
import { dryRunUnsupported, failedCallingWebhook, WebhookCallError, webhookDenial } from "./errors.js";

const attrs = attributesFor({
  operation: "CREATE",
  type: configMapType,
  object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "team" } },
});

describe("webhookDenial (the reference's ToStatusErr)", () => {
  it("prefixes the webhook's message and keeps its code, reason and details", () => {
    const error = webhookDenial("deny.example.com", { code: 422, reason: "Invalid", message: "bad data", details: { causes: [{ field: "data" }] } }, attrs);
    expect(error.status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      code: 422,
      reason: "Invalid",
      message: 'admission webhook "deny.example.com" denied the request: bad data',
      details: { causes: [{ field: "data" }] },
    });
  });

  it("uses the reason when there is no message, else says 'without explanation'", () => {
    expect(webhookDenial("w.example.com", { reason: "NotAllowed" }, attrs).message).toBe('admission webhook "w.example.com" denied the request: NotAllowed');
    expect(webhookDenial("w.example.com", undefined, attrs).message).toBe('admission webhook "w.example.com" denied the request without explanation');
  });

  it("is a 403 Forbidden on the written resource when the webhook names no code", () => {
    const error = webhookDenial("w.example.com", { message: "no" }, attrs);
    expect(error.status).toMatchObject({ code: 403, reason: "Forbidden", details: { name: "cm", kind: "configmaps" } });
    const pc = attributesFor({
      operation: "CREATE",
      type: priorityClassType,
      object: { apiVersion: "scheduling.orch.io/v1", kind: "PriorityClass", metadata: { name: "" } },
    });
    expect(webhookDenial("w.example.com", {}, pc).status.details).toEqual({ name: "Unknown", group: "scheduling.orch.io", kind: "priorityclasses" });
  });

  it("raises a code below 400 to 400: no refusal carries a success code", () => {
    expect(webhookDenial("w.example.com", { code: 200, message: "no" }, attrs).code).toBe(400);
    expect(webhookDenial("w.example.com", { code: 500, message: "boom" }, attrs).status).toMatchObject({
      code: 500,
      reason: "InternalError",
      details: { causes: [{ message: 'admission webhook "w.example.com" denied the request: boom' }] },
    });
  });
});

describe("failures", () => {
  it("a failed call under Fail is a 500 naming the webhook and the cause", () => {
    const error = failedCallingWebhook(new WebhookCallError("w.example.com", "failed to call webhook: connection refused"));
    expect(error.status).toMatchObject({
      code: 500,
      reason: "InternalError",
      message: 'Internal error occurred: failed calling webhook "w.example.com": failed to call webhook: connection refused',
    });
  });

  it("a dry run that would call a webhook with side effects is a 400", () => {
    expect(dryRunUnsupported("w.example.com").status).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: 'admission webhook "w.example.com" does not support dry run',
    });
  });
});
