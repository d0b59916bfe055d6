import { StatusError, type APIObject } from "@orch/meta";
import { configMapType, namespaceType, podType, type ResourceType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import type { AdmissionAttributes } from "../attributes.js";
import { attributesFor, fakeServices, type AttributesInput, type FakeServices } from "../internal/testing.js";
import { isSignificantPodUpdate, podSecurity } from "./pod-security.js";

const deploymentType: ResourceType = { ...podType, group: "apps", resource: "deployments", singular: "deployment", kind: "Deployment", subresources: [] };
const cronJobType: ResourceType = { ...podType, group: "batch", resource: "cronjobs", singular: "cronjob", kind: "CronJob", subresources: [] };

const bareSpec = () => ({ containers: [{ name: "c", image: "app:1" }] });
const restrictedSpec = () => ({
  securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
  containers: [{ name: "c", image: "app:1", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
});
const pod = (name: string, spec: Record<string, unknown> = bareSpec(), extra: Record<string, unknown> = {}): APIObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns", ...extra },
  spec,
});
const ns = (name: string, labels: Record<string, string> = {}): APIObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });

interface Setup {
  services: FakeServices;
  validate(input: Omit<AttributesInput, "domain">): Promise<{ attrs: AdmissionAttributes; error: StatusError | undefined }>;
}

function setup(labels: Record<string, string>, options: { configuration?: unknown; domain?: string } = {}): Setup {
  const domain = options.domain ?? "orch.io";
  const services = fakeServices({ domain });
  services.put("", "namespaces", ns("ns", labels));
  const plugin = podSecurity({ services, configuration: options.configuration });
  return {
    services,
    async validate(input) {
      const attrs = attributesFor({ ...input, domain });
      try {
        await plugin.validate?.(attrs);
        return { attrs, error: undefined };
      } catch (error) {
        if (error instanceof StatusError) return { attrs, error };
        throw error;
      }
    },
  };
}

const enforce = (level: string, version?: string) => ({
  "pod-security.orch.io/enforce": level,
  ...(version ? { "pod-security.orch.io/enforce-version": version } : {}),
});

