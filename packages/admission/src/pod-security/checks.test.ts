import { describe, expect, it } from "vitest";
import { podView, type Violation } from "./check.js";
import { defaultChecks } from "./evaluator.js";

type Spec = Record<string, unknown>;

/** Runs check `id` as it stands at minor version `version` (latest: 99) on a pod. */
function check(
  id: string,
  version: number,
  spec: Spec,
  annotations: Record<string, string> = {},
  labelDomain = "orch.io",
): Violation | undefined | "not in force" {
  const c = defaultChecks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  const active = [...c.versions].reverse().find((v) => v.since <= version);
  if (!active) return "not in force";
  return active.check(podView({ annotations }, spec, labelDomain));
}

const latest = 99;
const withContainer = (securityContext?: Spec, extra: Spec = {}): Spec => ({
  containers: [{ name: "c", image: "i", ...(securityContext ? { securityContext } : {}) }],
  ...extra,
});
const all = (sc: (name: string) => Spec | undefined): Spec => ({
  initContainers: [{ name: "i", ...(sc("i") ? { securityContext: sc("i") } : {}) }],
  containers: [{ name: "c", ...(sc("c") ? { securityContext: sc("c") } : {}) }],
  ephemeralContainers: [{ name: "e", ...(sc("e") ? { securityContext: sc("e") } : {}) }],
});

describe("baseline: host namespaces", () => {
  it("allows unset and false, refuses true naming each namespace", () => {
    expect(check("hostNamespaces", latest, { hostNetwork: false })).toBeUndefined();
    expect(check("hostNamespaces", 0, { hostNetwork: true, hostPID: true, hostIPC: true })).toEqual({
      reason: "host namespaces",
      detail: "hostNetwork=true, hostPID=true, hostIPC=true",
    });
    expect(check("hostNamespaces", latest, { hostIPC: true })).toEqual({ reason: "host namespaces", detail: "hostIPC=true" });
  });
});

describe("baseline: privileged", () => {
  it("refuses privileged containers of every kind, in init, regular, ephemeral order", () => {
    expect(check("privileged", latest, withContainer({ privileged: false }))).toBeUndefined();
    expect(
      check(
        "privileged",
        latest,
        all(() => ({ privileged: true })),
      ),
    ).toEqual({ reason: "privileged", detail: 'containers "i", "c", "e" must not set securityContext.privileged=true' });
    expect(check("privileged", latest, withContainer({ privileged: true }))).toEqual({
      reason: "privileged",
      detail: 'container "c" must not set securityContext.privileged=true',
    });
  });
});

describe("baseline: capabilities", () => {
  it("allows the default set and refuses others, listing them sorted", () => {
    expect(check("capabilities_baseline", latest, withContainer({ capabilities: { add: ["CHOWN", "NET_BIND_SERVICE", "KILL"] } }))).toBeUndefined();
    expect(
      check(
        "capabilities_baseline",
        latest,
        all((n) => (n === "c" ? { capabilities: { add: ["SYS_ADMIN", "NET_RAW", "CHOWN"] } } : n === "e" ? { capabilities: { add: ["NET_RAW"] } } : undefined)),
      ),
    ).toEqual({
      reason: "non-default capabilities",
      detail: 'containers "c", "e" must not include "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add',
    });
  });
});

describe("baseline: hostPath volumes", () => {
  it("refuses hostPath volumes by name", () => {
    expect(check("hostPathVolumes", latest, { volumes: [{ name: "a", emptyDir: {} }] })).toBeUndefined();
    expect(
      check("hostPathVolumes", latest, {
        volumes: [
          { name: "a", hostPath: { path: "/" } },
          { name: "b", hostPath: { path: "/x" } },
        ],
      }),
    ).toEqual({
      reason: "hostPath volumes",
      detail: 'volumes "a", "b"',
    });
  });
});

