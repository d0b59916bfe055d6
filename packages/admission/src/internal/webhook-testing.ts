/**
 * Test helpers of the admission webhook tests: webhook configuration objects as the server
 * stores them (`v1`, defaulted), a fake {@link WebhookTransport} that answers from a handler
 * and records every call, builders of AdmissionReview answers, and the objects and kinds the
 * webhook tests send. Not exported from the package.
 * @module
 */
import type { HTTPResponse } from "@orch/authn";
import type { APIObject, StatusError } from "@orch/meta";
import { configMapType, configMapV1Schema, type ResourceType } from "@orch/resources";
import type { WebhookTLS, WebhookTransport } from "../plugin.js";
import { statusErrorOf, type FakeServices } from "./testing.js";

/** A webhook of a configuration, as written (the defaults of `v1` are filled in by {@link webhookConfiguration}). */
export type WebhookSpec = Record<string, unknown> & { name: string };

/**
 * A stored `v1` Mutating/ValidatingWebhookConfiguration named `name` with `webhooks`, with the
 * defaults of `v1` (failurePolicy Fail, matchPolicy Equivalent, timeoutSeconds 10, empty
 * selectors, sideEffects None, admissionReviewVersions [v1], scope `*`, service port 443,
 * reinvocationPolicy Never for mutating webhooks) and a default URL.
 */
export function webhookConfiguration(kind: "Mutating" | "Validating", name: string, webhooks: WebhookSpec[], domain = "orch.io"): APIObject {
  return {
    apiVersion: `admissionregistration.${domain}/v1`,
    kind: `${kind}WebhookConfiguration`,
    metadata: { name },
    webhooks: webhooks.map((w) => {
      const hook: Record<string, unknown> = {
        clientConfig: { url: `https://${w.name}/` },
        rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }],
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        matchPolicy: "Equivalent",
        namespaceSelector: {},
        objectSelector: {},
        timeoutSeconds: 10,
        ...(kind === "Mutating" ? { reinvocationPolicy: "Never" } : {}),
        ...w,
      };
      for (const rule of hook["rules"] as Record<string, unknown>[]) rule["scope"] ??= "*";
      const service = (hook["clientConfig"] as { service?: Record<string, unknown> }).service;
      if (service) service["port"] ??= 443;
      return hook;
    }),
  };
}

/** Stores webhook configurations in `services` (the plugins see them through `watchList`). */
export function putWebhooks(services: FakeServices, kind: "Mutating" | "Validating", name: string, webhooks: WebhookSpec[]): void {
  const resource = kind === "Mutating" ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
  services.put(`admissionregistration.${services.domain}`, resource, webhookConfiguration(kind, name, webhooks, services.domain));
}

/** One call the fake transport received. */
export interface FakeCall {
  url: string;
  tls: WebhookTLS;
  headers: Record<string, string>;
  /** The AdmissionReview sent. */
  review: { apiVersion: string; kind: string; request: Record<string, unknown> & { uid: string; object: APIObject | null; oldObject: APIObject | null } };
}

/** What a handler answers: a body (JSON-encoded unless a string), a status (200), or a wait first. */
export interface FakeAnswer {
  status?: number;
  body?: unknown;
  delayMs?: number;
}

/** The handler of the fake transport: the answer to one call; throwing fails the call (a connection error). */
export type FakeHandler = (call: FakeCall) => FakeAnswer | Promise<FakeAnswer>;

/** A fake transport, the calls it received and the TLS settings clients were made for. */
export interface FakeTransport extends WebhookTransport {
  calls: FakeCall[];
  clientsMade: WebhookTLS[];
}

/** A transport whose clients answer with `handler` (by the webhook's host when `handler` is a map). */
export function fakeTransport(handler: FakeHandler, resolveService?: WebhookTransport["resolveService"]): FakeTransport {
  const transport: FakeTransport = {
    calls: [],
    clientsMade: [],
    client(tls) {
      transport.clientsMade.push(tls);
      return async (url, request): Promise<HTTPResponse> => {
        const call: FakeCall = { url, tls, headers: request.headers ?? {}, review: JSON.parse(String(request.body)) as FakeCall["review"] };
        transport.calls.push(call);
        const answer = await handler(call);
        if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
        return { status: answer.status ?? 200, headers: new Headers({ "content-type": "application/json" }), body: new TextEncoder().encode(body) };
      };
    },
  };
  if (resolveService) transport.resolveService = resolveService;
  return transport;
}

/** Base64 of a JSON patch, as a webhook sends it. */
export function encodePatch(operations: unknown[]): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(operations))));
}

/** The answer of a webhook to `call`: an AdmissionReview of the version sent with `response` (`uid` echoed, allowed unless said). */
export function answer(call: FakeCall, response: Record<string, unknown> = {}): FakeAnswer {
  return { body: { apiVersion: call.review.apiVersion, kind: "AdmissionReview", response: { uid: call.review.request.uid, allowed: true, ...response } } };
}

/** The answer of a mutating webhook that applies the JSON patch `operations`. */
export function patchAnswer(call: FakeCall, operations: unknown[]): FakeAnswer {
  return answer(call, { patchType: "JSONPatch", patch: encodePatch(operations) });
}

/** The ConfigMap `team/cm` with data `{ a: "1" }` (and `labels` when given), as the webhook tests send it. */
export function webhookConfigMap(labels?: Record<string, string>): APIObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "team", ...(labels ? { labels } : {}) }, data: { a: "1" } };
}

/** A kind served in `v1` (stored) and `v2`, where `v2` names `data` `values`: for the tests of matchPolicy Equivalent. */
export const widgetType: ResourceType = {
  ...configMapType,
  group: "example.{domain}",
  resource: "widgets",
  singular: "widget",
  kind: "Widget",
  versions: [
    { name: "v1", schema: configMapV1Schema, storage: true },
    {
      name: "v2",
      schema: configMapV1Schema,
      storage: false,
      toStorage: ({ values, ...o }) => ({ ...o, apiVersion: "example.orch.io/v1", data: values }),
      fromStorage: ({ data, ...o }) => ({ ...o, apiVersion: "example.orch.io/v2", values: data }),
    },
  ],
};

/** The Widget `team/w` in its stored version `v1`, with `data` (`{ a: "1" }` by default). */
export function widget(data: Record<string, string> = { a: "1" }): APIObject {
  return { apiVersion: "example.orch.io/v1", kind: "Widget", metadata: { name: "w", namespace: "team" }, data };
}

/**
 * The StatusError `promise` (an admission call's result) rejects with.
 * @throws Error when it resolves; what it rejects with when that is not a StatusError.
 */
export async function refusal(promise: unknown): Promise<StatusError> {
  const error = await statusErrorOf(() => promise);
  if (!error) throw new Error("expected a StatusError, the call succeeded");
  return error;
}
