import type { APIObject } from "@orch/meta";
import { configMapType, defaultPod, podType, validatePod } from "@orch/resources";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AdmissionAttributes } from "../attributes.js";
import { attributesFor, fakeServices, type FakeServices } from "../internal/testing.js";
import { serviceAccount } from "./service-account.js";

type Spec = Record<string, unknown>;

function pod(spec: Spec = {}, annotations?: Record<string, string>): APIObject {
  const object: APIObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "dev", ...(annotations ? { annotations } : {}) },
    spec: { containers: [{ name: "app", image: "nginx:1.27" }], ...spec },
  };
  defaultPod(object);
  return object;
}

function account(name = "default", extra: Record<string, unknown> = {}, annotations?: Record<string, string>): APIObject {
  return { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: "dev", ...(annotations ? { annotations } : {}) }, ...extra };
}

function setup(domain = "orch.io", ...accounts: APIObject[]) {
  const services = fakeServices({ domain });
  for (const a of accounts) services.put("", "serviceaccounts", a);
  const reads: string[] = [];
  const get = services.get.bind(services);
  services.get = (group, resource, namespace, name) => {
    reads.push(`${resource}/${namespace}/${name}`);
    return get(group, resource, namespace, name);
  };
  return { services, reads, plugin: serviceAccount({ services, configuration: undefined }) };
}

const create = (object: APIObject, domain = "orch.io") => attributesFor({ operation: "CREATE", type: podType, object, domain });
const specOf = (attrs: AdmissionAttributes) => attrs.object?.["spec"] as Spec & { volumes?: Spec[]; containers: Spec[]; initContainers?: Spec[] };

/** Admits then validates, as the chain does. */
async function admitAndValidate(plugin: ReturnType<typeof serviceAccount>, attrs: AdmissionAttributes): Promise<void> {
  await plugin.admit?.(attrs);
  await plugin.validate?.(attrs);
}

const tokenVolume = (name: string, rootCA = "orch-root-ca.crt") => ({
  name,
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
      { configMap: { name: rootCA, items: [{ key: "ca.crt", path: "ca.crt" }] } },
      { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
    ],
  },
});

const volumeName = /^orch-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

afterEach(() => {
  vi.useRealTimers();
});

