import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { apiServiceType, defaultAPIService, validateAPIService, validateAPIServiceStatus } from "./api-service.js";

const ctx = { domain: "orch.io", now: 0 };
const ca = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t";
const spec = { group: "metrics.example.com", version: "v1beta1", groupPriorityMinimum: 100, versionPriority: 10 };
const svc = (extra: Record<string, unknown> = {}, name = "v1beta1.metrics.example.com"): APIObject => ({
  metadata: { name },
  spec: { ...spec, service: { namespace: "kube-system", name: "metrics", port: 443 }, ...extra },
});
const local = (extra: Record<string, unknown> = {}, name = "v1beta1.metrics.example.com"): APIObject => ({ metadata: { name }, spec: { ...spec, ...extra } });
const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);
const strategy = apiServiceType.strategy ?? {};

describe("APIService", () => {
  it("is a cluster-scoped apiregistration.{domain}/v1 kind with a status sub-resource", () => {
    expect(apiServiceType).toMatchObject({ group: "apiregistration.{domain}", resource: "apiservices", scope: "Cluster", subresources: ["status"] });
  });

  it("defaults the service port to 443 and leaves a local APIService alone", () => {
    const object: APIObject = { metadata: { name: "v1beta1.metrics.example.com" }, spec: { ...spec, service: { namespace: "a", name: "b" } } };
    defaultAPIService(object);
    expect(object["spec"]).toMatchObject({ service: { port: 443 } });
    const plain = local();
    strategy.defaults?.(plain, ctx);
    expect(plain["spec"]).toEqual(spec);
  });

  it.each([
    ["a valid proxied service", svc({ caBundle: ca }), []],
    ["a valid local service", local(), []],
    ["the legacy v1 with an empty group", local({ group: "", version: "v1" }, "v1."), []],
    ["a name other than <version>.<group>", svc({}, "metrics"), [["metadata.name", "FieldValueInvalid"]]],
    ["an empty group with version other than v1", local({ group: "", version: "v2" }, "v2."), [["spec.group", "FieldValueRequired"]]],
    ["a group that is not a DNS subdomain", local({ group: "Bad_Group" }, "v1beta1.Bad_Group"), [["spec.group", "FieldValueInvalid"]]],
    ["a version that is not a DNS-1035 label", local({ version: "1x" }, "1x.metrics.example.com"), [["spec.version", "FieldValueInvalid"]]],
    ["groupPriorityMinimum 0", local({ groupPriorityMinimum: 0 }), [["spec.groupPriorityMinimum", "FieldValueInvalid"]]],
    ["groupPriorityMinimum 20001", local({ groupPriorityMinimum: 20001 }), [["spec.groupPriorityMinimum", "FieldValueInvalid"]]],
    ["a missing versionPriority", local({ versionPriority: undefined }), [["spec.versionPriority", "FieldValueInvalid"]]],
    ["versionPriority 1001", local({ versionPriority: 1001 }), [["spec.versionPriority", "FieldValueInvalid"]]],
    ["a local service with a caBundle", local({ caBundle: ca }), [["spec.caBundle", "FieldValueInvalid"]]],
    ["a local service skipping TLS verification", local({ insecureSkipTLSVerify: true }), [["spec.insecureSkipTLSVerify", "FieldValueInvalid"]]],
    [
      "a service without namespace and name",
      local({ service: { port: 443 } }),
      [
        ["spec.service.namespace", "FieldValueRequired"],
        ["spec.service.name", "FieldValueRequired"],
      ],
    ],
    ["port 0", svc({ service: { namespace: "a", name: "b", port: 0 } }), [["spec.service.port", "FieldValueInvalid"]]],
    ["port 65536", svc({ service: { namespace: "a", name: "b", port: 65536 } }), [["spec.service.port", "FieldValueInvalid"]]],
    ["insecureSkipTLSVerify with a caBundle", svc({ caBundle: ca, insecureSkipTLSVerify: true }), [["spec.insecureSkipTLSVerify", "FieldValueInvalid"]]],
  ])("validates %s", (_what, object, expected) => {
    expect(causes(validateAPIService(object))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    expect(validateAPIService(svc({}, "metrics"))[0]?.detail).toBe('must be `spec.version+"."+spec.group`: "v1beta1.metrics.example.com"');
    expect(validateAPIService(local({ versionPriority: 0 }))[0]?.detail).toBe("must be positive and less than 1000");
    expect(validateAPIService(svc({ service: { namespace: "a", name: "b", port: 0 } }))[0]?.detail).toBe(
      "port is not valid: must be between 1 and 65535, inclusive",
    );
  });

  it("starts with an empty status, keeps it on spec writes and checks condition statuses on /status", () => {
    const object = svc();
    object["status"] = { conditions: [{ type: "Available", status: "True" }] };
    strategy.prepareForCreate?.(object, ctx);
    expect(object["status"]).toEqual({});
    const old = { ...svc(), status: { conditions: [{ type: "Available", status: "False" }] } };
    const next = { ...svc(), status: { conditions: [] } };
    strategy.prepareForUpdate?.(next, old, ctx);
    expect(next["status"]).toEqual(old.status);
    expect(causes(validateAPIServiceStatus({ ...svc(), status: { conditions: [{ type: "Available", status: "Yes" }] } }))).toEqual([
      ["status.conditions[0].status", "FieldValueNotSupported"],
    ]);
  });

  it("prints SERVICE and AVAILABLE", () => {
    const columns = strategy.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Service", "Available"]);
    expect(columns.map((c) => c.cell(svc()))).toEqual(["kube-system/metrics", "Unknown"]);
    const down = { ...local(), status: { conditions: [{ type: "Available", status: "False", reason: "MissingEndpoints" }] } };
    expect(columns.map((c) => c.cell(down))).toEqual(["Local", "False (MissingEndpoints)"]);
  });
});
