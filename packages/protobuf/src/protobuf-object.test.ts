import { StatusError, isBadRequest, isNotAcceptable, isUnsupportedMediaType } from "@orch/meta";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeEnvelope, encodeEnvelope, protobufPrefix } from "./envelope.js";
import { hasProtobufCodec } from "./codecs.js";
import { decodeProtobufObject, encodeProtobufObject, isProtobufMediaType } from "./protobuf-object.js";

const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

const metadata = {
  name: "x",
  generateName: "x-",
  namespace: "default",
  selfLink: "/api/v1/namespaces/default/configmaps/x",
  uid: "2f1a6c1e-0000-4000-8000-000000000001",
  resourceVersion: "42",
  generation: 3,
  creationTimestamp: "2026-11-21T20:49:14Z",
  deletionTimestamp: "2026-11-21T20:50:14Z",
  deletionGracePeriodSeconds: 0,
  labels: { app: "web", empty: "" },
  annotations: { "orch.io/note": "hello" },
  ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "u-1", controller: true, blockOwnerDeletion: false }],
  finalizers: ["orch.io/protect"],
  managedFields: [
    {
      manager: "kubectl-create",
      operation: "Update",
      apiVersion: "v1",
      time: "2026-11-21T20:49:14Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { ".": {}, "f:a": {} } },
      subresource: "status",
    },
  ],
};

const samples: Record<string, Record<string, unknown>> = {
  ConfigMap: { apiVersion: "v1", kind: "ConfigMap", metadata, data: { a: "b", e: "" }, binaryData: { bin: "AAEC/w==" }, immutable: false },
  Secret: { apiVersion: "v1", kind: "Secret", metadata, data: { p: "cQ==" }, type: "Opaque", stringData: { s: "t" }, immutable: true },
  Namespace: {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: "n" },
    spec: { finalizers: ["kubernetes"] },
    status: {
      phase: "Terminating",
      conditions: [
        {
          type: "NamespaceDeletionContentFailure",
          status: "False",
          lastTransitionTime: "2026-01-02T03:04:05Z",
          reason: "ContentDeleted",
          message: "All content successfully deleted",
        },
      ],
    },
  },
  Event: {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "x.1", namespace: "default" },
    involvedObject: { kind: "Pod", namespace: "default", name: "p", uid: "u", apiVersion: "v1", resourceVersion: "7", fieldPath: "spec.containers{c}" },
    reason: "Started",
    message: "Started container c",
    source: { component: "kubelet", host: "node-1" },
    firstTimestamp: "2026-01-02T03:04:05Z",
    lastTimestamp: "2026-01-02T03:04:06Z",
    count: 2,
    type: "Normal",
    eventTime: "2026-01-02T03:04:05.123456Z",
    series: { count: 2, lastObservedTime: "2026-01-02T03:04:06.000001Z" },
    action: "Start",
    related: { kind: "Node", name: "node-1" },
    reportingComponent: "kubelet",
    reportingInstance: "node-1",
  },
  Lease: {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "l", namespace: "orch-system" },
    spec: {
      holderIdentity: "a",
      leaseDurationSeconds: 0,
      acquireTime: "2026-01-02T03:04:05.000000Z",
      renewTime: "2026-01-02T03:04:05.999999Z",
      leaseTransitions: 0,
      strategy: "OldestEmulationVersion",
      preferredHolder: "b",
    },
  },
  ServiceAccount: {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: "builder", namespace: "ci" },
    secrets: [{ name: "builder-token" }],
    imagePullSecrets: [{ name: "registry" }],
    automountServiceAccountToken: false,
  },
  TokenRequest: {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    metadata: { name: "builder", namespace: "ci", creationTimestamp: "2026-01-02T03:04:05Z" },
    spec: { audiences: ["api", "vault"], expirationSeconds: 0, boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "p", uid: "u" } },
    status: { token: "eyJ.x.y", expirationTimestamp: "2026-01-02T04:04:05Z" },
  },
  SelfSubjectReview: {
    apiVersion: "authentication.k8s.io/v1",
    kind: "SelfSubjectReview",
    metadata: { creationTimestamp: "2026-01-02T03:04:05Z" },
    status: {
      userInfo: {
        username: "alice",
        uid: "u-1",
        groups: ["dev", "system:authenticated"],
        extra: { scopes: ["read", "write"], "authentication.kubernetes.io/pod-name": ["p"] },
      },
    },
  },
  DeleteOptions: {
    apiVersion: "meta.k8s.io/v1",
    kind: "DeleteOptions",
    gracePeriodSeconds: 0,
    preconditions: { uid: "u", resourceVersion: "9" },
    orphanDependents: false,
    propagationPolicy: "Foreground",
    dryRun: ["All"],
  },
};