describe("baseline: host ports", () => {
  it("allows 0 and unset, refuses others with the ports sorted as text", () => {
    expect(check("hostPorts", latest, withContainer(undefined, {}))).toBeUndefined();
    expect(check("hostPorts", latest, { containers: [{ name: "c", ports: [{ containerPort: 80, hostPort: 0 }] }] })).toBeUndefined();
    expect(check("hostPorts", latest, { containers: [{ name: "c", ports: [{ containerPort: 80, hostPort: 8080 }] }] })).toEqual({
      reason: "hostPort",
      detail: 'container "c" uses hostPort 8080',
    });
    expect(
      check("hostPorts", latest, {
        containers: [
          { name: "a", ports: [{ hostPort: 9 }, { hostPort: 10 }] },
          { name: "b", ports: [{ hostPort: 10 }] },
        ],
      }),
    ).toEqual({ reason: "hostPort", detail: 'containers "a", "b" use hostPorts 10, 9' });
  });
});

describe("baseline: probe and lifecycle hosts", () => {
  const spec = {
    containers: [
      { name: "b", livenessProbe: { httpGet: { host: "10.0.0.1", port: 80 } }, lifecycle: { preStop: { tcpSocket: { host: "example.com" } } } },
      { name: "a", readinessProbe: { tcpSocket: { host: "10.0.0.1" } } },
    ],
  };
  it("is not in force before v1.34", () => {
    expect(check("hostProbesAndHostLifecycle", 33, spec)).toBe("not in force");
  });
  it("refuses hosts from v1.34, containers and hosts sorted", () => {
    expect(check("hostProbesAndHostLifecycle", 34, { containers: [{ name: "c", livenessProbe: { httpGet: { host: "", port: 80 } } }] })).toBeUndefined();
    expect(check("hostProbesAndHostLifecycle", 34, spec)).toEqual({
      reason: "probe or lifecycle host",
      detail: 'containers "a", "b" use probe or lifecycle hosts "10.0.0.1", "example.com"',
    });
  });
});

describe("baseline: Windows host process", () => {
  it("refuses hostProcess=true on the pod and containers", () => {
    expect(check("windowsHostProcess", latest, withContainer({ windowsOptions: { hostProcess: false } }))).toBeUndefined();
    expect(
      check("windowsHostProcess", latest, {
        ...withContainer({ windowsOptions: { hostProcess: true } }),
        securityContext: { windowsOptions: { hostProcess: true } },
      }),
    ).toEqual({
      reason: "hostProcess",
      detail: 'pod and container "c" must not set securityContext.windowsOptions.hostProcess=true',
    });
  });
});

describe("baseline: AppArmor", () => {
  it("allows RuntimeDefault, Localhost and good annotations", () => {
    const spec = {
      ...withContainer({ appArmorProfile: { type: "Localhost", localhostProfile: "p" } }),
      securityContext: { appArmorProfile: { type: "RuntimeDefault" } },
    };
    expect(check("appArmorProfile", latest, spec, { "container.apparmor.security.beta.orch.io/c": "localhost/p" })).toBeUndefined();
  });
  it("refuses Unconfined on fields and annotations (with the domain's prefix)", () => {
    const spec = { ...withContainer({ appArmorProfile: { type: "Unconfined" } }), securityContext: { appArmorProfile: { type: "Unconfined" } } };
    expect(check("appArmorProfile", latest, spec)).toEqual({
      reason: "forbidden AppArmor profile",
      detail: 'pod and container "c" must not set AppArmor profile type to "Unconfined"',
    });
    expect(check("appArmorProfile", latest, withContainer(), { "container.apparmor.security.beta.kubernetes.io/c": "unconfined" }, "kubernetes.io")).toEqual({
      reason: "forbidden AppArmor profile",
      detail: 'annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c="unconfined""',
    });
    expect(
      check("appArmorProfile", latest, withContainer({ appArmorProfile: { type: "Unconfined" } }), {
        "container.apparmor.security.beta.orch.io/c": "unconfined",
      }),
    ).toEqual({
      reason: "forbidden AppArmor profiles",
      detail: 'container "c" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.orch.io/c="unconfined""',
    });
  });
});