describe("ServiceAccount: defaulting and the token volume", () => {
  it("looks at CREATE and UPDATE in both phases", () => {
    const { plugin } = setup();
    expect(plugin.name).toBe("ServiceAccount");
    expect(plugin.operations).toEqual(["CREATE", "UPDATE"]);
    expect(plugin.admit).toBeTypeOf("function");
    expect(plugin.validate).toBeTypeOf("function");
  });

  it("gives a pod the default account and mounts the projected token volume in every container", async () => {
    const { plugin } = setup("orch.io", account());
    const attrs = create(pod({ initContainers: [{ name: "init", image: "busybox:1" }] }));
    await admitAndValidate(plugin, attrs);
    const spec = specOf(attrs);
    expect(spec["serviceAccountName"]).toBe("default");
    expect(spec["serviceAccount"]).toBe("default");
    expect(spec.volumes).toHaveLength(1);
    const name = String(spec.volumes?.[0]?.["name"]);
    expect(name).toMatch(volumeName);
    expect(spec.volumes?.[0]).toEqual(tokenVolume(name));
    const mount = { name, readOnly: true, mountPath: "/var/run/secrets/orch.io/serviceaccount" };
    expect(spec.containers[0]?.["volumeMounts"]).toEqual([mount]);
    expect(spec.initContainers?.[0]?.["volumeMounts"]).toEqual([mount]);
    // The pod still passes the Pod strategy's validation.
    expect(validatePod(attrs.object as APIObject, { domain: "orch.io" })).toEqual([]);
    expect(podType.strategy?.validate?.(attrs.object as APIObject, { domain: "orch.io", now: 0 })).toEqual([]);
  });

  it("uses the reference's names under domain k8s.io", async () => {
    const { plugin } = setup("k8s.io", account());
    const attrs = create(pod(), "k8s.io");
    await admitAndValidate(plugin, attrs);
    const spec = specOf(attrs);
    const name = String(spec.volumes?.[0]?.["name"]);
    expect(name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(spec.volumes?.[0]).toEqual(tokenVolume(name, "kube-root-ca.crt"));
    expect(spec.containers[0]?.["volumeMounts"]).toEqual([{ name, readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }]);
    expect(validatePod(attrs.object as APIObject, { domain: "k8s.io" })).toEqual([]);
  });

  it("keeps a named account and leaves containers that mount something at the token path alone", async () => {
    const { plugin } = setup("orch.io", account("builder"));
    const own = { name: "mine", mountPath: "/var/run/secrets/orch.io/serviceaccount" };
    const attrs = create(
      pod({
        serviceAccountName: "builder",
        volumes: [{ name: "mine", emptyDir: {} }],
        containers: [
          { name: "a", image: "nginx:1", volumeMounts: [own] },
          { name: "b", image: "nginx:1" },
        ],
      }),
    );
    await admitAndValidate(plugin, attrs);
    const spec = specOf(attrs);
    expect(spec["serviceAccountName"]).toBe("builder");
    expect(spec.containers[0]?.["volumeMounts"]).toEqual([own]);
    const added = spec.volumes?.[1];
    expect(spec.containers[1]?.["volumeMounts"]).toEqual([{ name: added?.["name"], readOnly: true, mountPath: "/var/run/secrets/orch.io/serviceaccount" }]);
    expect(validatePod(attrs.object as APIObject)).toEqual([]);
  });

  it("adds no volume when every container already mounts the token path", async () => {
    const { plugin } = setup("orch.io", account());
    const attrs = create(
      pod({
        volumes: [{ name: "mine", emptyDir: {} }],
        containers: [{ name: "a", image: "nginx:1", volumeMounts: [{ name: "mine", mountPath: "/var/run/secrets/orch.io/serviceaccount" }] }],
      }),
    );
    await admitAndValidate(plugin, attrs);
    expect(specOf(attrs).volumes).toEqual([{ name: "mine", emptyDir: {} }]);
  });

  it("reuses a token volume the pod already has", async () => {
    const { plugin } = setup("orch.io", account());
    const existing = tokenVolume("orch-api-access-abcde");
    const attrs = create(pod({ volumes: [existing] }));
    await admitAndValidate(plugin, attrs);
    const spec = specOf(attrs);
    expect(spec.volumes).toHaveLength(1);
    expect(spec.containers[0]?.["volumeMounts"]).toEqual([
      { name: "orch-api-access-abcde", readOnly: true, mountPath: "/var/run/secrets/orch.io/serviceaccount" },
    ]);
  });

  it("mounts nothing when the pod, or else the account, turns automounting off", async () => {
    const { plugin } = setup("orch.io", account(), account("quiet", { automountServiceAccountToken: false }));
    const podOff = create(pod({ automountServiceAccountToken: false }));
    await admitAndValidate(plugin, podOff);
    expect(specOf(podOff).volumes).toBeUndefined();
    expect(specOf(podOff).containers[0]?.["volumeMounts"]).toBeUndefined();
    const accountOff = create(pod({ serviceAccountName: "quiet" }));
    await admitAndValidate(plugin, accountOff);
    expect(specOf(accountOff).volumes).toBeUndefined();
    const podWins = create(pod({ serviceAccountName: "quiet", automountServiceAccountToken: true }));
    await admitAndValidate(plugin, podWins);
    expect(specOf(podWins).volumes).toHaveLength(1);
  });

  it("copies the account's pull secrets into a pod that has none", async () => {
    const { plugin } = setup("orch.io", account("default", { imagePullSecrets: [{ name: "registry" }] }));
    const bare = create(pod());
    await admitAndValidate(plugin, bare);
    expect(specOf(bare)["imagePullSecrets"]).toEqual([{ name: "registry" }]);
    const own = create(pod({ imagePullSecrets: [{ name: "mine" }] }));
    await admitAndValidate(plugin, own);
    expect(specOf(own)["imagePullSecrets"]).toEqual([{ name: "mine" }]);
  });

  it("leaves other resources, pod sub-resources and pod updates alone", async () => {
    const { plugin, reads } = setup();
    const configMap: APIObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "dev" } };
    await admitAndValidate(plugin, attributesFor({ operation: "CREATE", type: configMapType, object: configMap }));
    await admitAndValidate(plugin, attributesFor({ operation: "UPDATE", type: podType, object: pod(), oldObject: pod(), subresource: "status" }));
    const update = attributesFor({ operation: "UPDATE", type: podType, object: pod(), oldObject: pod() });
    await admitAndValidate(plugin, update);
    expect(specOf(update)["serviceAccountName"]).toBeUndefined();
    expect(reads).toEqual([]);
  });
});