describe("protobuf codecs", () => {
  for (const [kind, object] of Object.entries(samples)) {
    it(`round-trips a ${kind} with every field set`, () => {
      const wire = encodeProtobufObject(object);
      const decoded = decodeProtobufObject(wire);
      expect(decoded.kind).toBe(kind);
      expect(decoded.apiVersion).toBe(object.apiVersion);
      expect(decoded.object).toEqual(object);
    });
  }

  it("round-trips arbitrary ConfigMap and Secret data", () => {
    const key = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/);
    fc.assert(
      fc.property(fc.dictionary(key, fc.string()), fc.dictionary(key, fc.uint8Array({ maxLength: 40 })), (data, binary) => {
        const b64 = Object.fromEntries(Object.entries(binary).map(([k, v]) => [k, btoa(String.fromCharCode(...v))]));
        const cm: Record<string, unknown> = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
        if (Object.keys(data).length) cm.data = data;
        if (Object.keys(b64).length) cm.binaryData = b64;
        expect(decodeProtobufObject(encodeProtobufObject(cm)).object).toEqual(cm);
        const secret: Record<string, unknown> = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, type: "Opaque" };
        if (Object.keys(b64).length) secret.data = b64;
        expect(decodeProtobufObject(encodeProtobufObject(secret)).object).toEqual(secret);
      }),
    );
  });

  it("reads and writes a ConfigMap built by hand from the wire format", () => {
    // ObjectMeta{name(1)="x", namespace(3)="default"}
    const meta = bytes([0x0a, 0x01], "x", [0x1a, 0x07], "default");
    // ConfigMap{metadata(1), data(2): entry{key(1)="a", value(2)="b"}}
    const raw = bytes([0x0a, meta.length], [...meta], [0x12, 0x06, 0x0a, 0x01], "a", [0x12, 0x01], "b");
    // k8s\0 + Unknown{typeMeta(1){apiVersion(1)="v1", kind(2)="ConfigMap"}, raw(2)}
    const typeMeta = bytes([0x0a, 0x02], "v1", [0x12, 0x09], "ConfigMap");
    const wire = bytes([0x6b, 0x38, 0x73, 0x00], [0x0a, typeMeta.length], [...typeMeta], [0x12, raw.length], [...raw]);
    const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "default" }, data: { a: "b" } };
    expect(decodeProtobufObject(wire)).toEqual({ apiVersion: "v1", kind: "ConfigMap", object });
    expect([...encodeProtobufObject(object)]).toEqual([...wire]);
  });

  it("reads a TokenRequest as kubectl create token writes it (audiences 1, expirationSeconds 4)", () => {
    // TokenRequest{metadata(1){}, spec(2){audiences(1)="foo", expirationSeconds(4)=1200}, status(3){}}
    const spec = bytes([0x0a, 0x03], "foo", [0x20, 0xb0, 0x09]);
    const raw = bytes([0x0a, 0x00, 0x12, spec.length], [...spec], [0x1a, 0x00]);
    const wire = encodeEnvelope({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", raw });
    expect(decodeProtobufObject(wire).object).toEqual({
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      metadata: {},
      spec: { audiences: ["foo"], expirationSeconds: 1200 },
      status: {},
    });
  });

  it("drops the Go zero values a client writes for unset fields", () => {
    // ObjectMeta{name="x", generateName="", namespace="", creationTimestamp={}, generation=0}
    const meta = bytes([0x0a, 0x01], "x", [0x12, 0x00, 0x1a, 0x00, 0x38, 0x00, 0x42, 0x00]);
    const raw = bytes([0x0a, meta.length], [...meta]);
    const object = decodeProtobufObject(encodeEnvelope({ apiVersion: "v1", kind: "ConfigMap", raw })).object;
    expect(object).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } });
  });

  it("keeps a __proto__ key of a map as data", () => {
    const cm = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p"},"data":{"__proto__":"x"}}') as Record<string, unknown>;
    const back = decodeProtobufObject(encodeProtobufObject(cm)).object;
    expect(Object.keys(back.data as object)).toEqual(["__proto__"]);
    expect(back).toEqual(cm);
  });

  it("reads an envelope carrying JSON", () => {
    const raw = new TextEncoder().encode(JSON.stringify({ metadata: { name: "j" } }));
    const decoded = decodeProtobufObject(encodeEnvelope({ apiVersion: "v1", kind: "Pod", raw, contentType: "application/json" }));
    expect(decoded.object).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: "j" } });
  });

  it("matches Lease in any domain's coordination group and knows the media types", () => {
    expect(hasProtobufCodec("coordination.orch.io/v1", "Lease")).toBe(true);
    expect(hasProtobufCodec("coordination/v1", "Lease")).toBe(false);
    expect(hasProtobufCodec("apps/v1", "ConfigMap")).toBe(false);
    expect(hasProtobufCodec("v1", "DeleteOptions")).toBe(true);
    expect(isProtobufMediaType("application/vnd.kubernetes.protobuf")).toBe(true);
    expect(isProtobufMediaType("application/json")).toBe(false);
  });
});

