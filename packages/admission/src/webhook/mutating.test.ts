import { configMapType } from "@orch/resources";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdmissionAttributes } from "../attributes.js";
import { AdmissionChain } from "../chain.js";
import type { AdmissionPlugin } from "../plugin.js";
import { attributesFor, fakeServices, type FakeServices } from "../internal/testing.js";
import {
  answer,
  fakeTransport,
  patchAnswer,
  putWebhooks,
  refusal,
  webhookConfigMap,
  widget,
  widgetType,
  type FakeCall,
  type FakeHandler,
  type WebhookSpec,
} from "../internal/webhook-testing.js";
import { mutatingAdmissionWebhook } from "./index.js";

function setup(webhooks: WebhookSpec[], handler: FakeHandler, services: FakeServices = fakeServices()) {
  putWebhooks(services, "Mutating", "config", webhooks);
  const transport = fakeTransport(handler);
  const plugin = mutatingAdmissionWebhook({ services, configuration: undefined, transport });
  return { services, transport, plugin };
}

function create(extra: Partial<Parameters<typeof attributesFor>[0]> = {}): AdmissionAttributes {
  return attributesFor({ operation: "CREATE", type: configMapType, object: webhookConfigMap(), ...extra });
}

const hostOf = (call: FakeCall) => new URL(call.url).hostname;

afterEach(() => {
  vi.useRealTimers();
});

describe("MutatingAdmissionWebhook", () => {
  it("sends a v1 AdmissionReview and applies the JSON patch of the answer to the object", async () => {
    const { plugin, transport } = setup([{ name: "label.example.com" }], (call) =>
      patchAnswer(call, [{ op: "add", path: "/metadata/labels", value: { added: "yes" } }]),
    );
    const attrs = create();
    await plugin.admit?.(attrs);
    expect(attrs.object?.metadata.labels).toEqual({ added: "yes" });
    const call = transport.calls[0] as FakeCall;
    expect(call.url).toBe("https://label.example.com/?timeout=10s");
    expect(call.headers).toEqual({ "Content-Type": "application/json", Accept: "application/json" });
    expect(call.review.apiVersion).toBe("admission.orch.io/v1");
    expect(call.review.request).toMatchObject({
      operation: "CREATE",
      name: "cm",
      namespace: "team",
      object: webhookConfigMap(),
      oldObject: null,
      dryRun: false,
    });
    expect(call.review.request.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(attrs.auditAnnotations["mutation.webhook.admission.orch.io/round_0_index_0"]).toBe(
      '{"configuration":"config","webhook":"label.example.com","mutated":true}',
    );
  });

  it("calls the webhooks one after the other, each on the object the previous one patched", async () => {
    const { plugin, transport } = setup([{ name: "first.example.com" }, { name: "second.example.com" }], (call) =>
      hostOf(call) === "first.example.com"
        ? patchAnswer(call, [{ op: "add", path: "/data/b", value: "2" }])
        : patchAnswer(call, [{ op: "add", path: "/data/c", value: `${Object.keys(call.review.request.object?.["data"] as object).length}` }]),
    );
    const attrs = create();
    await plugin.admit?.(attrs);
    expect(transport.calls.map(hostOf)).toEqual(["first.example.com", "second.example.com"]);
    expect(attrs.object?.["data"]).toEqual({ a: "1", b: "2", c: "2" });
  });

  it("leaves the object alone on an answer without a patch, and skips webhooks whose rules do not match", async () => {
    const { plugin, transport } = setup(
      [{ name: "noop.example.com" }, { name: "pods.example.com", rules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] }],
      (call) => answer(call),
    );
    const attrs = create();
    await plugin.admit?.(attrs);
    expect(attrs.object).toEqual(webhookConfigMap());
    expect(transport.calls.map(hostOf)).toEqual(["noop.example.com"]);
  });

  it("adds the answer's warnings and its audit annotations under the webhook's name", async () => {
    const { plugin } = setup([{ name: "warn.example.com" }], (call) => answer(call, { warnings: ["deprecated field"], auditAnnotations: { decision: "ok" } }));
    const attrs = create();
    await plugin.admit?.(attrs);
    expect(attrs.warnings).toEqual(["deprecated field"]);
    expect(attrs.auditAnnotations["warn.example.com/decision"]).toBe("ok");
  });

  it("a denial is the webhook's code and message, and later webhooks are not called", async () => {
    const { plugin, transport } = setup([{ name: "deny.example.com" }, { name: "later.example.com" }], (call) =>
      answer(call, { allowed: false, status: { code: 409, reason: "Conflict", message: "taken" } }),
    );
    const error = await refusal(plugin.admit?.(create()));
    expect(error.status).toMatchObject({ code: 409, reason: "Conflict", message: 'admission webhook "deny.example.com" denied the request: taken' });
    expect(transport.calls).toHaveLength(1);
  });

  it("with matchPolicy Equivalent, the webhook sees and patches the object in the version it registered for", async () => {
    const rules = [{ operations: ["CREATE"], apiGroups: ["example.orch.io"], apiVersions: ["v2"], resources: ["widgets"] }];
    const { plugin, transport } = setup([{ name: "v2.example.com", rules }], (call) => patchAnswer(call, [{ op: "add", path: "/values/b", value: "2" }]));
    const attrs = attributesFor({ operation: "CREATE", type: widgetType, object: widget() });
    await plugin.admit?.(attrs);
    const request = (transport.calls[0] as FakeCall).review.request;
    expect(request["kind"]).toEqual({ group: "example.orch.io", version: "v2", kind: "Widget" });
    expect(request["resource"]).toEqual({ group: "example.orch.io", version: "v2", resource: "widgets" });
    expect(request["requestKind"]).toEqual({ group: "example.orch.io", version: "v1", kind: "Widget" });
    expect(request.object).toMatchObject({ apiVersion: "example.orch.io/v2", values: { a: "1" } });
    expect(attrs.object).toEqual(widget({ a: "1", b: "2" }));
  });
});

