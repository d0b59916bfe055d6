import { describe, expect, it } from "vitest";
import { hasProtobufCodec, protobufKinds } from "./codecs.js";
import { encodeEnvelope } from "./envelope.js";
import { decodeProtobufObject, encodeProtobufObject } from "./protobuf-object.js";

const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));

const rbac = "rbac.authorization.k8s.io/v1";
const authorization = "authorization.k8s.io/v1";
const resourceAttributes = { namespace: "default", verb: "create", group: "apps", version: "v1", resource: "deployments", subresource: "scale", name: "web" };

const samples: Record<string, Record<string, unknown>> = {
  Role: {
    apiVersion: rbac,
    kind: "Role",
    metadata: { name: "pod-reader", namespace: "default", uid: "u-1", creationTimestamp: "2026-01-02T03:04:05Z" },
    rules: [
      { verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "pods/log"], resourceNames: ["a", "b"] },
      { verbs: ["*"], apiGroups: ["apps"], resources: ["*"] },
    ],
  },
  ClusterRole: {
    apiVersion: rbac,
    kind: "ClusterRole",
    metadata: { name: "monitoring", labels: { "rbac.example.com/aggregate-to-view": "true" } },
    rules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/metrics/*"] }],
    aggregationRule: {
      clusterRoleSelectors: [
        { matchLabels: { "rbac.example.com/aggregate-to-monitoring": "true" } },
        {
          matchExpressions: [
            { key: "team", operator: "In", values: ["ops", "sre"] },
            { key: "legacy", operator: "DoesNotExist" },
          ],
        },
      ],
    },
  },
  RoleBinding: {
    apiVersion: rbac,
    kind: "RoleBinding",
    metadata: { name: "read-pods", namespace: "default" },
    subjects: [
      { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "jane" },
      { kind: "ServiceAccount", name: "builder", namespace: "ci" },
    ],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" },
  },
  ClusterRoleBinding: {
    apiVersion: rbac,
    kind: "ClusterRoleBinding",
    metadata: { name: "ops-admin" },
    subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "ops" }],
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" },
  },
  SubjectAccessReview: {
    apiVersion: authorization,
    kind: "SubjectAccessReview",
    metadata: {},
    spec: { resourceAttributes, user: "alice", groups: ["dev", "system:authenticated"], extra: { scopes: ["read", "write"] }, uid: "u-1" },
    status: { allowed: false, denied: true, reason: "no rule", evaluationError: "a webhook failed" },
  },
  LocalSubjectAccessReview: {
    apiVersion: authorization,
    kind: "LocalSubjectAccessReview",
    metadata: { namespace: "default" },
    spec: { resourceAttributes: { namespace: "default", verb: "list", resource: "pods" }, groups: ["dev"] },
    status: { allowed: true, reason: "RBAC: allowed by RoleBinding" },
  },
  SelfSubjectAccessReview: {
    apiVersion: authorization,
    kind: "SelfSubjectAccessReview",
    metadata: {},
    spec: { nonResourceAttributes: { path: "/healthz", verb: "get" } },
    status: { allowed: true, denied: false },
  },
  SelfSubjectRulesReview: {
    apiVersion: authorization,
    kind: "SelfSubjectRulesReview",
    metadata: {},
    spec: { namespace: "default" },
    status: {
      resourceRules: [
        { verbs: ["create"], apiGroups: ["authorization.k8s.io"], resources: ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] },
        { verbs: ["get"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["settings"] },
      ],
      nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/api", "/api/*"] }],
      incomplete: false,
      evaluationError: "webhook: no rules",
    },
  },
};

describe("protobuf codecs of rbac.authorization and authorization", () => {
  for (const [kind, object] of Object.entries(samples)) {
    it(`round-trips a ${kind} with every field set`, () => {
      const decoded = decodeProtobufObject(encodeProtobufObject(object));
      expect(decoded.kind).toBe(kind);
      expect(decoded.apiVersion).toBe(object.apiVersion);
      expect(decoded.object).toEqual(object);
    });
  }

  it("matches the kinds in any domain's rbac.authorization and authorization groups only", () => {
    for (const kind of ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"]) {
      expect(hasProtobufCodec("rbac.authorization.orch.io/v1", kind)).toBe(true);
      expect(hasProtobufCodec("authorization.orch.io/v1", kind)).toBe(false);
    }
    for (const kind of ["SubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectAccessReview", "SelfSubjectRulesReview"]) {
      expect(hasProtobufCodec("authorization.k8s.io/v1", kind)).toBe(true);
      expect(hasProtobufCodec("authorization.k8s.io/v1beta1", kind)).toBe(false);
    }
    expect(hasProtobufCodec("rbac.authorization.k8s.io/v1beta1", "Role")).toBe(false);
  });

  it("reads a SelfSubjectAccessReview as kubectl auth can-i writes it (resourceAttributes 1: namespace 1, verb 2, resource 5)", () => {
    // SelfSubjectAccessReview{metadata(1){}, spec(2){resourceAttributes(1){namespace="default", verb="get", resource="pods"}}, status(3){allowed(1)=false, reason(2)=""}}
    const attributes = bytes([0x0a, 0x07], "default", [0x12, 0x03], "get", [0x1a, 0x00, 0x22, 0x00, 0x2a, 0x04], "pods", [0x32, 0x00, 0x3a, 0x00]);
    const spec = bytes([0x0a, attributes.length], [...attributes]);
    const status = bytes([0x08, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x20, 0x00]);
    const raw = bytes([0x0a, 0x00, 0x12, spec.length], [...spec], [0x1a, status.length], [...status]);
    const wire = encodeEnvelope({ apiVersion: authorization, kind: "SelfSubjectAccessReview", raw });
    expect(decodeProtobufObject(wire).object).toEqual({
      apiVersion: authorization,
      kind: "SelfSubjectAccessReview",
      metadata: {},
      spec: { resourceAttributes: { namespace: "default", verb: "get", resource: "pods" } },
      status: { allowed: false, denied: false },
    });
  });

  it("reads a RoleBinding as kubectl create rolebinding writes it (subjects 2, roleRef 3; empty apiGroup dropped)", () => {
    // RoleBinding{metadata(1){name="b"}, subjects(2){kind="ServiceAccount", apiGroup="", name="sa", namespace="ns"}, roleRef(3){apiGroup="rbac.authorization.k8s.io", kind="Role", name="r"}}
    const subject = bytes([0x0a, 0x0e], "ServiceAccount", [0x12, 0x00, 0x1a, 0x02], "sa", [0x22, 0x02], "ns");
    const roleRef = bytes([0x0a, 0x19], "rbac.authorization.k8s.io", [0x12, 0x04], "Role", [0x1a, 0x01], "r");
    const raw = bytes([0x0a, 0x03, 0x0a, 0x01], "b", [0x12, subject.length], [...subject], [0x1a, roleRef.length], [...roleRef]);
    const wire = encodeEnvelope({ apiVersion: rbac, kind: "RoleBinding", raw });
    expect(decodeProtobufObject(wire).object).toEqual({
      apiVersion: rbac,
      kind: "RoleBinding",
      metadata: { name: "b" },
      subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "ns" }],
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
    });
  });

  it("keeps the core group (an empty string) in a rule's apiGroups", () => {
    const role = { apiVersion: rbac, kind: "Role", metadata: { name: "r" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }] };
    expect(decodeProtobufObject(encodeProtobufObject(role)).object).toEqual(role);
  });
});

describe("protobuf codec of certificates", () => {
  const certificates = "certificates.k8s.io/v1";
  const csr = {
    apiVersion: certificates,
    kind: "CertificateSigningRequest",
    metadata: { name: "alice", uid: "u-1", creationTimestamp: "2026-01-02T03:04:05Z" },
    spec: {
      request: btoa("-----BEGIN CERTIFICATE REQUEST-----\n"),
      signerName: "kubernetes.io/kube-apiserver-client",
      expirationSeconds: 3600,
      usages: ["digital signature", "client auth"],
      username: "admin",
      uid: "uid-admin",
      groups: ["system:masters", "system:authenticated"],
      extra: { scopes: ["a", "b"] },
    },
    status: {
      conditions: [
        {
          type: "Approved",
          status: "True",
          reason: "KubectlApprove",
          message: "This CSR was approved by kubectl certificate approve.",
          lastUpdateTime: "2026-01-02T03:04:06Z",
          lastTransitionTime: "2026-01-02T03:04:06Z",
        },
      ],
      certificate: btoa("-----BEGIN CERTIFICATE-----\n"),
    },
  };

  it("round-trips a CertificateSigningRequest with every field set, in any domain's certificates group", () => {
    const decoded = decodeProtobufObject(encodeProtobufObject(csr));
    expect(decoded.object).toEqual(csr);
    expect(hasProtobufCodec("certificates.orch.io/v1", "CertificateSigningRequest")).toBe(true);
    expect(hasProtobufCodec("certificates.k8s.io/v1beta1", "CertificateSigningRequest")).toBe(false);
  });

  it("reads the reference's field numbers (signerName 7, a condition's status 6)", () => {
    // CertificateSigningRequest{metadata(1){name="c"}, spec(2){request(1)="r", signerName(7)="s"}, status(3){conditions(1){type(1)="Denied", status(6)="True"}}}
    const spec = bytes([0x0a, 0x01], "r", [0x3a, 0x01], "s");
    const condition = bytes([0x0a, 0x06], "Denied", [0x32, 0x04], "True");
    const status = bytes([0x0a, condition.length], [...condition]);
    const raw = bytes([0x0a, 0x03, 0x0a, 0x01], "c", [0x12, spec.length], [...spec], [0x1a, status.length], [...status]);
    expect(decodeProtobufObject(encodeEnvelope({ apiVersion: certificates, kind: "CertificateSigningRequest", raw })).object).toEqual({
      apiVersion: certificates,
      kind: "CertificateSigningRequest",
      metadata: { name: "c" },
      spec: { request: btoa("r"), signerName: "s" },
      status: { conditions: [{ type: "Denied", status: "True" }] },
    });
  });
});

describe("the apps/v1 Deployment codec", () => {
  it("reads Deployment bodies but answers them in JSON", () => {
    expect(hasProtobufCodec("apps/v1", "Deployment")).toBe(false);
    expect(protobufKinds.some((k) => k.kind === "Deployment")).toBe(false);
    expect(() => encodeProtobufObject({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" } })).toThrow();
  });

  it("decodes what kubectl create deployment writes", () => {
    const enc = new TextEncoder();
    const field = (tag: number, body: Uint8Array | string) => {
      const b = typeof body === "string" ? enc.encode(body) : body;
      return Uint8Array.from([tag, b.length, ...b]);
    };
    const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
    // ObjectMeta.labels is field 11 and LabelSelector.matchLabels field 1: map entries {key 1, value 2}
    const entry = cat(field(0x0a, "app"), field(0x12, "web"));
    const meta = cat(field(0x0a, "web"), field(0x5a, entry));
    const container = cat(field(0x0a, "nginx"), field(0x12, "nginx"), field(0x42, new Uint8Array(0)));
    const template = cat(field(0x0a, field(0x5a, entry)), field(0x12, field(0x12, container)));
    const maxSurge = cat(Uint8Array.from([0x08, 0x01]), field(0x1a, "30%"));
    const strategy = cat(field(0x0a, "RollingUpdate"), field(0x12, field(0x12, maxSurge)));
    const spec = cat(Uint8Array.from([0x08, 0x00]), field(0x12, field(0x0a, entry)), field(0x1a, template), field(0x22, strategy));
    const raw = cat(field(0x0a, meta), field(0x12, spec), field(0x1a, new Uint8Array(0)));
    const wire = encodeEnvelope({ apiVersion: "apps/v1", kind: "Deployment", raw });
    expect(decodeProtobufObject(wire).object).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", labels: { app: "web" } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx", resources: {} }] } },
        strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "30%" } },
      },
      status: {},
    });
  });
});

describe("the batch, policy and networking codecs", () => {
  const enc = new TextEncoder();
  const field = (tag: number, body: Uint8Array | string) => {
    const b = typeof body === "string" ? enc.encode(body) : body;
    return Uint8Array.from([tag, b.length, ...b]);
  };
  const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
  const meta = field(0x0a, field(0x0a, "x"));

  it("reads Job, CronJob, PodDisruptionBudget, HorizontalPodAutoscaler and Ingress bodies but answers them in JSON", () => {
    for (const [apiVersion, kind] of [
      ["autoscaling/v1", "HorizontalPodAutoscaler"],
      ["batch/v1", "Job"],
      ["batch/v1", "CronJob"],
      ["policy/v1", "PodDisruptionBudget"],
      ["networking.k8s.io/v1", "Ingress"],
    ] as const) {
      expect(hasProtobufCodec(apiVersion, kind)).toBe(false);
      expect(() => decodeProtobufObject(encodeEnvelope({ apiVersion, kind, raw: meta }))).not.toThrow();
    }
  });

  it("decodes a Job's template and keeps a backoffLimit of 0", () => {
    const container = cat(field(0x0a, "pi"), field(0x12, "busybox"));
    const podSpec = cat(field(0x12, container), field(0x1a, "Never"));
    // JobSpec.template is field 6, backoffLimit field 7
    const spec = cat(field(0x32, field(0x12, podSpec)), Uint8Array.from([0x38, 0x00]));
    const wire = encodeEnvelope({ apiVersion: "batch/v1", kind: "Job", raw: cat(meta, field(0x12, spec)) });
    expect(decodeProtobufObject(wire).object).toEqual({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "x" },
      spec: { backoffLimit: 0, template: { spec: { containers: [{ name: "pi", image: "busybox" }], restartPolicy: "Never" } } },
    });
  });

  it("decodes what kubectl autoscale writes, keeping a minReplicas of 0", () => {
    const target = cat(field(0x0a, "Deployment"), field(0x12, "web"), field(0x1a, "apps/v1"));
    // scaleTargetRef 1, minReplicas 2 (0), maxReplicas 3 (5), targetCPUUtilizationPercentage 4 (70)
    const spec = cat(field(0x0a, target), Uint8Array.from([0x10, 0x00, 0x18, 0x05, 0x20, 0x46]));
    const wire = encodeEnvelope({ apiVersion: "autoscaling/v1", kind: "HorizontalPodAutoscaler", raw: cat(meta, field(0x12, spec)) });
    expect(decodeProtobufObject(wire).object).toEqual({
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "x" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" }, minReplicas: 0, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
    });
  });

  it("decodes an Ingress rule's http inline, as its JSON has it", () => {
    const port = field(0x12, Uint8Array.from([0x10, 0x50]));
    const backend = field(0x22, cat(field(0x0a, "api"), port));
    const path = cat(field(0x0a, "/api"), field(0x12, backend), field(0x1a, "Prefix"));
    const rule = cat(field(0x0a, "example.com"), field(0x12, field(0x0a, field(0x0a, path))));
    const spec = cat(field(0x1a, rule), field(0x22, "nginx"));
    const wire = encodeEnvelope({ apiVersion: "networking.k8s.io/v1", kind: "Ingress", raw: cat(meta, field(0x12, spec)) });
    expect(decodeProtobufObject(wire).object).toEqual({
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "x" },
      spec: {
        ingressClassName: "nginx",
        rules: [{ host: "example.com", http: { paths: [{ path: "/api", pathType: "Prefix", backend: { service: { name: "api", port: { number: 80 } } } }] } }],
      },
    });
  });
});