describe("baseline: SELinux", () => {
  it("allows the container types and refuses other types, users and roles", () => {
    expect(check("seLinuxOptions", latest, withContainer({ seLinuxOptions: { type: "container_t", level: "s0:c1" } }))).toBeUndefined();
    expect(
      check("seLinuxOptions", latest, {
        ...withContainer({ seLinuxOptions: { type: "spc_t", user: "u" } }),
        securityContext: { seLinuxOptions: { role: "r" } },
      }),
    ).toEqual({
      reason: "seLinuxOptions",
      detail: 'pod and container "c" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set',
    });
  });
  it("allows container_engine_t from v1.31", () => {
    const spec = withContainer({ seLinuxOptions: { type: "container_engine_t" } });
    expect(check("seLinuxOptions", 30, spec)).toEqual({
      reason: "seLinuxOptions",
      detail: 'container "c" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
    });
    expect(check("seLinuxOptions", 31, spec)).toBeUndefined();
  });
});

describe("baseline: /proc mount", () => {
  it("refuses Unmasked, allows Default", () => {
    expect(check("procMount", latest, withContainer({ procMount: "Default" }))).toBeUndefined();
    expect(check("procMount", 34, withContainer({ procMount: "Unmasked" }, { hostUsers: false }))).toEqual({
      reason: "procMount",
      detail: 'container "c" must not set securityContext.procMount to "Unmasked"',
    });
  });
  it("allows any value in a user namespace from v1.35 (baseline only)", () => {
    expect(check("procMount", 35, withContainer({ procMount: "Unmasked" }, { hostUsers: false }))).toBeUndefined();
    expect(check("procMount", 35, withContainer({ procMount: "Unmasked" }))).toEqual({
      reason: "procMount",
      detail: 'container "c" must not set securityContext.procMount to "Unmasked"',
    });
    expect(check("procMount_restricted", 34, withContainer({ procMount: "Unmasked" }))).toBe("not in force");
    expect(check("procMount_restricted", 35, withContainer({ procMount: "Unmasked" }, { hostUsers: false }))).toEqual({
      reason: "procMount",
      detail: 'container "c" must not set securityContext.procMount to "Unmasked"',
    });
  });
});

describe("baseline: seccomp", () => {
  it("checks the alpha annotations before v1.19", () => {
    const annotations = { "seccomp.security.alpha.orch.io/pod": "unconfined", "container.seccomp.security.alpha.orch.io/c": "docker/default" };
    expect(check("seccompProfile_baseline", 18, withContainer(), annotations)).toEqual({
      reason: "seccompProfile",
      detail: 'forbidden annotation seccomp.security.alpha.orch.io/pod="unconfined"',
    });
    expect(check("seccompProfile_baseline", 19, withContainer(), annotations)).toBeUndefined();
  });
  it("refuses Unconfined types from v1.19", () => {
    const spec = { ...withContainer({ seccompProfile: { type: "Unconfined" } }), securityContext: { seccompProfile: { type: "RuntimeDefault" } } };
    expect(check("seccompProfile_baseline", 18, spec)).toBeUndefined();
    expect(check("seccompProfile_baseline", 19, spec)).toEqual({
      reason: "seccompProfile",
      detail: 'container "c" must not set securityContext.seccompProfile.type to "Unconfined"',
    });
    expect(check("seccompProfile_baseline", 19, withContainer())).toBeUndefined();
  });
});