describe("MutatingAdmissionWebhook failures", () => {
  const cases: [string, FakeHandler, string][] = [
    [
      "a patch that leaves the schema",
      (call) => patchAnswer(call, [{ op: "replace", path: "/data", value: 5 }]),
      "the patched object is not a valid ConfigMap v1: data: ",
    ],
    [
      "a patch that renames the object",
      (call) => patchAnswer(call, [{ op: "replace", path: "/metadata/name", value: "other" }]),
      'the patch changed metadata.name from "cm" to "other"',
    ],
    [
      "a patch that changes the kind",
      (call) => patchAnswer(call, [{ op: "replace", path: "/kind", value: "Secret" }]),
      'the patch changed kind from "ConfigMap" to "Secret"',
    ],
    ["a patch that does not apply", (call) => patchAnswer(call, [{ op: "remove", path: "/spec/missing" }]), "the patch could not be applied: "],
    [
      "a patch that is not JSON",
      (call) => answer(call, { patchType: "JSONPatch", patch: btoa("{not json") }),
      "received undecodable patch in webhook response: ",
    ],
    [
      "another patch type",
      (call) => answer(call, { patchType: "MergePatch", patch: btoa('[{"op":"add","path":"/x","value":1}]') }),
      'unsupported patch type "MergePatch"',
    ],
    [
      "a response of another uid",
      (call) => ({ body: { apiVersion: call.review.apiVersion, kind: "AdmissionReview", response: { uid: "nope", allowed: true } } }),
      "received invalid webhook response: expected response.uid=",
    ],
    ["a 500", () => ({ status: 500, body: "boom" }), "failed to call webhook: the server responded with HTTP 500: boom"],
    ["a body that is not JSON", () => ({ body: "<html>" }), "failed to call webhook: the response is not JSON: "],
    [
      "a connection error",
      () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1")),
      'failed to call webhook: Post "https://bad.example.com/?timeout=10s": connect ECONNREFUSED 127.0.0.1:1',
    ],
  ];

  for (const [what, handler, cause] of cases) {
    it(`${what}: failurePolicy Fail refuses with a 500, Ignore goes on with the object as it was`, async () => {
      const failing = setup([{ name: "bad.example.com" }], handler);
      const error = await refusal(failing.plugin.admit?.(create()));
      expect(error.code).toBe(500);
      expect(error.message).toContain(`Internal error occurred: failed calling webhook "bad.example.com": ${cause}`);

      const ignoring = setup([{ name: "bad.example.com", failurePolicy: "Ignore" }, { name: "next.example.com" }], (call) =>
        hostOf(call) === "next.example.com" ? patchAnswer(call, [{ op: "add", path: "/data/next", value: "1" }]) : handler(call),
      );
      const attrs = create();
      await ignoring.plugin.admit?.(attrs);
      expect(attrs.object?.["data"]).toEqual({ a: "1", next: "1" });
      expect(ignoring.services.logged[0]).toContain(`failed calling webhook "bad.example.com", failing open: ${cause}`);
      expect(attrs.auditAnnotations["failed-open.mutation.webhook.admission.orch.io/round_0_index_0"]).toBe("bad.example.com");
    });
  }

  it("a webhook slower than timeoutSeconds fails at the limit even when its client ignores the abort", async () => {
    vi.useFakeTimers();
    const { plugin } = setup([{ name: "slow.example.com", timeoutSeconds: 1 }], () => new Promise<never>(() => {}));
    const outcome = Promise.resolve(plugin.admit?.(create())).then(
      () => "admitted",
      (e: unknown) => (e as Error).message,
    );
    await vi.advanceTimersByTimeAsync(1000);
    expect(await outcome).toBe(
      'Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://slow.example.com/?timeout=1s": context deadline exceeded',
    );
  });

  it("a patch for a DELETE, which has no object, is a 500 whatever the failure policy", async () => {
    const { plugin } = setup([{ name: "del.example.com", failurePolicy: "Ignore" }], (call) => patchAnswer(call, [{ op: "add", path: "/x", value: 1 }]));
    const error = await refusal(plugin.admit?.(attributesFor({ operation: "DELETE", type: configMapType, oldObject: webhookConfigMap() })));
    expect(error.message).toBe(
      'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, which is not supported for this operation',
    );
  });

  it("a webhook that speaks no known AdmissionReview version fails as a call", async () => {
    const { plugin, transport } = setup([{ name: "v2.example.com", admissionReviewVersions: ["v2"] }], (call) => answer(call));
    const error = await refusal(plugin.admit?.(create()));
    expect(error.message).toContain("webhook does not accept known AdmissionReview versions (v1, v1beta1)");
    expect(transport.calls).toHaveLength(0);
  });
});

