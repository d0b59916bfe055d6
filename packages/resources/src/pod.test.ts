import { formatFieldError, isBadRequest, isConflict, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  defaultPod,
  podBindingAction,
  podEvictionAction,
  podQOSClass,
  podReadyCell,
  podRestartsCell,
  podStatusCell,
  podType,
  validatePod,
  validatePodCreate,
  validatePodStatusUpdate,
  validatePodUpdate,
} from "./pod.js";

const ctx = { domain: "orch.io", now: 0 };

function pod(spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): APIObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns" },
    spec: { containers: [{ name: "c", image: "nginx:1.25" }], ...spec },
    ...extra,
  };
}

function withVolume(volume: Record<string, unknown>, mount = false): APIObject {
  const v = { name: "v", ...volume };
  return pod({ volumes: [v], containers: [{ name: "c", image: "nginx:1.25", ...(mount ? { volumeMounts: [{ name: "v", mountPath: "/v" }] } : {}) }] });
}

function check(object: APIObject): FieldError[] {
  defaultPod(object);
  return validatePod(object, ctx);
}

const causes = (errors: FieldError[]) => errors.map((e) => ({ field: e.field, type: e.type }));

describe("Pod", () => {
  it("is a namespaced core v1 kind with short name po, status, binding, eviction and the connect sub-resources", () => {
    expect(podType).toMatchObject({
      group: "",
      resource: "pods",
      kind: "Pod",
      scope: "Namespaced",
      shortNames: ["po"],
      subresources: ["status", "binding", "eviction", "ephemeralcontainers", "log", "exec", "attach", "portforward", "proxy"],
    });
    expect(Object.keys(podType.strategy?.actions ?? {})).toEqual(["binding", "eviction"]);
  });

  it("defaults the pod, its containers and its volumes as the reference does", () => {
    const p = pod({
      containers: [
        {
          name: "a",
          image: "nginx",
          ports: [{ containerPort: 80 }],
          resources: { limits: { cpu: "1" } },
          env: [{ name: "N", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
        },
        { name: "b", image: "nginx:1.25" },
      ],
      volumes: [
        { name: "none" },
        { name: "cm", configMap: { name: "x" } },
        { name: "s", secret: { secretName: "x" } },
        { name: "d", downwardAPI: { items: [{ path: "n", fieldRef: { fieldPath: "metadata.name" } }] } },
        { name: "pr", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } },
        { name: "az", azureDisk: { diskName: "d", diskURI: "u" } },
        { name: "is", iscsi: { targetPortal: "1.2.3.4", iqn: "iqn.2001-04.com.example:storage", lun: 0 } },
        { name: "sc", scaleIO: { gateway: "g", system: "s", volumeName: "v", secretRef: { name: "x" } } },
        { name: "hp", hostPath: { path: "/data" } },
      ],
    });
    defaultPod(p);
    expect(p["spec"]).toMatchObject({
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 30,
      schedulerName: "default-scheduler",
      enableServiceLinks: true,
      securityContext: {},
      containers: [
        {
          imagePullPolicy: "Always",
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          ports: [{ containerPort: 80, protocol: "TCP" }],
          resources: { limits: { cpu: "1" }, requests: { cpu: "1" } },
          env: [{ valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } }],
        },
        { imagePullPolicy: "IfNotPresent" },
      ],
      volumes: [
        { name: "none", emptyDir: {} },
        { configMap: { defaultMode: 420 } },
        { secret: { defaultMode: 420 } },
        { downwardAPI: { defaultMode: 420, items: [{ fieldRef: { apiVersion: "v1" } }] } },
        { projected: { defaultMode: 420, sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] } },
        { azureDisk: { cachingMode: "ReadWrite", kind: "Shared", fsType: "ext4", readOnly: false } },
        { iscsi: { iscsiInterface: "default" } },
        { scaleIO: { storageMode: "ThinProvisioned", fsType: "xfs" } },
        { hostPath: { type: "" } },
      ],
    });
    expect(validatePod(p, ctx)).toEqual([]);
  });

  it.each([
    ["configMap", { configMap: { name: "c", items: [{ key: "k", path: "a/b", mode: 0o600 }] } }],
    ["secret", { secret: { secretName: "s", defaultMode: 0o400 } }],
    [
      "downwardAPI",
      {
        downwardAPI: {
          items: [
            { path: "labels", fieldRef: { fieldPath: "metadata.labels" } },
            { path: "cpu", resourceFieldRef: { containerName: "c", resource: "limits.cpu" } },
          ],
        },
      },
    ],
    ["projected", { projected: { sources: [{ configMap: { name: "c" } }, { serviceAccountToken: { path: "t", expirationSeconds: 600, audience: "api" } }] } }],
    ["awsElasticBlockStore", { awsElasticBlockStore: { volumeID: "vol-1", partition: 1 } }],
    ["azureFile", { azureFile: { secretName: "s", shareName: "share" } }],
    ["cinder", { cinder: { volumeID: "v" } }],
    ["csi", { csi: { driver: "csi.example.com", volumeAttributes: { a: "b" } } }],
    ["fc wwids", { fc: { wwids: ["w"] } }],
    ["fc targetWWNs", { fc: { targetWWNs: ["500a0982991b8dc5"], lun: 2 } }],
    ["flexVolume", { flexVolume: { driver: "example/lvm", options: { size: "1" } } }],
    ["flocker", { flocker: { datasetUUID: "u" } }],
    [
      "iscsi",
      { iscsi: { targetPortal: "1.2.3.4:3260", iqn: "iqn.2001-04.com.example:storage.disk1", lun: 0, chapAuthSession: true, secretRef: { name: "chap" } } },
    ],
    ["photonPersistentDisk", { photonPersistentDisk: { pdID: "p" } }],
    ["portworxVolume", { portworxVolume: { volumeID: "v" } }],
    ["quobyte", { quobyte: { registry: "a:7861,b:7861", volume: "v" } }],
    ["scaleIO", { scaleIO: { gateway: "g", system: "s", volumeName: "v", secretRef: { name: "x" }, storageMode: "ThickProvisioned" } }],
    ["storageos", { storageos: { volumeName: "v", volumeNamespace: "ns" } }],
    ["vsphereVolume", { vsphereVolume: { volumePath: "[ds] v.vmdk" } }],
    [
      "ephemeral",
      {
        ephemeral: {
          volumeClaimTemplate: { metadata: { labels: { a: "b" } }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
        },
      },
    ],
    ["gitRepo", { gitRepo: { repository: "https://example.com/r.git", directory: "." } }],
    ["nfs", { nfs: { server: "nfs", path: "/exports" } }],
    ["persistentVolumeClaim", { persistentVolumeClaim: { claimName: "c" } }],
  ])("accepts a %s volume", (_name, volume) => {
    expect(check(withVolume(volume, true)).map(formatFieldError)).toEqual([]);
  });

  const v = "spec.volumes[0]";
  it.each<[string, APIObject, { field: string; type: string }[]]>([
    ["two sources", withVolume({ configMap: { name: "c" }, secret: { secretName: "s" } }), [{ field: `${v}.configMap`, type: "FieldValueForbidden" }]],
    ["a volume without a name", pod({ volumes: [{ emptyDir: {} }] }), [{ field: `${v}.name`, type: "FieldValueRequired" }]],
    ["a volume name that is not a DNS label", pod({ volumes: [{ name: "A_b", emptyDir: {} }] }), [{ field: `${v}.name`, type: "FieldValueInvalid" }]],
    [
      "a duplicate volume name",
      pod({
        volumes: [
          { name: "a", emptyDir: {} },
          { name: "a", emptyDir: {} },
        ],
      }),
      [{ field: "spec.volumes[1].name", type: "FieldValueDuplicate" }],
    ],
    ["a configMap without name", withVolume({ configMap: {} }), [{ field: `${v}.configMap.name`, type: "FieldValueRequired" }]],
    [
      "an absolute item path",
      withVolume({ configMap: { name: "c", items: [{ key: "k", path: "/etc/x" }] } }),
      [{ field: `${v}.configMap.items[0].path`, type: "FieldValueInvalid" }],
    ],
    [
      "an item path with ..",
      withVolume({ configMap: { name: "c", items: [{ key: "k", path: "a/../b" }] } }),
      [{ field: `${v}.configMap.items[0].path`, type: "FieldValueInvalid" }],
    ],
    [
      "an item path starting with ..",
      withVolume({ secret: { secretName: "s", items: [{ key: "k", path: "..a" }] } }),
      [{ field: `${v}.secret.items[0].path`, type: "FieldValueInvalid" }],
    ],
    [
      "an item without key and path",
      withVolume({ secret: { secretName: "s", items: [{}] } }),
      [
        { field: `${v}.secret.items[0].key`, type: "FieldValueRequired" },
        { field: `${v}.secret.items[0].path`, type: "FieldValueRequired" },
      ],
    ],
    [
      "an item mode above 0777",
      withVolume({ configMap: { name: "c", items: [{ key: "k", path: "p", mode: 512 }] } }),
      [{ field: `${v}.configMap.items[0].mode`, type: "FieldValueInvalid" }],
    ],
    ["a negative defaultMode", withVolume({ secret: { secretName: "s", defaultMode: -1 } }), [{ field: `${v}.secret.defaultMode`, type: "FieldValueInvalid" }]],
    ["a secret without secretName", withVolume({ secret: {} }), [{ field: `${v}.secret.secretName`, type: "FieldValueRequired" }]],
    [
      "a downward file without a reference",
      withVolume({ downwardAPI: { items: [{ path: "x" }] } }),
      [{ field: `${v}.downwardAPI.items[0]`, type: "FieldValueRequired" }],
    ],
    [
      "a downward file with both references",
      withVolume({
        downwardAPI: { items: [{ path: "x", fieldRef: { fieldPath: "metadata.name" }, resourceFieldRef: { containerName: "c", resource: "limits.cpu" } }] },
      }),
      [{ field: `${v}.downwardAPI.items[0]`, type: "FieldValueInvalid" }],
    ],
    [
      "an unsupported downward field",
      withVolume({ downwardAPI: { items: [{ path: "x", fieldRef: { fieldPath: "spec.nodeName" } }] } }),
      [{ field: `${v}.downwardAPI.items[0].fieldRef.fieldPath`, type: "FieldValueNotSupported" }],
    ],
    [
      "a downward resource without containerName",
      withVolume({ downwardAPI: { items: [{ path: "x", resourceFieldRef: { resource: "limits.cpu" } }] } }),
      [{ field: `${v}.downwardAPI.items[0].resourceFieldRef.containerName`, type: "FieldValueRequired" }],
    ],
    [
      "a downward path with ..",
      withVolume({ downwardAPI: { items: [{ path: "../x", fieldRef: { fieldPath: "metadata.name" } }] } }),
      [{ field: `${v}.downwardAPI.items[0].path`, type: "FieldValueInvalid" }],
    ],
    [
      "a token expiring within 10 minutes",
      withVolume({ projected: { sources: [{ serviceAccountToken: { path: "t", expirationSeconds: 599 } }] } }),
      [{ field: `${v}.projected.sources[0].serviceAccountToken.expirationSeconds`, type: "FieldValueInvalid" }],
    ],
    [
      "a token beyond 2^32 seconds",
      withVolume({ projected: { sources: [{ serviceAccountToken: { path: "t", expirationSeconds: 2 ** 32 + 1 } }] } }),
      [{ field: `${v}.projected.sources[0].serviceAccountToken.expirationSeconds`, type: "FieldValueInvalid" }],
    ],
    [
      "a token without path",
      withVolume({ projected: { sources: [{ serviceAccountToken: {} }] } }),
      [{ field: `${v}.projected.sources[0].serviceAccountToken.path`, type: "FieldValueRequired" }],
    ],
    [
      "two projections in one source",
      withVolume({ projected: { sources: [{ configMap: { name: "c" }, secret: { name: "s" } }] } }),
      [{ field: `${v}.projected.sources[0]`, type: "FieldValueForbidden" }],
    ],
    [
      "a projected secret without name",
      withVolume({ projected: { sources: [{ secret: {} }] } }),
      [{ field: `${v}.projected.sources[0].secret.name`, type: "FieldValueRequired" }],
    ],
    [
      "conflicting projected paths",
      withVolume({
        projected: { sources: [{ configMap: { name: "c", items: [{ key: "a", path: "x" }] } }, { secret: { name: "s", items: [{ key: "b", path: "x" }] } }] },
      }),
      [{ field: `${v}.projected`, type: "FieldValueInvalid" }],
    ],
    [
      "a projected defaultMode above 0777",
      withVolume({ projected: { defaultMode: 1000, sources: [] } }),
      [{ field: `${v}.projected.defaultMode`, type: "FieldValueInvalid" }],
    ],
    [
      "awsElasticBlockStore without volumeID",
      withVolume({ awsElasticBlockStore: {} }),
      [{ field: `${v}.awsElasticBlockStore.volumeID`, type: "FieldValueRequired" }],
    ],
    [
      "awsElasticBlockStore partition 256",
      withVolume({ awsElasticBlockStore: { volumeID: "v", partition: 256 } }),
      [{ field: `${v}.awsElasticBlockStore.partition`, type: "FieldValueInvalid" }],
    ],
    [
      "azureDisk without names",
      withVolume({ azureDisk: {} }),
      [
        { field: `${v}.azureDisk.diskName`, type: "FieldValueRequired" },
        { field: `${v}.azureDisk.diskURI`, type: "FieldValueRequired" },
      ],
    ],
    [
      "azureDisk caching mode",
      withVolume({ azureDisk: { diskName: "d", diskURI: "u", cachingMode: "Read Only" } }),
      [{ field: `${v}.azureDisk.cachingMode`, type: "FieldValueNotSupported" }],
    ],
    [
      "azureDisk kind",
      withVolume({ azureDisk: { diskName: "d", diskURI: "u", kind: "Big" } }),
      [{ field: `${v}.azureDisk.kind`, type: "FieldValueNotSupported" }],
    ],
    [
      "azureFile without names",
      withVolume({ azureFile: {} }),
      [
        { field: `${v}.azureFile.secretName`, type: "FieldValueRequired" },
        { field: `${v}.azureFile.shareName`, type: "FieldValueRequired" },
      ],
    ],
    ["cinder without volumeID", withVolume({ cinder: {} }), [{ field: `${v}.cinder.volumeID`, type: "FieldValueRequired" }]],
    ["csi without driver", withVolume({ csi: {} }), [{ field: `${v}.csi.driver`, type: "FieldValueRequired" }]],
    ["csi with a bad driver name", withVolume({ csi: { driver: "-bad-" } }), [{ field: `${v}.csi.driver`, type: "FieldValueInvalid" }]],
    ["fc without wwids and targetWWNs", withVolume({ fc: {} }), [{ field: `${v}.fc.targetWWNs`, type: "FieldValueRequired" }]],
    [
      "fc with wwids and targetWWNs",
      withVolume({ fc: { wwids: ["w"], targetWWNs: ["t"], lun: 1 } }),
      [{ field: `${v}.fc.targetWWNs`, type: "FieldValueInvalid" }],
    ],
    ["fc targetWWNs without lun", withVolume({ fc: { targetWWNs: ["t"] } }), [{ field: `${v}.fc.lun`, type: "FieldValueRequired" }]],
    ["fc lun 256", withVolume({ fc: { targetWWNs: ["t"], lun: 256 } }), [{ field: `${v}.fc.lun`, type: "FieldValueInvalid" }]],
    ["flexVolume without driver", withVolume({ flexVolume: {} }), [{ field: `${v}.flexVolume.driver`, type: "FieldValueRequired" }]],
    [
      "flexVolume reserved option",
      withVolume({ flexVolume: { driver: "d", options: { "orch.io/x": "1" } } }),
      [{ field: `${v}.flexVolume.options[orch.io/x]`, type: "FieldValueInvalid" }],
    ],
    ["flocker with neither", withVolume({ flocker: {} }), [{ field: `${v}.flocker`, type: "FieldValueRequired" }]],
    ["flocker with both", withVolume({ flocker: { datasetName: "n", datasetUUID: "u" } }), [{ field: `${v}.flocker`, type: "FieldValueInvalid" }]],
    ["flocker name with /", withVolume({ flocker: { datasetName: "a/b" } }), [{ field: `${v}.flocker.datasetName`, type: "FieldValueInvalid" }]],
    [
      "iscsi without required fields",
      withVolume({ iscsi: {} }),
      [
        { field: `${v}.iscsi.targetPortal`, type: "FieldValueRequired" },
        { field: `${v}.iscsi.iqn`, type: "FieldValueRequired" },
        { field: `${v}.iscsi.lun`, type: "FieldValueRequired" },
      ],
    ],
    ["iscsi bad iqn", withVolume({ iscsi: { targetPortal: "t", iqn: "foo", lun: 1 } }), [{ field: `${v}.iscsi.iqn`, type: "FieldValueInvalid" }]],
    [
      "iscsi lun 256",
      withVolume({ iscsi: { targetPortal: "t", iqn: "iqn.2001-04.com.example:s", lun: 256 } }),
      [{ field: `${v}.iscsi.lun`, type: "FieldValueInvalid" }],
    ],
    [
      "iscsi CHAP without secret",
      withVolume({ iscsi: { targetPortal: "t", iqn: "iqn.2001-04.com.example:s", lun: 1, chapAuthDiscovery: true } }),
      [{ field: `${v}.iscsi.secretRef`, type: "FieldValueRequired" }],
    ],
    ["photon without pdID", withVolume({ photonPersistentDisk: {} }), [{ field: `${v}.photonPersistentDisk.pdID`, type: "FieldValueRequired" }]],
    ["portworx without volumeID", withVolume({ portworxVolume: {} }), [{ field: `${v}.portworxVolume.volumeID`, type: "FieldValueRequired" }]],
    [
      "quobyte without registry and volume",
      withVolume({ quobyte: {} }),
      [
        { field: `${v}.quobyte.registry`, type: "FieldValueRequired" },
        { field: `${v}.quobyte.volume`, type: "FieldValueRequired" },
      ],
    ],
    [
      "quobyte registry not host:port",
      withVolume({ quobyte: { registry: "nohost", volume: "v" } }),
      [{ field: `${v}.quobyte.registry`, type: "FieldValueInvalid" }],
    ],
    [
      "scaleIO without required fields",
      withVolume({ scaleIO: {} }),
      [
        { field: `${v}.scaleIO.gateway`, type: "FieldValueRequired" },
        { field: `${v}.scaleIO.system`, type: "FieldValueRequired" },
        { field: `${v}.scaleIO.volumeName`, type: "FieldValueRequired" },
        { field: `${v}.scaleIO.secretRef`, type: "FieldValueRequired" },
      ],
    ],
    [
      "scaleIO storage mode",
      withVolume({ scaleIO: { gateway: "g", system: "s", volumeName: "v", secretRef: { name: "x" }, storageMode: "Fat" } }),
      [{ field: `${v}.scaleIO.storageMode`, type: "FieldValueNotSupported" }],
    ],
    ["storageos without volumeName", withVolume({ storageos: {} }), [{ field: `${v}.storageos.volumeName`, type: "FieldValueRequired" }]],
    ["vsphere without volumePath", withVolume({ vsphereVolume: {} }), [{ field: `${v}.vsphereVolume.volumePath`, type: "FieldValueRequired" }]],
    ["ephemeral without template", withVolume({ ephemeral: {} }), [{ field: `${v}.ephemeral.volumeClaimTemplate`, type: "FieldValueRequired" }]],
    [
      "ephemeral without spec",
      withVolume({ ephemeral: { volumeClaimTemplate: {} } }),
      [{ field: `${v}.ephemeral.volumeClaimTemplate.spec`, type: "FieldValueRequired" }],
    ],
    [
      "ephemeral template with a name",
      withVolume({
        ephemeral: { volumeClaimTemplate: { metadata: { name: "x" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } } },
      }),
      [{ field: `${v}.ephemeral.volumeClaimTemplate.metadata.name`, type: "FieldValueForbidden" }],
    ],
    [
      "gitRepo without repository",
      withVolume({ gitRepo: { directory: "../x" } }),
      [
        { field: `${v}.gitRepo.repository`, type: "FieldValueRequired" },
        { field: `${v}.gitRepo.directory`, type: "FieldValueInvalid" },
      ],
    ],
    ["hostPath type", withVolume({ hostPath: { path: "/x", type: "Dir" } }), [{ field: `${v}.hostPath.type`, type: "FieldValueNotSupported" }]],
    ["nfs relative path", withVolume({ nfs: { server: "s", path: "x" } }), [{ field: `${v}.nfs.path`, type: "FieldValueInvalid" }]],
    ["a claim without name", withVolume({ persistentVolumeClaim: {} }), [{ field: `${v}.persistentVolumeClaim.claimName`, type: "FieldValueRequired" }]],
    ["no containers", pod({ containers: [] }), [{ field: "spec.containers", type: "FieldValueRequired" }]],
    ["a container without image", pod({ containers: [{ name: "c" }] }), [{ field: "spec.containers[0].image", type: "FieldValueRequired" }]],
    [
      "a duplicate container name",
      pod({
        containers: [
          { name: "c", image: "i" },
          { name: "c", image: "i" },
        ],
      }),
      [{ field: "spec.containers[1].name", type: "FieldValueDuplicate" }],
    ],
    [
      "a mount of a missing volume",
      pod({ containers: [{ name: "c", image: "i", volumeMounts: [{ name: "nope", mountPath: "/x" }] }] }),
      [{ field: "spec.containers[0].volumeMounts[0].name", type: "FieldValueInvalid" }],
    ],
    ["a mount without path", withVolumeMount({ name: "v" }), [{ field: "spec.containers[0].volumeMounts[0].mountPath", type: "FieldValueRequired" }]],
    [
      "a port out of range",
      pod({ containers: [{ name: "c", image: "i", ports: [{ containerPort: 70000 }] }] }),
      [{ field: "spec.containers[0].ports[0].containerPort", type: "FieldValueInvalid" }],
    ],
    [
      "a bad protocol",
      pod({ containers: [{ name: "c", image: "i", ports: [{ containerPort: 80, protocol: "HTTP" }] }] }),
      [{ field: "spec.containers[0].ports[0].protocol", type: "FieldValueNotSupported" }],
    ],
    [
      "a bad env name",
      pod({ containers: [{ name: "c", image: "i", env: [{ name: "1A" }] }] }),
      [{ field: "spec.containers[0].env[0].name", type: "FieldValueInvalid" }],
    ],
    [
      "a request above the limit",
      pod({ containers: [{ name: "c", image: "i", resources: { limits: { cpu: "1" }, requests: { cpu: "2" } } }] }),
      [{ field: "spec.containers[0].resources.requests[cpu]", type: "FieldValueInvalid" }],
    ],
    ["a bad restartPolicy", pod({ restartPolicy: "Sometimes" }), [{ field: "spec.restartPolicy", type: "FieldValueNotSupported" }]],
    ["a bad dnsPolicy", pod({ dnsPolicy: "Google" }), [{ field: "spec.dnsPolicy", type: "FieldValueNotSupported" }]],
    ["activeDeadlineSeconds 0", pod({ activeDeadlineSeconds: 0 }), [{ field: "spec.activeDeadlineSeconds", type: "FieldValueInvalid" }]],
    [
      "a toleration with value and Exists",
      pod({ tolerations: [{ key: "k", operator: "Exists", value: "v" }] }),
      [{ field: "spec.tolerations[0].operator", type: "FieldValueInvalid" }],
    ],
    [
      "a toleration value that is no label value (reported on operator, as the reference)",
      pod({ tolerations: [{ key: "k", value: "a b" }] }),
      [{ field: "spec.tolerations[0].operator", type: "FieldValueInvalid" }],
    ],
    [
      "tolerationSeconds without NoExecute",
      pod({ tolerations: [{ key: "k", value: "v", effect: "NoSchedule", tolerationSeconds: 5 }] }),
      [{ field: "spec.tolerations[0].effect", type: "FieldValueInvalid" }],
    ],
  ])("refuses %s", (_what, object, expected) => {
    expect(causes(check(object))).toEqual(expected);
  });

  it("prints the reference's messages for paths and modes", () => {
    const errors = check(withVolume({ configMap: { name: "c", defaultMode: 1024, items: [{ key: "k", path: "../x" }] } }));
    expect(errors.map(formatFieldError)).toEqual([
      "spec.volumes[0].configMap.defaultMode: Invalid value: 1024: must be a number between 0 and 0777 (octal), both inclusive",
      "spec.volumes[0].configMap.items[0].path: Invalid value: \"../x\": must not contain '..'",
    ]);
    expect(check(withVolume({ fc: { wwids: ["w"], targetWWNs: ["t"], lun: 1 } })).map(formatFieldError)).toEqual([
      'spec.volumes[0].fc.targetWWNs: Invalid value: ["t"]: targetWWNs and wwids can not be specified simultaneously',
    ]);
  });

  it("starts pending with a QoS class and keeps status on updates", () => {
    const p = pod({ containers: [{ name: "c", image: "i", resources: { limits: { cpu: "1", memory: "1Gi" } } }] }, { status: { phase: "Running" } });
    defaultPod(p);
    podType.strategy?.prepareForCreate?.(p, ctx);
    expect(p["status"]).toEqual({ phase: "Pending", qosClass: "Guaranteed" });
    expect(podQOSClass(pod())).toBe("BestEffort");
    const next = pod({}, { status: { phase: "Failed" } });
    podType.strategy?.prepareForUpdate?.(next, p, ctx);
    expect(next["status"]).toEqual(p["status"]);
  });

  describe("updates", () => {
    const old = () => {
      const p = pod({ activeDeadlineSeconds: 100, tolerations: [{ key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 }] });
      defaultPod(p);
      return p;
    };
    const change = (f: (spec: Record<string, unknown>) => void) => {
      const p = structuredClone(old());
      f(p["spec"] as Record<string, unknown>);
      return validatePodUpdate(p, old());
    };
    it("allows images, lower deadlines and added tolerations", () => {
      expect(
        change((s) => {
          (s["containers"] as Record<string, unknown>[])[0]!["image"] = "nginx:1.26";
          s["activeDeadlineSeconds"] = 50;
          (s["tolerations"] as unknown[]).push({ key: "b", operator: "Exists" });
          (s["tolerations"] as Record<string, unknown>[])[0]!["tolerationSeconds"] = 10;
        }),
      ).toEqual([]);
    });
    it.each<[string, (s: Record<string, unknown>) => void, { field: string; type: string }[]]>([
      ["another field", (s) => (s["restartPolicy"] = "Never"), [{ field: "spec", type: "FieldValueForbidden" }]],
      ["the node name", (s) => (s["nodeName"] = "n1"), [{ field: "spec", type: "FieldValueForbidden" }]],
      ["a container added", (s) => (s["containers"] as unknown[]).push({ name: "d", image: "i" }), [{ field: "spec.containers", type: "FieldValueForbidden" }]],
      ["a raised deadline", (s) => (s["activeDeadlineSeconds"] = 200), [{ field: "spec.activeDeadlineSeconds", type: "FieldValueInvalid" }]],
      ["a removed deadline", (s) => delete s["activeDeadlineSeconds"], [{ field: "spec.activeDeadlineSeconds", type: "FieldValueInvalid" }]],
      ["a removed toleration", (s) => (s["tolerations"] = []), [{ field: "spec.tolerations", type: "FieldValueForbidden" }]],
    ])("refuses %s", (_what, f, expected) => {
      expect(causes(change(f))).toEqual(expected);
    });
  });

  it("validates status writes", () => {
    expect(causes(validatePodStatusUpdate(pod({}, { status: { phase: "Sleeping", nominatedNodeName: "Bad_Name" } })))).toEqual([
      { field: "status.nominatedNodeName", type: "FieldValueInvalid" },
      { field: "status.phase", type: "FieldValueNotSupported" },
    ]);
  });

  it("binds a pod once, answering 201 with a Success Status", async () => {
    const p = pod();
    const result = await podBindingAction.act(p, { metadata: { name: "p", annotations: { a: "b" } }, target: { kind: "Node", name: "n1" } }, ctx);
    expect(result).toMatchObject({ code: 201, parent: "update", body: { kind: "Status", status: "Success" } });
    expect(p["spec"]).toMatchObject({ nodeName: "n1" });
    expect(p.metadata.annotations).toEqual({ a: "b" });
    expect(p["status"]).toMatchObject({ conditions: [{ type: "PodScheduled", status: "True" }] });
    let thrown: unknown;
    try {
      await podBindingAction.act(p, { metadata: {}, target: { name: "n2" } }, ctx);
    } catch (error) {
      thrown = error;
    }
    expect(isConflict(thrown)).toBe(true);
    expect((thrown as Error).message).toBe('Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"');
  });

  it("lets the binding action's write set spec.nodeName once, and nothing else of the spec", () => {
    const validate = podType.strategy?.subresourceStrategies?.["binding"]?.validateUpdate;
    const old = pod();
    expect(validate?.(pod({ nodeName: "n1" }), old, ctx)).toEqual([]);
    expect(causes(validate?.(pod({ nodeName: "n1", restartPolicy: "Never" }), old, ctx) ?? [])).toEqual([{ field: "spec", type: "FieldValueForbidden" }]);
    expect(causes(validate?.(pod({ nodeName: "n2" }), pod({ nodeName: "n1" }), ctx) ?? [])).toEqual([{ field: "spec", type: "FieldValueForbidden" }]);
  });

  it("refuses a binding without target name or to another kind", async () => {
    expect(causes((await podBindingAction.act(pod(), { metadata: {}, target: { kind: "Pod" } }, ctx)) as FieldError[])).toEqual([
      { field: "target.kind", type: "FieldValueNotSupported" },
      { field: "target.name", type: "FieldValueRequired" },
    ]);
  });

  it("evicts by deleting the pod, and refuses another pod's eviction", async () => {
    expect(await podEvictionAction.act(pod(), { metadata: { name: "p" } }, ctx)).toMatchObject({ code: 201, parent: "delete", body: { status: "Success" } });
    let thrown: unknown;
    try {
      await podEvictionAction.act(pod(), { metadata: { name: "q" } }, ctx);
    } catch (error) {
      thrown = error;
    }
    expect(isBadRequest(thrown)).toBe(true);
  });

  it("offers the reference's field selectors", () => {
    const p = pod({ nodeName: "n", serviceAccountName: "sa" }, { status: { phase: "Running", podIP: "10.0.0.1", nominatedNodeName: "m" } });
    defaultPod(p);
    expect(podType.strategy?.selectableFields?.(p)).toMatchObject({
      "spec.nodeName": "n",
      "spec.restartPolicy": "Always",
      "spec.schedulerName": "default-scheduler",
      "spec.serviceAccountName": "sa",
      "status.phase": "Running",
      "status.podIP": "10.0.0.1",
      "status.nominatedNodeName": "m",
    });
  });

  it("prints READY, STATUS, RESTARTS, and IP and NODE when wide", () => {
    const p = pod(
      {
        nodeName: "n1",
        containers: [
          { name: "a", image: "i" },
          { name: "b", image: "i" },
        ],
      },
      {
        status: {
          phase: "Running",
          podIP: "10.0.0.1",
          containerStatuses: [
            { name: "a", ready: true, restartCount: 2, state: { running: {} } },
            { name: "b", ready: false, restartCount: 1, state: { waiting: { reason: "CrashLoopBackOff" } } },
          ],
        },
      },
    );
    expect(podReadyCell(p)).toBe("1/2");
    expect(podRestartsCell(p)).toBe("3");
    expect(podStatusCell(p)).toBe("CrashLoopBackOff");
    const columns = podType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => [c.name, c.priority])).toEqual([
      ["Ready", 0],
      ["Status", 0],
      ["Restarts", 0],
      ["IP", 1],
      ["Node", 1],
      ["Nominated Node", 1],
      ["Readiness Gates", 1],
    ]);
    expect(columns[3]?.cell(p)).toBe("10.0.0.1");
    expect(columns[4]?.cell(p)).toBe("n1");
    expect(podStatusCell({ ...p, metadata: { ...p.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } })).toBe("Terminating");
  });
});

function withVolumeMount(mount: Record<string, unknown>): APIObject {
  return pod({ volumes: [{ name: "v", emptyDir: {} }], containers: [{ name: "c", image: "i", volumeMounts: [mount] }] });
}

describe("validatePodCreate", () => {
  it("refuses ephemeral containers on create, as the reference: they come through the ephemeralcontainers sub-resource", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "a", image: "x" }], ephemeralContainers: [{ name: "debug", image: "busybox" }] },
    } as APIObject;
    expect(validatePodCreate(pod).map(formatFieldError)).toEqual(["spec.ephemeralContainers: Forbidden: cannot be set on create"]);
    expect(validatePodCreate({ ...pod, spec: { containers: [{ name: "a", image: "x" }] } })).toEqual([]);
  });
});
