import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultPod, podType, validatePod } from "../pod.js";
import { decodeObject, findUnknownFields } from "../validate.js";

const ctx = { domain: "orch.io" };

function pod(container: Record<string, unknown> = {}, spec: Record<string, unknown> = {}): APIObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns" },
    spec: { containers: [{ name: "c", image: "nginx:1.25", ...container }], ...spec },
  };
}

function check(object: APIObject): string[] {
  defaultPod(object);
  return validatePod(object, ctx).map((e: FieldError) => formatFieldError(e));
}

const c0 = "spec.containers[0]";

describe("Pod probes", () => {
  it("fills the reference's probe defaults and httpGet's path and scheme", () => {
    const object = pod({ livenessProbe: { httpGet: { port: 80 } }, readinessProbe: { grpc: { port: 9000 } } });
    defaultPod(object);
    const c = (object["spec"] as { containers: Record<string, unknown>[] }).containers[0];
    expect(c?.["livenessProbe"]).toEqual({
      httpGet: { port: 80, path: "/", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(c?.["readinessProbe"]).toMatchObject({ grpc: { port: 9000, service: "" }, periodSeconds: 10 });
    expect(validatePod(object, ctx)).toEqual([]);
  });

  it("refuses a second handler, negative timing and a liveness success threshold other than 1", () => {
    const errors = check(pod({ livenessProbe: { periodSeconds: -5, successThreshold: 2, exec: { command: ["true"] }, tcpSocket: { port: 80 } } }));
    expect(errors).toEqual([
      `${c0}.livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type`,
      `${c0}.livenessProbe.periodSeconds: Invalid value: -5: must be greater than or equal to 0`,
      `${c0}.livenessProbe.successThreshold: Invalid value: 2: must be 1`,
    ]);
  });

  it("requires a handler and checks each one's fields", () => {
    expect(check(pod({ startupProbe: { periodSeconds: 3 } }))).toEqual([`${c0}.startupProbe: Required value: must specify a handler type`]);
    expect(check(pod({ readinessProbe: { exec: {} } }))).toEqual([`${c0}.readinessProbe.exec.command: Required value`]);
    expect(check(pod({ readinessProbe: { httpGet: { port: 0, scheme: "FTP", httpHeaders: [{ name: "a b", value: "x" }] } } }))).toEqual([
      `${c0}.readinessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive`,
      `${c0}.readinessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`,
      `${c0}.readinessProbe.httpGet.httpHeaders: Invalid value: "a b": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')`,
    ]);
    expect(check(pod({ readinessProbe: { tcpSocket: { port: 80 }, terminationGracePeriodSeconds: 5 } }))).toEqual([
      `${c0}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
    ]);
  });

  it("refuses probes and lifecycle hooks on init containers without restartPolicy Always", () => {
    const object = pod({}, { initContainers: [{ name: "i", image: "busybox", livenessProbe: { exec: { command: ["true"] } } }] });
    expect(check(object)).toEqual(["spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"]);
    const sidecar = pod({}, { initContainers: [{ name: "i", image: "busybox", restartPolicy: "Always", livenessProbe: { exec: { command: ["true"] } } }] });
    expect(check(sidecar)).toEqual([]);
    expect(check(pod({ restartPolicy: "Always" }))).toEqual([`${c0}.restartPolicy: Forbidden: may not be set for non-init containers`]);
  });
});

describe("Pod lifecycle hooks", () => {
  it("bounds a sleep by the grace period and defaults httpGet", () => {
    const object = pod({ lifecycle: { preStop: { sleep: { seconds: 40 } }, postStart: { httpGet: { port: "http" } } } });
    expect(check(object)).toEqual([`${c0}.lifecycle.preStop.sleep: Invalid value: 40: must be non-negative and less than terminationGracePeriodSeconds (30)`]);
    const c = (object["spec"] as { containers: Record<string, unknown>[] }).containers[0];
    expect(c?.["lifecycle"]).toMatchObject({ postStart: { httpGet: { port: "http", path: "/", scheme: "HTTP" } } });
  });
});

describe("Pod security contexts", () => {
  it("refuses IDs out of range at pod and container level", () => {
    const errors = check(pod({ securityContext: { runAsUser: -1, runAsGroup: 2147483648, procMount: "Odd" } }, { securityContext: { fsGroup: -2 } }));
    expect(errors).toEqual([
      `${c0}.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive`,
      `${c0}.securityContext.runAsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive`,
      `${c0}.securityContext.procMount: Unsupported value: "Odd": supported values: "Default", "Unmasked"`,
      "spec.securityContext.fsGroup: Invalid value: -2: must be between 0 and 2147483647, inclusive",
    ]);
  });

  it("checks seccomp and AppArmor profiles, sysctls and the change policies", () => {
    const errors = check(
      pod(
        { securityContext: { seccompProfile: { type: "Localhost" }, appArmorProfile: { type: "RuntimeDefault", localhostProfile: "x" } } },
        {
          hostNetwork: true,
          securityContext: {
            sysctls: [
              { name: "net.core.somaxconn", value: "1" },
              { name: "Bad", value: "1" },
            ],
            fsGroupChangePolicy: "Sometimes",
          },
        },
      ),
    );
    expect(errors).toEqual([
      `${c0}.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost`,
      `${c0}.securityContext.appArmorProfile.localhostProfile: Invalid value: "x": can only be set when AppArmor type is Localhost`,
      "spec.securityContext.sysctls[0].name: Invalid value: \"net.core.somaxconn\": may not be specified when 'hostNetwork' is true",
      'spec.securityContext.sysctls[1].name: Invalid value: "Bad": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$',
      'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"',
    ]);
  });
});

describe("Pod scheduling fields", () => {
  it("checks affinity weights, selector terms and topology keys", () => {
    const errors = check(
      pod(
        {},
        {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
              preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, preference: { matchExpressions: [{ key: "a", operator: "Near" }] } }],
            },
            podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: { topologyKey: "" } }] },
          },
        },
      ),
    );
    const na = "spec.affinity.nodeAffinity";
    const pa = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]";
    expect(errors.slice(0, 5)).toEqual([
      `${na}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term`,
      `${na}.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 101: must be in the range 1-100`,
      `${na}.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
      `${pa}.weight: Invalid value: 0: must be in the range 1-100`,
      `${pa}.podAffinityTerm.topologyKey: Required value: can not be empty`,
    ]);
  });

  it("checks topology spread constraints, DNS config, host aliases and gates", () => {
    const errors = check(
      pod(
        {},
        {
          topologySpreadConstraints: [
            { maxSkew: 0, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" },
            { maxSkew: 1, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule", minDomains: 2, nodeTaintsPolicy: "Maybe" },
          ],
          dnsPolicy: "None",
          dnsConfig: { nameservers: ["1.2.3.4", "nope"], options: [{ value: "x" }] },
          hostAliases: [{ ip: "999.1.1.1", hostnames: ["ok"] }],
          readinessGates: [{ conditionType: "bad type" }],
        },
      ),
    );
    expect(errors).toContain("spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero");
    expect(errors).toContain('spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"');
    expect(errors).toContain('spec.topologySpreadConstraints[1].nodeTaintsPolicy: Unsupported value: "Maybe": supported values: "Honor", "Ignore"');
    expect(errors).toContain('spec.dnsConfig.nameservers[1]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
    expect(errors).toContain("spec.dnsConfig.options[0]: Required value: must not be empty");
    expect(errors).toContain('spec.hostAliases[0].ip: Invalid value: "999.1.1.1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
    expect(errors.some((e) => e.startsWith("spec.readinessGates[0].conditionType: Invalid value"))).toBe(true);
  });

  it("checks envFrom, resize policies and resource claims", () => {
    const errors = check(
      pod({ envFrom: [{ prefix: "1X" }], resizePolicy: [{ resourceName: "gpu", restartPolicy: "NotRequired" }] }, { resourceClaims: [{ name: "gpu" }] }),
    );
    expect(errors).toEqual([
      'spec.resourceClaims[0]: Invalid value: {"name":"gpu"}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
      expect.stringMatching(/^spec\.containers\[0\]\.envFrom\[0\]\.prefix: Invalid value: "1X": a valid environment variable name/) as unknown as string,
      `${c0}.envFrom: Invalid value: "": must specify one of: \`configMapRef\` or \`secretRef\``,
      `${c0}.resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"`,
    ]);
  });

  it("refuses fields an ephemeral container may not set and an unknown target", () => {
    const errors = check(pod({}, { ephemeralContainers: [{ name: "debug", image: "busybox", targetContainerName: "nope", ports: [{ containerPort: 80 }] }] }));
    expect(errors).toEqual([
      'spec.ephemeralContainers[0].targetContainerName: Invalid value: "nope": not found',
      "spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container",
    ]);
  });
});

describe("Pod schema", () => {
  it("reports unknown fields under probes, security contexts, affinity and the other closed objects", () => {
    const body = pod(
      { livenessProbe: { exec: { command: ["true"] }, bogus: 1 }, securityContext: { bogus: 3, capabilities: { add: ["NET_ADMIN"], nope: true } } },
      { affinity: { nodeAffinity: { odd: 1 } }, dnsConfig: { x: 1 }, securityContext: { y: 2 }, topologySpreadConstraints: [{ z: 1 }] },
    );
    expect(findUnknownFields(body, podType, "v1").sort()).toEqual([
      "spec.affinity.nodeAffinity.odd",
      "spec.containers[0].livenessProbe.bogus",
      "spec.containers[0].securityContext.bogus",
      "spec.containers[0].securityContext.capabilities.nope",
      "spec.dnsConfig.x",
      "spec.securityContext.y",
      "spec.topologySpreadConstraints[0].z",
    ]);
  });

  it("refuses a wrong JSON type inside a probe at decode", () => {
    expect(() => decodeObject(podType, "v1", pod({ livenessProbe: { periodSeconds: "10" } }))).toThrow(/livenessProbe/);
  });
});