describe("dry run", () => {
  it("a webhook with side effects Unknown or Some refuses a dry-run request with a 400 and is not called", async () => {
    for (const sideEffects of ["Unknown", "Some"]) {
      const { plugin, transport } = setup([{ name: "effects.example.com", sideEffects, failurePolicy: "Ignore" }], (call) => answer(call));
      const error = await refusal(plugin.admit?.(create({ dryRun: true })));
      expect(error.status).toMatchObject({ code: 400, reason: "BadRequest", message: 'admission webhook "effects.example.com" does not support dry run' });
      expect(transport.calls).toHaveLength(0);
    }
  });

  it("a webhook with side effects None or NoneOnDryRun is called with dryRun true", async () => {
    const { plugin, transport } = setup(
      [
        { name: "none.example.com", sideEffects: "None" },
        { name: "dry.example.com", sideEffects: "NoneOnDryRun" },
      ],
      (call) => answer(call),
    );
    await plugin.admit?.(create({ dryRun: true }));
    expect(transport.calls.map((c) => c.review.request["dryRun"])).toEqual([true, true]);
  });
});

describe("reinvocation", () => {
  /** A chain of `before` (an in-tree plugin running first) and the webhook plugin; the calls per webhook host. */
  async function run(webhooks: WebhookSpec[], patches: Record<string, unknown[]>, before?: AdmissionPlugin) {
    const { plugin, transport } = setup(webhooks, (call) => {
      const ops = patches[hostOf(call)];
      return ops ? patchAnswer(call, ops) : answer(call);
    });
    const attrs = create();
    await new AdmissionChain(before ? [before, plugin] : [plugin]).admit(attrs);
    const counts: Record<string, number> = {};
    for (const call of transport.calls) counts[hostOf(call)] = (counts[hostOf(call)] ?? 0) + 1;
    return { attrs, counts, transport };
  }

  const labelA = [{ op: "add", path: "/data/a", value: "A" }];
  const labelB = [{ op: "add", path: "/data/b", value: "B" }];

  it("an IfNeeded webhook is called once more when a later webhook changed the object", async () => {
    const { counts, attrs } = await run([{ name: "a.example.com", reinvocationPolicy: "IfNeeded" }, { name: "b.example.com" }], { "b.example.com": labelB });
    expect(counts).toEqual({ "a.example.com": 2, "b.example.com": 1 });
    expect(attrs.reinvocation.isReinvoke).toBe(true);
  });

  it("a Never webhook is not called again", async () => {
    const { counts } = await run([{ name: "a.example.com" }, { name: "b.example.com" }], { "b.example.com": labelB });
    expect(counts).toEqual({ "a.example.com": 1, "b.example.com": 1 });
  });

  it("an IfNeeded webhook is not called again when nothing changed after it", async () => {
    const { counts, attrs } = await run([{ name: "b.example.com" }, { name: "a.example.com", reinvocationPolicy: "IfNeeded" }], { "a.example.com": labelA });
    expect(counts).toEqual({ "a.example.com": 1, "b.example.com": 1 });
    // Its own change still asks the in-tree plugins for a second pass, as the reference does.
    expect(attrs.reinvocation.isReinvoke).toBe(true);
  });

  it("an IfNeeded webhook is called again when an in-tree plugin changed the object after this plugin's first pass", async () => {
    const inTree: AdmissionPlugin = {
      name: "InTree",
      admit(attrs) {
        if (attrs.reinvocation.isReinvoke && attrs.object) attrs.object = { ...attrs.object, data: { ...(attrs.object["data"] as object), tree: "1" } };
      },
    };
    const { counts, attrs } = await run([{ name: "a.example.com", reinvocationPolicy: "IfNeeded" }], { "a.example.com": labelA }, inTree);
    expect(counts).toEqual({ "a.example.com": 2 });
    expect(attrs.object?.["data"]).toEqual({ a: "A", tree: "1" });
  });

  it("no second pass is asked for when no webhook changed the object", async () => {
    const { attrs, counts } = await run([{ name: "a.example.com", reinvocationPolicy: "IfNeeded" }, { name: "b.example.com" }], {});
    expect(attrs.reinvocation.isReinvoke).toBe(false);
    expect(counts).toEqual({ "a.example.com": 1, "b.example.com": 1 });
  });
});