describe("PodSecurity on pods", () => {
  it("handles CREATE and UPDATE only, and ignores other resources", async () => {
    const s = setup(enforce("restricted"));
    expect(podSecurity({ services: s.services, configuration: undefined }).operations).toEqual(["CREATE", "UPDATE"]);
    const { attrs, error } = await s.validate({ operation: "CREATE", type: configMapType, object: { metadata: { name: "c", namespace: "ns" }, data: {} } });
    expect(error).toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({});
  });

  it("refuses a pod violating the enforce level with the reference's 403", async () => {
    const { attrs, error } = await setup(enforce("restricted")).validate({
      operation: "CREATE",
      type: podType,
      object: pod("p", { hostNetwork: true, ...bareSpec() }),
    });
    expect(error?.status.code).toBe(403);
    expect(error?.status.reason).toBe("Forbidden");
    expect(error?.message).toBe(
      'pods "p" is forbidden: violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    expect(attrs.auditAnnotations["pod-security.orch.io/enforce-policy"]).toBe("restricted:latest");
    expect(attrs.warnings).toEqual([]);
  });

  it("admits a compliant pod, recording the enforced policy", async () => {
    const { attrs, error } = await setup(enforce("restricted")).validate({ operation: "CREATE", type: podType, object: pod("p", restrictedSpec()) });
    expect(error).toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({ "pod-security.orch.io/enforce-policy": "restricted:latest" });
  });

  it("admits a pod without a security context at baseline", async () => {
    const { error } = await setup(enforce("baseline")).validate({ operation: "CREATE", type: podType, object: pod("p") });
    expect(error).toBeUndefined();
  });

  it("evaluates the enforce version: restricted:v1.21 does not yet require dropping capabilities", async () => {
    const spec = {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [{ name: "c", image: "i", securityContext: { allowPrivilegeEscalation: false } }],
    };
    expect((await setup(enforce("restricted", "v1.21")).validate({ operation: "CREATE", type: podType, object: pod("p", spec) })).error).toBeUndefined();
    const { error } = await setup(enforce("restricted", "v1.22")).validate({ operation: "CREATE", type: podType, object: pod("p", spec) });
    expect(error?.message).toBe(
      'pods "p" is forbidden: violates PodSecurity "restricted:v1.22": unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"])',
    );
  });

  it("warns and audits without refusing", async () => {
    const labels = { "pod-security.orch.io/warn": "baseline", "pod-security.orch.io/audit": "restricted", "pod-security.orch.io/audit-version": "v1.25" };
    const { attrs, error } = await setup(labels).validate({ operation: "CREATE", type: podType, object: pod("p", { hostPID: true, ...bareSpec() }) });
    expect(error).toBeUndefined();
    expect(attrs.warnings).toEqual(['would violate PodSecurity "baseline:latest": host namespaces (hostPID=true)']);
    expect(attrs.auditAnnotations["pod-security.orch.io/audit-violations"]).toMatch(
      /^would violate PodSecurity "restricted:v1\.25": host namespaces \(hostPID=true\), allowPrivilegeEscalation != false/,
    );
    expect(attrs.auditAnnotations["pod-security.orch.io/enforce-policy"]).toBe("privileged:latest");
  });

  it("audits even when it refuses, but does not warn", async () => {
    const labels = { ...enforce("baseline"), "pod-security.orch.io/audit": "baseline", "pod-security.orch.io/warn": "restricted" };
    const { attrs, error } = await setup(labels).validate({ operation: "CREATE", type: podType, object: pod("p", { hostIPC: true, ...bareSpec() }) });
    expect(error?.status.code).toBe(403);
    expect(attrs.auditAnnotations["pod-security.orch.io/audit-violations"]).toBe('would violate PodSecurity "baseline:latest": host namespaces (hostIPC=true)');
    expect(attrs.warnings).toEqual([]);
  });

  it("short-cuts a fully privileged namespace", async () => {
    const { attrs, error } = await setup({}).validate({ operation: "CREATE", type: podType, object: pod("p", { hostNetwork: true, ...bareSpec() }) });
    expect(error).toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({ "pod-security.orch.io/enforce-policy": "privileged:latest" });
  });

  it("fails closed on a bad enforce label and records the parse error", async () => {
    const { attrs, error } = await setup({ "pod-security.orch.io/enforce": "strict" }).validate({ operation: "CREATE", type: podType, object: pod("p") });
    expect(error?.message).toMatch(/^pods "p" is forbidden: violates PodSecurity "restricted:latest": /);
    expect(attrs.auditAnnotations["pod-security.orch.io/error"]).toBe(
      'Failed to parse policy: metadata.labels[pod-security.orch.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
  });

  it("uses the configured defaults for unlabelled namespaces", async () => {
    const configuration = { apiVersion: "pod-security.admission.config.orch.io/v1", kind: "PodSecurityConfiguration", defaults: { enforce: "baseline" } };
    const { error } = await setup({}, { configuration }).validate({
      operation: "CREATE",
      type: podType,
      object: pod("p", { hostNetwork: true, ...bareSpec() }),
    });
    expect(error?.message).toBe('pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)');
  });

  it("throws at construction on an invalid configuration", () => {
    const configuration = { apiVersion: "pod-security.admission.config.orch.io/v1", kind: "PodSecurityConfiguration", defaults: { warn: "loud" } };
    expect(() => podSecurity({ services: fakeServices(), configuration })).toThrow(
      'PodSecurity invalid: defaults.warn: Invalid value: "loud": must be one of privileged, baseline, restricted',
    );
  });

  it("reads the kubernetes.io labels under domain k8s.io", async () => {
    const { attrs, error } = await setup({ "pod-security.kubernetes.io/enforce": "baseline" }, { domain: "k8s.io" }).validate({
      operation: "CREATE",
      type: podType,
      object: pod("p", { hostPID: true, ...bareSpec() }),
    });
    expect(error?.message).toBe('pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostPID=true)');
    expect(attrs.auditAnnotations["pod-security.kubernetes.io/enforce-policy"]).toBe("baseline:latest");
  });

  it("answers 500 when the namespace cannot be read", async () => {
    const s = setup(enforce("restricted"));
    const { attrs, error } = await s.validate({ operation: "CREATE", type: podType, object: { ...pod("p"), metadata: { name: "p", namespace: "gone" } } });
    expect(error?.status.code).toBe(500);
    expect(error?.message).toBe('Internal error occurred: failed to lookup namespace "gone"');
    expect(attrs.auditAnnotations["pod-security.orch.io/error"]).toBe(
      'Internal error occurred: failed to lookup namespace "gone": namespaces "gone" not found',
    );
  });
});

describe("PodSecurity on pod updates and sub-resources", () => {
  it("does not evaluate updates that change no image", async () => {
    const old = pod("p", { hostNetwork: true, ...bareSpec() });
    const updated = pod("p", { hostNetwork: true, ...bareSpec() }, { labels: { a: "b" } });
    const { attrs, error } = await setup(enforce("baseline")).validate({ operation: "UPDATE", type: podType, object: updated, oldObject: old });
    expect(error).toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({});
  });

  it("evaluates updates that change an image", async () => {
    const old = pod("p", { hostNetwork: true, ...bareSpec() });
    const updated = pod("p", { hostNetwork: true, containers: [{ name: "c", image: "app:2" }] });
    const { error } = await setup(enforce("baseline")).validate({ operation: "UPDATE", type: podType, object: updated, oldObject: old });
    expect(error?.status.code).toBe(403);
  });

  it("evaluates added ephemeral containers (the ephemeralcontainers sub-resource)", async () => {
    const old = pod("p");
    const updated = pod("p", { ...bareSpec(), ephemeralContainers: [{ name: "debug", image: "busybox", securityContext: { privileged: true } }] });
    const { error } = await setup(enforce("baseline")).validate({
      operation: "UPDATE",
      type: podType,
      subresource: "ephemeralcontainers",
      object: updated,
      oldObject: old,
    });
    expect(error?.message).toBe(
      'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "debug" must not set securityContext.privileged=true)',
    );
  });

  it("ignores status, binding and eviction", async () => {
    const s = setup(enforce("baseline"));
    for (const subresource of ["status", "binding", "eviction"]) {
      const { attrs, error } = await s.validate({
        operation: subresource === "status" ? "UPDATE" : "CREATE",
        type: podType,
        subresource,
        object: pod("p", { hostNetwork: true, ...bareSpec() }),
        oldObject: pod("p"),
      });
      expect(error).toBeUndefined();
      expect(attrs.auditAnnotations).toEqual({});
    }
  });

  it("tells significant updates by container count, images and new ephemeral containers", () => {
    const a = pod("p", {
      containers: [{ name: "c", image: "1" }],
      initContainers: [{ name: "i", image: "1" }],
      ephemeralContainers: [{ name: "e", image: "1" }],
    });
    expect(isSignificantPodUpdate(a, a)).toBe(false);
    expect(isSignificantPodUpdate(pod("p", { ...(a["spec"] as object), initContainers: [{ name: "i", image: "2" }] }), a)).toBe(true);
    expect(isSignificantPodUpdate(pod("p", { ...(a["spec"] as object), containers: [] }), a)).toBe(true);
    expect(
      isSignificantPodUpdate(
        pod("p", {
          ...(a["spec"] as object),
          ephemeralContainers: [
            { name: "e", image: "1" },
            { name: "f", image: "1" },
          ],
        }),
        a,
      ),
    ).toBe(true);
  });
});

describe("PodSecurity exemptions", () => {
  const configuration = {
    apiVersion: "pod-security.admission.config.orch.io/v1beta1",
    kind: "PodSecurityConfiguration",
    exemptions: { usernames: ["system:admin"], namespaces: ["ns"], runtimeClasses: ["kata"] },
  };
  const bad = () => pod("p", { hostNetwork: true, ...bareSpec() });

  it("exempts namespaces", async () => {
    const { attrs, error } = await setup(enforce("restricted"), { configuration }).validate({ operation: "CREATE", type: podType, object: bad() });
    expect(error).toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({ "pod-security.orch.io/exempt": "namespace" });
  });

  it("exempts users", async () => {
    const c = { ...configuration, exemptions: { usernames: ["system:admin"] } };
    const s = setup(enforce("restricted"), { configuration: c });
    const { attrs, error } = await s.validate({ operation: "CREATE", type: podType, object: bad(), user: { name: "system:admin" } });
    expect(error).toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({ "pod-security.orch.io/exempt": "user" });
    expect((await s.validate({ operation: "CREATE", type: podType, object: bad() })).error?.status.code).toBe(403);
  });

  it("exempts runtime classes", async () => {
    const c = { ...configuration, exemptions: { runtimeClasses: ["kata"] } };
    const { attrs, error } = await setup(enforce("restricted"), { configuration: c }).validate({
      operation: "CREATE",
      type: podType,
      object: pod("p", { hostNetwork: true, runtimeClassName: "kata", ...bareSpec() }),
    });
    expect(error).toBeUndefined();
    expect(attrs.auditAnnotations).toEqual({ "pod-security.orch.io/exempt": "runtimeClass" });
  });
});

describe("PodSecurity on workload templates", () => {
  const deployment = (spec: Record<string, unknown>): APIObject => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", namespace: "ns" },
    spec: { selector: {}, template: { metadata: { labels: { app: "a" } }, spec } },
  });

  it("warns and audits but never enforces", async () => {
    const { attrs, error } = await setup(enforce("baseline")).validate({
      operation: "CREATE",
      type: deploymentType,
      object: deployment({ hostNetwork: true, ...bareSpec() }),
    });
    expect(error).toBeUndefined();
    expect(attrs.warnings).toEqual(['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)']);
    expect(attrs.auditAnnotations["pod-security.orch.io/enforce-policy"]).toBeUndefined();
  });

  it("reads a CronJob's job template", async () => {
    const cronJob: APIObject = {
      metadata: { name: "cj", namespace: "ns" },
      spec: { jobTemplate: { spec: { template: { spec: { hostPID: true, ...bareSpec() } } } } },
    };
    const { attrs } = await setup({ "pod-security.orch.io/audit": "baseline" }).validate({
      operation: "UPDATE",
      type: cronJobType,
      object: cronJob,
      oldObject: cronJob,
    });
    expect(attrs.auditAnnotations["pod-security.orch.io/audit-violations"]).toBe('would violate PodSecurity "baseline:latest": host namespaces (hostPID=true)');
    expect(attrs.warnings).toEqual([]);
  });

  it("skips when warn and audit are privileged, and records a missing namespace", async () => {
    const { attrs } = await setup(enforce("baseline", "v1.30")).validate({
      operation: "CREATE",
      type: deploymentType,
      object: { ...deployment(bareSpec()), metadata: { name: "d", namespace: "gone" } },
    });
    expect(attrs.auditAnnotations["pod-security.orch.io/error"]).toBe('failed to lookup namespace "gone": namespaces "gone" not found');
    const warnOff = { ...enforce("restricted"), "pod-security.orch.io/warn": "privileged" };
    const { attrs: quiet } = await setup(warnOff).validate({
      operation: "CREATE",
      type: deploymentType,
      object: deployment({ hostNetwork: true, ...bareSpec() }),
    });
    expect(quiet.warnings).toEqual([]);
    expect(quiet.auditAnnotations).toEqual({});
  });
});