describe("ServiceAccount: the account must exist", () => {
  it("refuses a pod whose named account is missing with 403, after one live read", async () => {
    const { plugin, reads } = setup();
    const attrs = create(pod({ serviceAccountName: "builder" }));
    await expect(plugin.admit?.(attrs)).rejects.toMatchObject({
      code: 403,
      reason: "Forbidden",
      message: 'pods "web" is forbidden: error looking up service account dev/builder: serviceaccount "builder" not found',
    });
    expect(reads).toEqual(["serviceaccounts/dev/builder"]);
  });

  it("reads a missing default account ten times over about a second before refusing", async () => {
    vi.useFakeTimers();
    const { plugin, reads } = setup();
    const result = Promise.resolve(plugin.admit?.(create(pod()))).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await result).toMatchObject({
      code: 403,
      message: 'pods "web" is forbidden: error looking up service account dev/default: serviceaccount "default" not found',
    });
    expect(reads).toHaveLength(10);
  });

  it("admits the pod once the default account appears during the retries", async () => {
    vi.useFakeTimers();
    const { plugin, services } = setup();
    const attrs = create(pod());
    const result = Promise.resolve(plugin.admit?.(attrs));
    await vi.advanceTimersByTimeAsync(250);
    services.put("", "serviceaccounts", account());
    await vi.advanceTimersByTimeAsync(200);
    await expect(result).resolves.toBeUndefined();
    expect(specOf(attrs).volumes).toHaveLength(1);
  });

  it("refuses, when validating a create, a pod that names no account", async () => {
    const { plugin } = setup();
    await expect(plugin.validate?.(create(pod()))).rejects.toMatchObject({
      code: 403,
      message: 'pods "web" is forbidden: no service account specified for pod dev/web',
    });
  });

  it("reports a failed lookup's own error", async () => {
    const { plugin, services } = setup();
    services.get = async () => {
      throw new Error("etcd is away");
    };
    await expect(plugin.admit?.(create(pod({ serviceAccountName: "x" })))).rejects.toMatchObject({
      code: 403,
      message: 'pods "web" is forbidden: error looking up service account dev/x: etcd is away',
    });
  });
});