describe("configurations", () => {
  it("are compiled again only when the watched collection changes", async () => {
    const services = fakeServices();
    const watchList = services.watchList.bind(services);
    let reads = 0;
    services.watchList = (group, resource) => {
      const live = watchList(group, resource);
      return { ...live, items: () => (reads++, live.items()) };
    };
    const { plugin, transport } = setup([{ name: "one.example.com" }], (call) => answer(call), services);
    await plugin.admit?.(create());
    await plugin.admit?.(create());
    expect(reads).toBe(1);
    putWebhooks(services, "Mutating", "another", [{ name: "two.example.com" }]);
    await plugin.admit?.(create());
    expect(reads).toBe(2);
    // "another" sorts before "config".
    expect(transport.calls.map(hostOf)).toEqual(["one.example.com", "one.example.com", "two.example.com", "one.example.com"]);
    await expect(plugin.ready?.()).resolves.toBeUndefined();
  });

  it("are never consulted for writes of webhook configurations", async () => {
    const { plugin, transport } = setup([{ name: "all.example.com" }], (call) => answer(call));
    const attrs = create();
    attrs.kind = { group: "admissionregistration.orch.io", version: "v1", kind: "MutatingWebhookConfiguration" };
    await plugin.admit?.(attrs);
    expect(transport.calls).toHaveLength(0);
  });
});