describe("protobuf errors", () => {
  const good = encodeProtobufObject(samples.ConfigMap as Record<string, unknown>);

  it("rejects a wrong prefix with a 400", () => {
    const bad = good.slice();
    bad[2] = 0x74;
    const error = thrown(() => decodeProtobufObject(bad));
    expect(error).toBeInstanceOf(StatusError);
    expect(isBadRequest(error)).toBe(true);
    expect(isBadRequest(thrown(() => decodeEnvelope(bytes("{}"))))).toBe(true);
  });

  it("rejects truncated bytes with a 400", () => {
    for (const cut of [protobufPrefix.length + 3, good.length - 5, good.length - 1]) {
      expect(isBadRequest(thrown(() => decodeProtobufObject(good.subarray(0, cut))))).toBe(true);
    }
  });

  it("rejects a kind without a codec with a 415, and will not encode one (406)", () => {
    const wire = encodeEnvelope({ apiVersion: "v1", kind: "Pod", raw: new Uint8Array(0) });
    expect(isUnsupportedMediaType(thrown(() => decodeProtobufObject(wire)))).toBe(true);
    expect(isNotAcceptable(thrown(() => encodeProtobufObject({ apiVersion: "v1", kind: "Pod" })))).toBe(true);
  });

  it("never throws anything but a StatusError on arbitrary bytes", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.boolean(),
        fc.constantFrom("ConfigMap", "Secret", "Namespace", "Event", "DeleteOptions"),
        (tail, enveloped, kind) => {
          const wire = enveloped ? encodeEnvelope({ apiVersion: "v1", kind, raw: tail }) : bytes([...protobufPrefix], [...tail]);
          try {
            decodeProtobufObject(wire);
          } catch (error) {
            expect(error).toBeInstanceOf(StatusError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