describe("baseline: sysctls", () => {
  it("allows the safe set of the version and refuses the others", () => {
    const sc = (...names: string[]) => ({ securityContext: { sysctls: names.map((name) => ({ name, value: "1" })) } });
    expect(check("sysctls", 0, sc("kernel.shm_rmid_forced"))).toBeUndefined();
    expect(check("sysctls", 26, sc("net.ipv4.ip_local_reserved_ports", "kernel.msgmax"))).toEqual({
      reason: "forbidden sysctls",
      detail: "net.ipv4.ip_local_reserved_ports, kernel.msgmax",
    });
    expect(check("sysctls", 27, sc("net.ipv4.ip_local_reserved_ports"))).toBeUndefined();
    expect(check("sysctls", 28, sc("net.ipv4.tcp_keepalive_time"))).toBeDefined();
    expect(check("sysctls", 29, sc("net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout"))).toBeUndefined();
    expect(check("sysctls", 31, sc("net.ipv4.tcp_rmem"))).toBeDefined();
    expect(check("sysctls", 32, sc("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"))).toBeUndefined();
    expect(check("sysctls", 36, sc("net.ipv4.tcp_notsent_lowat"))).toBeDefined();
    expect(check("sysctls", 37, sc("net.ipv4.tcp_notsent_lowat", "net.ipv4.tcp_slow_start_after_idle"))).toBeUndefined();
  });
});

describe("restricted: volume types", () => {
  it("allows the inline sources of the restricted level", () => {
    const volumes = ["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image", "persistentVolumeClaim", "projected", "secret"].map((s, i) => ({
      name: `v${i}`,
      [s]: {},
    }));
    expect(check("restrictedVolumes", latest, { volumes })).toBeUndefined();
  });
  it("refuses the others naming their types, unknown ones as unknown", () => {
    const volumes = [
      { name: "a", hostPath: { path: "/" } },
      { name: "b", nfs: { server: "s", path: "/" } },
      { name: "c", somethingNew: {} },
    ];
    expect(check("restrictedVolumes", latest, { volumes })).toEqual({
      reason: "restricted volume types",
      detail: 'volumes "a", "b", "c" use restricted volume types "hostPath", "nfs", "unknown"',
    });
    expect(check("restrictedVolumes", latest, { volumes: [{ name: "g", gitRepo: { repository: "r" } }] })).toEqual({
      reason: "restricted volume types",
      detail: 'volume "g" uses restricted volume type "gitRepo"',
    });
  });
});

describe("restricted: privilege escalation", () => {
  it("requires allowPrivilegeEscalation=false from v1.8", () => {
    expect(check("allowPrivilegeEscalation", 7, withContainer())).toBe("not in force");
    expect(check("allowPrivilegeEscalation", 8, withContainer({ allowPrivilegeEscalation: false }))).toBeUndefined();
    expect(
      check(
        "allowPrivilegeEscalation",
        8,
        all((n) => (n === "c" ? { allowPrivilegeEscalation: true } : undefined)),
      ),
    ).toEqual({
      reason: "allowPrivilegeEscalation != false",
      detail: 'containers "i", "c", "e" must set securityContext.allowPrivilegeEscalation=false',
    });
  });
  it("exempts Windows pods from v1.25", () => {
    const windows = withContainer(undefined, { os: { name: "windows" } });
    expect(check("allowPrivilegeEscalation", 24, windows)).toBeDefined();
    expect(check("allowPrivilegeEscalation", 25, windows)).toBeUndefined();
  });
});

describe("restricted: runAsNonRoot", () => {
  it("accepts the pod-level true and container-level true", () => {
    expect(check("runAsNonRoot", latest, { ...withContainer(), securityContext: { runAsNonRoot: true } })).toBeUndefined();
    expect(check("runAsNonRoot", latest, withContainer({ runAsNonRoot: true }))).toBeUndefined();
  });
  it("refuses explicit false before missing values", () => {
    expect(
      check("runAsNonRoot", latest, { ...all((n) => (n === "c" ? { runAsNonRoot: false } : undefined)), securityContext: { runAsNonRoot: false } }),
    ).toEqual({
      reason: "runAsNonRoot != true",
      detail: 'pod and container "c" must not set securityContext.runAsNonRoot=false',
    });
    expect(
      check(
        "runAsNonRoot",
        latest,
        all((n) => (n === "c" ? { runAsNonRoot: true } : undefined)),
      ),
    ).toEqual({
      reason: "runAsNonRoot != true",
      detail: 'pod or containers "i", "e" must set securityContext.runAsNonRoot=true',
    });
  });
  it("allows user-namespace pods from v1.35", () => {
    const userns = withContainer(undefined, { hostUsers: false });
    expect(check("runAsNonRoot", 34, userns)).toBeDefined();
    expect(check("runAsNonRoot", 35, userns)).toBeUndefined();
  });
});