describe("ServiceAccount: mountable secrets", () => {
  const enforce = { "orch.io/enforce-mountable-secrets": "true" };
  const strict = (extra: Record<string, unknown> = {}) => account("strict", { secrets: [{ name: "allowed" }], ...extra }, enforce);
  const refused = async (services: FakeServices, spec: Spec, message: string) => {
    const plugin = serviceAccount({ services, configuration: undefined });
    await expect(admitAndValidate(plugin, create(pod({ serviceAccountName: "strict", ...spec })))).rejects.toMatchObject({
      code: 403,
      message: `pods "web" is forbidden: ${message}`,
    });
  };

  it("refuses secret volumes, environment references and pull secrets the account does not list", async () => {
    const { services } = setup("orch.io", strict());
    await refused(
      services,
      { volumes: [{ name: "s", secret: { secretName: "other" } }] },
      'volume with secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    await refused(
      services,
      { initContainers: [{ name: "init", image: "busybox:1", env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "other", key: "k" } } }] }] },
      'init container init with envVar TOKEN referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    await refused(
      services,
      { containers: [{ name: "app", image: "nginx:1", envFrom: [{ secretRef: { name: "other" } }] }] },
      'container app with envFrom referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    );
    await refused(
      services,
      { imagePullSecrets: [{ name: "pull" }] },
      'imagePullSecrets[0].name="pull" is not allowed because service account strict does not reference that imagePullSecret',
    );
  });

  it("admits the secrets the account lists, and does not enforce without the annotation", async () => {
    const { plugin } = setup("orch.io", strict({ imagePullSecrets: [{ name: "pull" }] }), account("lax"));
    const allowed = create(
      pod({
        serviceAccountName: "strict",
        volumes: [{ name: "s", secret: { secretName: "allowed" } }],
        imagePullSecrets: [{ name: "pull" }],
        containers: [{ name: "app", image: "nginx:1", env: [{ name: "T", valueFrom: { secretKeyRef: { name: "allowed", key: "k" } } }] }],
      }),
    );
    await expect(admitAndValidate(plugin, allowed)).resolves.toBeUndefined();
    const lax = create(pod({ serviceAccountName: "lax", volumes: [{ name: "s", secret: { secretName: "anything" } }] }));
    await expect(admitAndValidate(plugin, lax)).resolves.toBeUndefined();
  });

  it("checks ephemeral containers on an update of pods/ephemeralcontainers", async () => {
    const { plugin } = setup("orch.io", strict());
    const withDebug = pod({
      serviceAccountName: "strict",
      ephemeralContainers: [{ name: "debug", image: "busybox:1", env: [{ name: "T", valueFrom: { secretKeyRef: { name: "other", key: "k" } } }] }],
    });
    const attrs = attributesFor({
      operation: "UPDATE",
      type: podType,
      object: withDebug,
      oldObject: pod({ serviceAccountName: "strict" }),
      subresource: "ephemeralcontainers",
    });
    await expect(plugin.validate?.(attrs)).rejects.toMatchObject({
      code: 403,
      message:
        'pods "web" is forbidden: ephemeral container debug with envVar T referencing secret.secretName="other" is not allowed because service account strict does not reference that secret',
    });
    const unnamed = attributesFor({ operation: "UPDATE", type: podType, object: pod(), oldObject: pod(), subresource: "ephemeralcontainers" });
    await expect(plugin.validate?.(unnamed)).rejects.toMatchObject({ message: 'pods "web" is forbidden: no service account specified for pod dev/web' });
  });
});

describe("ServiceAccount: mirror pods", () => {
  const mirror = { "orch.io/config.mirror": "abc" };

  it("leaves a mirror pod unchanged and looks up no account", async () => {
    const { plugin, reads } = setup();
    const attrs = create(pod({}, mirror));
    const before = structuredClone(attrs.object);
    await admitAndValidate(plugin, attrs);
    expect(attrs.object).toEqual(before);
    expect(reads).toEqual([]);
  });

  it.each([
    [{ serviceAccountName: "default" }, "a mirror pod may not reference service accounts"],
    [{ volumes: [{ name: "s", secret: { secretName: "s1" } }] }, "a mirror pod may not reference secrets"],
    [{ imagePullSecrets: [{ name: "pull" }] }, "a mirror pod may not reference secrets"],
    [
      { containers: [{ name: "a", image: "x:1", env: [{ name: "E", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }] }] },
      "a mirror pod may not reference secrets",
    ],
    [{ volumes: [{ name: "c", csi: { driver: "d", nodePublishSecretRef: { name: "s" } } }] }, "a mirror pod may not reference secrets"],
    [{ volumes: [tokenVolume("t")] }, "a mirror pod may not use ServiceAccountToken volume projections"],
  ])("refuses a mirror pod with %j: %s", async (spec, message) => {
    const { plugin } = setup("orch.io", account());
    await expect(plugin.admit?.(create(pod(spec, mirror)))).rejects.toMatchObject({ code: 403, message: `pods "web" is forbidden: ${message}` });
  });

  it("knows mirror pods by kubernetes.io/config.mirror under domain k8s.io", async () => {
    const { plugin } = setup("k8s.io");
    await expect(plugin.admit?.(create(pod({ serviceAccountName: "x" }, { "kubernetes.io/config.mirror": "abc" }), "k8s.io"))).rejects.toMatchObject({
      message: 'pods "web" is forbidden: a mirror pod may not reference service accounts',
    });
  });
});