describe("PodSecurity on namespaces", () => {
  it("refuses invalid labels on create with 422", async () => {
    const { error } = await setup({}).validate({ operation: "CREATE", type: namespaceType, object: ns("x", { "pod-security.orch.io/enforce": "strict" }) });
    expect(error?.status.code).toBe(422);
    expect(error?.message).toBe(
      'Namespace "x" is invalid: metadata.labels[pod-security.orch.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
  });

  it("lets an update keep the same invalid labels but not add new ones", async () => {
    const s = setup({});
    const old = ns("x", { "pod-security.orch.io/warn": "loud" });
    expect(
      (await s.validate({ operation: "UPDATE", type: namespaceType, object: ns("x", { "pod-security.orch.io/warn": "loud", team: "a" }), oldObject: old }))
        .error,
    ).toBeUndefined();
    const { error } = await s.validate({
      operation: "UPDATE",
      type: namespaceType,
      object: ns("x", { "pod-security.orch.io/warn": "louder" }),
      oldObject: old,
    });
    expect(error?.status.code).toBe(422);
  });

  it("warns about existing pods violating a stricter enforce level", async () => {
    const s = setup(enforce("baseline"));
    s.services.put("", "pods", pod("web-1", { hostNetwork: true, ...bareSpec() }));
    s.services.put("", "pods", pod("web-2", { hostNetwork: true, ...bareSpec() }));
    s.services.put("", "pods", pod("ok", restrictedSpec()));
    const { attrs, error } = await s.validate({
      operation: "UPDATE",
      type: namespaceType,
      object: ns("ns", enforce("restricted")),
      oldObject: ns("ns", enforce("baseline")),
    });
    expect(error).toBeUndefined();
    expect(attrs.warnings).toEqual([
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"',
      "web-1 (and 1 other pod): host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
    ]);
  });

  it("checks existing pods when the version changes, not when the level gets looser or privileged", async () => {
    const s = setup({});
    s.services.put("", "pods", pod("p", { hostNetwork: true, ...bareSpec() }));
    const update = async (from: Record<string, string>, to: Record<string, string>) =>
      (await s.validate({ operation: "UPDATE", type: namespaceType, object: ns("ns", to), oldObject: ns("ns", from) })).attrs.warnings;
    expect(await update(enforce("restricted"), enforce("baseline"))).toEqual([]);
    expect(await update(enforce("restricted"), enforce("privileged"))).toEqual([]);
    expect(await update(enforce("baseline"), enforce("baseline"))).toEqual([]);
    expect(await update(enforce("baseline", "v1.20"), enforce("baseline", "v1.30"))).toEqual([
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:v1.30"',
      "p: host namespaces",
    ]);
  });

  it("warns that an exempt namespace's labels are ignored", async () => {
    const configuration = {
      apiVersion: "pod-security.admission.config.orch.io/v1",
      kind: "PodSecurityConfiguration",
      exemptions: { namespaces: ["orch-system"] },
    };
    const s = setup({}, { configuration });
    const { attrs } = await s.validate({ operation: "CREATE", type: namespaceType, object: ns("orch-system", enforce("restricted")) });
    expect(attrs.warnings).toEqual(['namespace "orch-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored']);
    const { attrs: updated } = await s.validate({
      operation: "UPDATE",
      type: namespaceType,
      object: ns("orch-system", enforce("baseline")),
      oldObject: ns("orch-system"),
    });
    expect(updated.warnings).toEqual(['namespace "orch-system" is exempt from Pod Security, and the policy (enforce=baseline:latest) will be ignored']);
  });

  it("ignores namespace sub-resources", async () => {
    const { error } = await setup({}).validate({
      operation: "UPDATE",
      type: namespaceType,
      subresource: "status",
      object: ns("x", { "pod-security.orch.io/enforce": "strict" }),
      oldObject: ns("x"),
    });
    expect(error).toBeUndefined();
  });
});
