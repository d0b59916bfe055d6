import type { APIObject } from "@orch/meta";
import { persistentVolumeType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { persistentVolumeLabel } from "./persistent-volume-label.js";

function setup(domain = "orch.io") {
  const services = fakeServices({ domain });
  return { services, plugin: persistentVolumeLabel({ services, configuration: undefined }) };
}

function volume(options: { labels?: Record<string, string>; provisioned?: boolean; spec?: Record<string, unknown> } = {}): APIObject {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: {
      name: "vol",
      ...(options.labels ? { labels: options.labels } : {}),
      ...(options.provisioned ? { annotations: { "pv.orch.io/provisioned-by": "csi.example.com" } } : {}),
    },
    spec: options.spec ?? { capacity: { storage: "1Gi" }, hostPath: { path: "/tmp" } },
  };
}

/** Runs the (synchronous) admit as a promise, so refusals are rejections. */
const admit = async (plugin: ReturnType<typeof persistentVolumeLabel>, attrs: ReturnType<typeof attributesFor>) => plugin.admit?.(attrs);

const create = (object: APIObject, domain?: string) =>
  attributesFor({ operation: "CREATE", type: persistentVolumeType, object, ...(domain ? { domain } : {}) });

describe("PersistentVolumeLabel", () => {
  it("logs the deprecation once, when built, and admits CREATE only", async () => {
    const { services, plugin } = setup();
    await plugin.admit?.(create(volume()));
    await plugin.admit?.(create(volume()));
    expect(services.logged).toEqual([
      "PersistentVolumeLabel admission controller is deprecated. Please remove this controller from your configuration files and scripts.",
    ]);
    expect(plugin.name).toBe("PersistentVolumeLabel");
    expect(plugin.operations).toEqual(["CREATE"]);
  });

  it("leaves a volume of no cloud source untouched", async () => {
    const { plugin } = setup();
    const attrs = create(volume({ labels: { app: "db" } }));
    await plugin.admit?.(attrs);
    expect(attrs.object).toEqual(volume({ labels: { app: "db" } }));
  });

  it("trusts the zone and region of a dynamically provisioned volume and pins it there", async () => {
    const { plugin } = setup();
    const labels = { "topology.orch.io/zone": "z2__z1", "topology.orch.io/region": "r1", app: "db" };
    const attrs = create(volume({ labels, provisioned: true }));
    await plugin.admit?.(attrs);
    expect(attrs.object?.metadata.labels).toEqual(labels);
    expect(attrs.object?.["spec"]).toMatchObject({
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: "topology.orch.io/zone", operator: "In", values: ["z1", "z2"] },
                { key: "topology.orch.io/region", operator: "In", values: ["r1"] },
              ],
            },
          ],
        },
      },
    });
  });

  it("uses the beta failure-domain labels when the GA pair is incomplete", async () => {
    const { plugin } = setup();
    const labels = { "failure-domain.beta.orch.io/zone": "z1", "failure-domain.beta.orch.io/region": "r1", "topology.orch.io/zone": "z9" };
    const attrs = create(volume({ labels, provisioned: true }));
    await plugin.admit?.(attrs);
    const terms = (attrs.object?.["spec"] as { nodeAffinity: { required: { nodeSelectorTerms: { matchExpressions: { key: string }[] }[] } } }).nodeAffinity
      .required.nodeSelectorTerms;
    expect(terms[0]?.matchExpressions.map((e) => e.key)).toEqual(["failure-domain.beta.orch.io/zone", "failure-domain.beta.orch.io/region"]);
  });

  it("appends to every existing term, and skips when a term already constrains a key", async () => {
    const { plugin } = setup();
    const labels = { "topology.orch.io/zone": "z1", "topology.orch.io/region": "r1" };
    const spec = (terms: unknown[]) => ({ hostPath: { path: "/x" }, nodeAffinity: { required: { nodeSelectorTerms: terms } } });
    const two = create(volume({ labels, provisioned: true, spec: spec([{ matchExpressions: [{ key: "a", operator: "Exists" }] }, {}]) }));
    await plugin.admit?.(two);
    const terms = (two.object?.["spec"] as { nodeAffinity: { required: { nodeSelectorTerms: { matchExpressions: unknown[] }[] } } }).nodeAffinity.required
      .nodeSelectorTerms;
    expect(terms.map((t) => t.matchExpressions.length)).toEqual([3, 2]);

    const taken = spec([{ matchExpressions: [{ key: "topology.orch.io/zone", operator: "In", values: ["z1"] }] }]);
    const skip = create(volume({ labels, provisioned: true, spec: taken }));
    await plugin.admit?.(skip);
    expect(skip.object?.["spec"]).toEqual(taken);
  });

  it("refuses a zone label with an empty zone", async () => {
    const { plugin } = setup();
    const attrs = create(volume({ labels: { "topology.orch.io/zone": "z1____z2", "topology.orch.io/region": "r1" }, provisioned: true }));
    await expect(admit(plugin, attrs)).rejects.toMatchObject({
      status: { code: 403, message: 'persistentvolumes "vol" is forbidden: failed to convert label string for Zone: z1____z2 to a Set' },
    });
  });

  it("refuses a cloud volume no provider can look up, with the reference's message", async () => {
    const { plugin } = setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ gcePersistentDisk: { pdName: "disk-1" } }, "error querying GCE PD volume disk-1: unable to build GCE cloud provider for PD"],
      [{ awsElasticBlockStore: { volumeID: "vol-1" } }, "error querying AWS EBS volume vol-1: unable to build AWS cloud provider for EBS"],
      [{ azureDisk: { diskName: "d", diskURI: "u" } }, "error querying AzureDisk volume d: unable to build Azure cloud provider for AzureDisk"],
      [{ cinder: { volumeID: "c1" } }, "error querying Cinder volume c1: unable to build OpenStack cloud provider for Cinder disk"],
      [{ vsphereVolume: { volumePath: "[ds] v.vmdk" } }, "error querying vSphere Volume [ds] v.vmdk: unable to build vSphere cloud provider"],
    ];
    for (const [spec, message] of cases) {
      await expect(admit(plugin, create(volume({ spec })))).rejects.toMatchObject({
        status: { code: 403, message: `persistentvolumes "vol" is forbidden: ${message}` },
      });
    }
  });

  it("lets the provisioners' placeholder volumes pass", async () => {
    const { plugin } = setup();
    const attrs = create(volume({ spec: { gcePersistentDisk: { pdName: "placeholder-for-provisioning" } } }));
    await expect(admit(plugin, attrs)).resolves.toBeUndefined();
    expect(attrs.object?.metadata.labels).toBeUndefined();
  });

  it("trusts a provisioned cloud volume's own labels instead of refusing it", async () => {
    const { plugin } = setup();
    const labels = { "topology.orch.io/zone": "z1", "topology.orch.io/region": "r1" };
    const attrs = create(volume({ labels, provisioned: true, spec: { gcePersistentDisk: { pdName: "disk-1" } } }));
    await expect(admit(plugin, attrs)).resolves.toBeUndefined();
  });

  it("uses kubernetes.io keys under domain k8s.io", async () => {
    const { plugin } = setup("k8s.io");
    const object = volume({ labels: { "topology.kubernetes.io/zone": "z1", "topology.kubernetes.io/region": "r1" } });
    object.metadata.annotations = { "pv.kubernetes.io/provisioned-by": "x" };
    const attrs = create(object, "k8s.io");
    await plugin.admit?.(attrs);
    expect(JSON.stringify(attrs.object?.["spec"])).toContain("topology.kubernetes.io/zone");
  });
});