describe("restricted: runAsUser", () => {
  it("refuses runAsUser=0 from v1.23", () => {
    const root = { ...withContainer({ runAsUser: 0 }), securityContext: { runAsUser: 0 } };
    expect(check("runAsUser", 22, root)).toBe("not in force");
    expect(check("runAsUser", 23, root)).toEqual({ reason: "runAsUser=0", detail: 'pod and container "c" must not set runAsUser=0' });
    expect(check("runAsUser", 23, withContainer({ runAsUser: 1000 }))).toBeUndefined();
  });
  it("allows user-namespace pods from v1.35", () => {
    const root = withContainer({ runAsUser: 0 }, { hostUsers: false });
    expect(check("runAsUser", 34, root)).toBeDefined();
    expect(check("runAsUser", 35, root)).toBeUndefined();
  });
});

describe("restricted: seccomp", () => {
  it("is in force from v1.19", () => {
    expect(check("seccompProfile_restricted", 18, withContainer())).toBe("not in force");
  });
  it("accepts a valid pod-level type or a valid type on every container", () => {
    expect(check("seccompProfile_restricted", 19, { ...withContainer(), securityContext: { seccompProfile: { type: "RuntimeDefault" } } })).toBeUndefined();
    expect(check("seccompProfile_restricted", 19, withContainer({ seccompProfile: { type: "Localhost", localhostProfile: "p" } }))).toBeUndefined();
  });
  it("refuses bad types, then missing ones", () => {
    expect(check("seccompProfile_restricted", 19, { ...withContainer(), securityContext: { seccompProfile: { type: "Unconfined" } } })).toEqual({
      reason: "seccompProfile",
      detail: 'pod must not set securityContext.seccompProfile.type to "Unconfined"',
    });
    expect(check("seccompProfile_restricted", 19, withContainer())).toEqual({
      reason: "seccompProfile",
      detail: 'pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
    });
  });
  it("exempts Windows pods from v1.25", () => {
    const windows = withContainer(undefined, { os: { name: "windows" } });
    expect(check("seccompProfile_restricted", 24, windows)).toBeDefined();
    expect(check("seccompProfile_restricted", 25, windows)).toBeUndefined();
  });
});

describe("restricted: capabilities", () => {
  it("is in force from v1.22", () => {
    expect(check("capabilities_restricted", 21, withContainer())).toBe("not in force");
  });
  it("requires drop ALL and allows adding only NET_BIND_SERVICE", () => {
    expect(check("capabilities_restricted", 22, withContainer({ capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] } }))).toBeUndefined();
    expect(
      check("capabilities_restricted", 22, {
        containers: [
          { name: "a" },
          { name: "b", securityContext: { capabilities: { drop: ["ALL"], add: ["CHOWN", "NET_RAW"] } } },
          { name: "c", securityContext: { capabilities: { add: ["SYS_ADMIN"] } } },
        ],
      }),
    ).toEqual({
      reason: "unrestricted capabilities",
      detail:
        'containers "a", "c" must set securityContext.capabilities.drop=["ALL"]; containers "b", "c" must not include "CHOWN", "NET_RAW", "SYS_ADMIN" in securityContext.capabilities.add',
    });
  });
  it("exempts Windows pods from v1.25", () => {
    const windows = withContainer(undefined, { os: { name: "windows" } });
    expect(check("capabilities_restricted", 24, windows)).toBeDefined();
    expect(check("capabilities_restricted", 25, windows)).toBeUndefined();
  });
});
