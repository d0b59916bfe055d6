import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { allocateClusterIP, defaultService, serviceExternalIP, servicePorts, serviceType, validateService, validateServiceUpdate } from "./service.js";

const ctx = { domain: "orch.io", now: 0 };
const svc = (spec: Record<string, unknown>): APIObject => ({ metadata: { name: "s", namespace: "ns", uid: "u1" }, spec });
const causes = (errors: FieldError[]) => errors.map((e) => ({ field: e.field, type: e.type }));

function created(spec: Record<string, unknown>): APIObject {
  const s = svc(spec);
  defaultService(s);
  serviceType.strategy?.prepareForCreate?.(s, ctx);
  return s;
}

describe("Service", () => {
  it("is a namespaced core v1 kind with short name svc and a status", () => {
    expect(serviceType).toMatchObject({ group: "", resource: "services", kind: "Service", scope: "Namespaced", shortNames: ["svc"], subresources: ["status"] });
  });

  it("defaults type, affinity, protocol and targetPort, and allocates a cluster IP", () => {
    const s = created({ ports: [{ port: 80 }], selector: { app: "a" } });
    expect(s["spec"]).toMatchObject({
      type: "ClusterIP",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
    });
    const ip = (s["spec"] as Record<string, unknown>)["clusterIP"];
    expect(ip).toBe(allocateClusterIP(s));
    expect(String(ip)).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    expect((s["spec"] as Record<string, unknown>)["clusterIPs"]).toEqual([ip]);
    expect(validateService(s)).toEqual([]);
  });

  it("allocates node ports and defaults the traffic policy for NodePort", () => {
    const s = created({
      type: "NodePort",
      ports: [
        { name: "a", port: 80 },
        { name: "b", port: 81, nodePort: 30001 },
      ],
    });
    const ports = (s["spec"] as Record<string, unknown>)["ports"] as Record<string, number>[];
    expect(ports[0]?.["nodePort"]).toBeGreaterThanOrEqual(30000);
    expect(ports[1]?.["nodePort"]).toBe(30001);
    expect(s["spec"]).toMatchObject({ externalTrafficPolicy: "Cluster" });
    expect(validateService(s)).toEqual([]);
  });

  it("defaults the ClientIP affinity timeout", () => {
    expect(created({ sessionAffinity: "ClientIP", ports: [{ port: 80 }] })["spec"]).toMatchObject({
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    });
  });

  it.each<[string, Record<string, unknown>, { field: string; type: string }[]]>([
    ["a bad type", { type: "Magic", ports: [{ port: 80 }] }, [{ field: "spec.type", type: "FieldValueNotSupported" }]],
    ["no ports", {}, [{ field: "spec.ports", type: "FieldValueRequired" }]],
    [
      "port 0 (targetPort defaults to it)",
      { ports: [{ port: 0 }] },
      [
        { field: "spec.ports[0].port", type: "FieldValueInvalid" },
        { field: "spec.ports[0].targetPort", type: "FieldValueInvalid" },
      ],
    ],
    ["port 65536", { ports: [{ port: 65536, targetPort: 8080 }] }, [{ field: "spec.ports[0].port", type: "FieldValueInvalid" }]],
    ["a bad protocol", { ports: [{ port: 80, protocol: "HTTP" }] }, [{ field: "spec.ports[0].protocol", type: "FieldValueNotSupported" }]],
    ["unnamed ports", { ports: [{ port: 80 }, { name: "b", port: 81 }] }, [{ field: "spec.ports[0].name", type: "FieldValueRequired" }]],
    [
      "duplicate port names",
      {
        ports: [
          { name: "a", port: 80 },
          { name: "a", port: 81 },
        ],
      },
      [{ field: "spec.ports[1].name", type: "FieldValueDuplicate" }],
    ],
    ["a port name that is not a DNS label", { ports: [{ name: "A_B", port: 80 }] }, [{ field: "spec.ports[0].name", type: "FieldValueInvalid" }]],
    [
      "duplicate port and protocol",
      {
        ports: [
          { name: "a", port: 80 },
          { name: "b", port: 80 },
        ],
      },
      [{ field: "spec.ports[1]", type: "FieldValueDuplicate" }],
    ],
    ["a bad target port", { ports: [{ port: 80, targetPort: "not_a_name" }] }, [{ field: "spec.ports[0].targetPort", type: "FieldValueInvalid" }]],
    ["a node port on ClusterIP", { ports: [{ port: 80, nodePort: 30000 }] }, [{ field: "spec.ports[0].nodePort", type: "FieldValueForbidden" }]],
    ["a node port out of range", { type: "NodePort", ports: [{ port: 80, nodePort: 80 }] }, [{ field: "spec.ports[0].nodePort", type: "FieldValueInvalid" }]],
    ["a bad session affinity", { sessionAffinity: "Sticky", ports: [{ port: 80 }] }, [{ field: "spec.sessionAffinity", type: "FieldValueNotSupported" }]],
    [
      "a bad affinity timeout",
      { sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } }, ports: [{ port: 80 }] },
      [{ field: "spec.sessionAffinityConfig.clientIP.timeoutSeconds", type: "FieldValueInvalid" }],
    ],
    ["a bad selector", { selector: { "a b": "c" }, ports: [{ port: 80 }] }, [{ field: "spec.selector", type: "FieldValueInvalid" }]],
    ["a bad cluster IP", { clusterIP: "10.0.0.256", ports: [{ port: 80 }] }, [{ field: "spec.clusterIPs[0]", type: "FieldValueInvalid" }]],
    ["an ExternalName without name", { type: "ExternalName" }, [{ field: "spec.externalName", type: "FieldValueRequired" }]],
    [
      "an ExternalName with a cluster IP",
      { type: "ExternalName", externalName: "example.com", clusterIP: "10.96.0.1" },
      [{ field: "spec.clusterIPs", type: "FieldValueForbidden" }],
    ],
    [
      "externalTrafficPolicy on ClusterIP",
      { externalTrafficPolicy: "Local", ports: [{ port: 80 }] },
      [{ field: "spec.externalTrafficPolicy", type: "FieldValueInvalid" }],
    ],
  ])("refuses %s", (_what, spec, expected) => {
    const s = svc(spec);
    defaultService(s);
    expect(causes(validateService(s))).toEqual(expected);
  });

  it("keeps the cluster IP immutable, and keeps it when an update leaves it out", () => {
    const old = created({ ports: [{ port: 80 }] });
    const oldIP = (old["spec"] as Record<string, unknown>)["clusterIP"];
    const same = svc({ ports: [{ port: 81 }] });
    defaultService(same);
    serviceType.strategy?.prepareForUpdate?.(same, old, ctx);
    expect(same["spec"]).toMatchObject({ clusterIP: oldIP, clusterIPs: [oldIP] });
    expect(validateServiceUpdate(same, old)).toEqual([]);
    const moved = svc({ ports: [{ port: 80 }], clusterIP: "10.96.0.99" });
    defaultService(moved);
    serviceType.strategy?.prepareForUpdate?.(moved, old, ctx);
    expect(validateServiceUpdate(moved, old).map(formatFieldError)).toEqual(['spec.clusterIPs[0]: Invalid value: ["10.96.0.99"]: may not change once set']);
  });

  it("prints TYPE, CLUSTER-IP, EXTERNAL-IP and PORT(S)", () => {
    const s = created({
      type: "LoadBalancer",
      ports: [
        { port: 80, nodePort: 30080 },
        { port: 53, protocol: "UDP", name: "dns" },
      ],
    });
    const columns = serviceType.strategy?.tableColumns ?? [];
    expect(columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(["Type", "Cluster-IP", "External-IP", "Port(s)"]);
    expect(columns[0]?.cell(s)).toBe("LoadBalancer");
    expect(serviceExternalIP(s)).toBe("<pending>");
    expect(servicePorts(s)).toMatch(/^80:30080\/TCP,53:\d+\/UDP$/);
    expect(serviceExternalIP(svc({ type: "ExternalName", externalName: "example.com" }))).toBe("example.com");
    expect(serviceExternalIP(svc({ type: "ClusterIP" }))).toBe("<none>");
    expect(servicePorts(svc({}))).toBe("<none>");
  });
});
