import { formatFieldError, mergeMarkersOf, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  builtInSignerNames,
  checkSignerAccess,
  certificateSigningRequestStatusSchema,
  certificateSigningRequestType,
  csrConditionCell,
  validateCertificateSigningRequest,
  validateCertificateSigningRequestUpdate,
} from "./certificate-signing-request.js";
import { encodeBase64Text } from "./internal/base64.js";

/** A real PKCS#10 request (EC P-256, CN=system:node:worker-1), base64 of its PEM. */
const request =
  "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIeE1JR1lBZ0VBTURZeEhUQWJCZ05WQkFNTUZITjVjM1JsYlRwdWIyUmxPbmR2Y210bGNpMHhNUlV3RXdZRApWUVFLREF4emVYTjBaVzA2Ym05a1pYTXdXVEFUQmdjcWhrak9QUUlCQmdncWhrak9QUU1CQndOQ0FBUTZzYjFsCnVnUEczbmhKTmQwc1haNXRLUGNmYzFMbzFUemtvd3BNSWJuRElOMFY1bHZFRDJ1MzJaVTErZmdvLzJaUVRrbnAKei9RcDVoaXRZcWUyWnlJUm9BQXdDZ1lJS29aSXpqMEVBd0lEU0FBd1JRSWdMbm1pQk5DNEk3ejhNcEdsbStVYwppWDQ5WEQzRjF0RldZa25XamgyQ1BMRUNJUUNlQlowSWR4MVpvdDROM1ZRVGJDeEhHMHZYaU03Zms1Z05aenZzCjl2SnBNZz09Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";
/** A real self-signed certificate, base64 of its PEM. */
const certificate =
  "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJiVENDQVJPZ0F3SUJBZ0lVVjZTcVdlTUpBR29ob2RVRXRXaS8xc2c5QjVzd0NnWUlLb1pJemowRUF3SXcKRERFS01BZ0dBMVVFQXd3QmVEQWVGdzB5TmpFeE1qRXlNakEzTkRCYUZ3MHlOakV4TWpJeU1qQTNOREJhTUF3eApDakFJQmdOVkJBTU1BWGd3V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPUFFNQkJ3TkNBQVE2c2IxbHVnUEczbmhKCk5kMHNYWjV0S1BjZmMxTG8xVHprb3dwTUlibkRJTjBWNWx2RUQydTMyWlUxK2Znby8yWlFUa25wei9RcDVoaXQKWXFlMlp5SVJvMU13VVRBZEJnTlZIUTRFRmdRVXN2R0p5L0dYOGM3U3pYcEE4ZGVsQVVJUFdKUXdId1lEVlIwagpCQmd3Rm9BVXN2R0p5L0dYOGM3U3pYcEE4ZGVsQVVJUFdKUXdEd1lEVlIwVEFRSC9CQVV3QXdFQi96QUtCZ2dxCmhrak9QUVFEQWdOSUFEQkZBaUJsYkhBZThuN2twb0x3MHlDUXNwL3l4dlNZTzc1RnFMMnVTdUthaGhVY3B3SWgKQUlUY0pkMk51WHlqbGEwVURIK2JRNWdkblJiV2ozVnBxWTN3OUdnYmlPR1cKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";

const ctx = { domain: "orch.io", now: Date.UTC(2026, 10, 21, 20, 0, 0) };
const csr = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): APIObject => ({
  apiVersion: "certificates.orch.io/v1",
  kind: "CertificateSigningRequest",
  metadata: { name: "node-csr" },
  spec: { request, signerName: "orch.io/kube-apiserver-client-kubelet", usages: ["digital signature", "client auth"], ...spec },
  ...(status ? { status } : {}),
});
const errorsOf = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);
const approved = { type: "Approved", status: "True", reason: "AutoApproved" };
const strategy = certificateSigningRequestType.strategy;

describe("CertificateSigningRequest", () => {
  it("is a cluster-scoped certificates kind with short name csr and sub-resources status and approval", () => {
    expect(certificateSigningRequestType).toMatchObject({
      group: "certificates.{domain}",
      resource: "certificatesigningrequests",
      kind: "CertificateSigningRequest",
      shortNames: ["csr"],
      scope: "Cluster",
      subresources: ["status", "approval"],
    });
    expect(strategy?.subresourceStrategies?.["approval"]).toBeDefined();
    expect(mergeMarkersOf(certificateSigningRequestStatusSchema.shape.conditions)).toEqual({ listType: "map", listMapKeys: ["type"] });
  });

  it("accepts a real request, and an approved and issued one", () => {
    expect(validateCertificateSigningRequest(csr({ expirationSeconds: 600 }), ctx)).toEqual([]);
    expect(validateCertificateSigningRequest(csr({}, { conditions: [approved, { type: "Failed", status: "False" }], certificate }), ctx)).toEqual([]);
  });

  it.each([
    ["no request", { request: undefined }, undefined, [["spec.request", "FieldValueRequired"]]],
    ["a request that is not PEM", { request: encodeBase64Text("hello") }, undefined, [["spec.request", "FieldValueInvalid"]]],
    ["a PEM block of another type", { request: certificate }, undefined, [["spec.request", "FieldValueInvalid"]]],
    [
      "a CERTIFICATE REQUEST that is not DER",
      { request: encodeBase64Text("-----BEGIN CERTIFICATE REQUEST-----\nAAEC\n-----END CERTIFICATE REQUEST-----\n") },
      undefined,
      [["spec.request", "FieldValueInvalid"]],
    ],
    ["no usages", { usages: [] }, undefined, [["spec.usages", "FieldValueRequired"]]],
    ["an unknown usage", { usages: ["digital signature", "flying"] }, undefined, [["spec.usages[1]", "FieldValueNotSupported"]]],
    ["a duplicate usage", { usages: ["client auth", "client auth"] }, undefined, [["spec.usages[1]", "FieldValueDuplicate"]]],
    ["no signerName", { signerName: "" }, undefined, [["spec.signerName", "FieldValueRequired"]]],
    ["a signerName without path", { signerName: "orch.io" }, undefined, [["spec.signerName", "FieldValueInvalid"]]],
    ["a signerName with a one-label domain", { signerName: "orch/signer" }, undefined, [["spec.signerName", "FieldValueInvalid"]]],
    ["a signerName with a bad path", { signerName: "example.com/Signer" }, undefined, [["spec.signerName", "FieldValueInvalid"]]],
    ["the legacy signerName", { signerName: "orch.io/legacy-unknown" }, undefined, [["spec.signerName", "FieldValueInvalid"]]],
    ["expirationSeconds below 600", { expirationSeconds: 599 }, undefined, [["spec.expirationSeconds", "FieldValueInvalid"]]],
    ["a condition without type", {}, { conditions: [{ status: "True" }] }, [["status.conditions[0].type", "FieldValueRequired"]]],
    ["a condition without status", {}, { conditions: [{ type: "Failed" }] }, [["status.conditions[0].status", "FieldValueRequired"]]],
    ["a condition status Maybe", {}, { conditions: [{ type: "Failed", status: "Maybe" }] }, [["status.conditions[0].status", "FieldValueNotSupported"]]],
    ["Approved with status False", {}, { conditions: [{ type: "Approved", status: "False" }] }, [["status.conditions[0].status", "FieldValueInvalid"]]],
    ["Denied with status Unknown", {}, { conditions: [{ type: "Denied", status: "Unknown" }] }, [["status.conditions[0].status", "FieldValueInvalid"]]],
    ["a condition type twice", {}, { conditions: [approved, approved] }, [["status.conditions[1].type", "FieldValueDuplicate"]]],
    ["Approved and Denied", {}, { conditions: [approved, { type: "Denied", status: "True" }] }, [["status.conditions", "FieldValueInvalid"]]],
    ["a certificate that is not a CERTIFICATE", {}, { certificate: request }, [["status.certificate", "FieldValueInvalid"]]],
    ["a certificate without PEM", {}, { certificate: encodeBase64Text("nope") }, [["status.certificate", "FieldValueInvalid"]]],
  ])("refuses %s", (_what, spec, status, expected) => {
    const object = csr(spec, status);
    const s = object["spec"] as Record<string, unknown>;
    for (const [k, v] of Object.entries(s)) if (v === undefined) delete s[k];
    expect(errorsOf(validateCertificateSigningRequest(object, ctx))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    const errors = validateCertificateSigningRequest(csr({ signerName: "orch.io", expirationSeconds: 60, request: certificate }), ctx);
    expect(errors.map(formatFieldError).map((m) => m.replace(/"[A-Za-z0-9+/=]{40,}"/, "<request>"))).toEqual([
      "spec.request: Invalid value: <request>: PEM block type must be CERTIFICATE REQUEST",
      "spec.signerName: Invalid value: \"orch.io\": must be a fully qualified domain and path of the form 'example.com/signer-name'",
      "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)",
    ]);
  });

  it.each([
    ["a changed request", csr({ request: encodeBase64Text("x") }), csr(), "main", [["spec.request", "FieldValueInvalid"]]],
    ["a changed signerName", csr({ signerName: "example.com/other" }), csr(), "main", [["spec.signerName", "FieldValueInvalid"]]],
    ["a removed Approved condition", csr(), csr({}, { conditions: [approved] }), "approval", [["status.conditions", "FieldValueForbidden"]]],
    [
      "a removed Failed condition",
      csr(),
      csr({}, { conditions: [{ type: "Failed", status: "True" }] }),
      "status",
      [["status.conditions", "FieldValueForbidden"]],
    ],
    ["Approved added through /status", csr({}, { conditions: [approved] }), csr(), "status", [["status.conditions", "FieldValueForbidden"]]],
    ["a certificate set through the main resource", csr({}, { certificate }), csr(), "main", [["status.certificate", "FieldValueForbidden"]]],
    ["an issued certificate changed", csr({}, { certificate: request }), csr({}, { certificate }), "status", [["status.certificate", "FieldValueForbidden"]]],
  ] as const)("refuses on update %s", (_what, object, old, writer, expected) => {
    expect(errorsOf(validateCertificateSigningRequestUpdate(object, old, writer))).toEqual(expected);
  });

  it("lets approval add Approved and status set the certificate", () => {
    expect(validateCertificateSigningRequestUpdate(csr({}, { conditions: [approved] }), csr(), "approval")).toEqual([]);
    expect(validateCertificateSigningRequestUpdate(csr({}, { conditions: [approved], certificate }), csr({}, { conditions: [approved] }), "status")).toEqual(
      [],
    );
  });

  it("defaults usages to digital signature and key encipherment, and condition status to True", () => {
    const object = csr({ usages: undefined }, { conditions: [{ type: "Approved" }] });
    delete (object["spec"] as Record<string, unknown>)["usages"];
    strategy?.defaults?.(object, ctx);
    expect(object).toMatchObject({
      spec: { usages: ["digital signature", "key encipherment"] },
      status: { conditions: [{ type: "Approved", status: "True" }] },
    });
  });

  it("drops status on create and keeps the old status on an update of the main resource", () => {
    const object = csr({}, { conditions: [approved] });
    strategy?.prepareForCreate?.(object, ctx);
    expect(object).not.toHaveProperty("status");
    const next = csr({}, { certificate });
    strategy?.prepareForUpdate?.(next, csr({}, { conditions: [approved] }), ctx);
    expect(next["status"]).toEqual({ conditions: [approved] });
  });

  it("approval changes only the conditions, stamping their times", () => {
    const old = csr({}, { certificate });
    const next = csr({ signerName: "example.com/x" }, { conditions: [approved] });
    strategy?.subresourceStrategies?.["approval"]?.prepareForUpdate?.(next, old, ctx);
    expect(next["spec"]).toEqual(old["spec"]);
    expect(next["status"]).toEqual({
      certificate,
      conditions: [{ ...approved, lastUpdateTime: "2026-11-21T20:00:00Z", lastTransitionTime: "2026-11-21T20:00:00Z" }],
    });
  });

  it("a /status write keeps the spec and the existing Approved condition", () => {
    const stamped = { ...approved, lastUpdateTime: "2026-01-01T00:00:00Z", lastTransitionTime: "2026-01-01T00:00:00Z" };
    const old = csr({}, { conditions: [stamped] });
    const next = csr({ usages: ["any"] }, { conditions: [{ type: "Approved", status: "True", reason: "Changed" }], certificate });
    strategy?.prepareForStatusUpdate?.(next, old, ctx);
    expect(next["spec"]).toEqual(old["spec"]);
    expect(next["status"]).toEqual({ conditions: [stamped], certificate });
  });

  it("selects by spec.signerName", () => {
    expect(strategy?.selectableFieldNames).toEqual(["spec.signerName"]);
    expect(strategy?.selectableFields?.(csr())).toEqual({ "spec.signerName": "orch.io/kube-apiserver-client-kubelet" });
  });

  it("prints NAME, AGE, SIGNERNAME, REQUESTOR, REQUESTEDDURATION and CONDITION, in the reference's order", () => {
    expect(strategy?.tableColumnsComplete).toBe(true);
    const columns = strategy?.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"]);
    const object = csr({ username: "system:node:worker-1", expirationSeconds: 3600 }, { conditions: [approved], certificate });
    object.metadata = { ...object.metadata, name: "node-csr-1", creationTimestamp: "2026-01-01T00:00:00Z" };
    const now = Date.parse("2026-01-01T00:05:00Z");
    expect(columns.map((c) => c.cell(object, now))).toEqual([
      "node-csr-1",
      "5m",
      "orch.io/kube-apiserver-client-kubelet",
      "system:node:worker-1",
      "60m",
      "Approved,Issued",
    ]);
    expect(columns[4]?.cell(csr())).toBe("<none>");
    expect(csrConditionCell(csr())).toBe("Pending");
    expect(
      csrConditionCell(
        csr(
          {},
          {
            conditions: [
              { type: "Denied", status: "True" },
              { type: "Failed", status: "True" },
            ],
          },
        ),
      ),
    ).toBe("Denied,Failed");
  });
});

describe("builtInSignerNames", () => {
  it("names the four signers after the domain, and the reference's under k8s.io", () => {
    expect(builtInSignerNames("orch.io")).toEqual({
      apiServerClient: "orch.io/orch-apiserver-client",
      apiServerClientNodeAgent: "orch.io/orch-apiserver-client-nodeagent",
      nodeAgentServing: "orch.io/nodeagent-serving",
      legacyUnknown: "orch.io/legacy-unknown",
    });
    expect(builtInSignerNames("k8s.io")).toEqual({
      apiServerClient: "kubernetes.io/kube-apiserver-client",
      apiServerClientNodeAgent: "kubernetes.io/kube-apiserver-client-kubelet",
      nodeAgentServing: "kubernetes.io/kubelet-serving",
      legacyUnknown: "kubernetes.io/legacy-unknown",
    });
  });

  it("refuses kubernetes.io/legacy-unknown in v1 under k8s.io", () => {
    const errors = validateCertificateSigningRequest(csr({ signerName: "kubernetes.io/legacy-unknown" }), { domain: "k8s.io" });
    expect(errors.map(formatFieldError)).toEqual([
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
  });
});

describe("checkSignerAccess", () => {
  const csr = (conditions: string[], certificate?: string): APIObject => ({
    apiVersion: "certificates.orch.io/v1",
    kind: "CertificateSigningRequest",
    metadata: { name: "node-1" },
    spec: { signerName: "orch.io/orch-apiserver-client" },
    status: { conditions: conditions.map((type) => ({ type, status: "True" })), ...(certificate ? { certificate } : {}) },
  });
  const asked: string[] = [];
  const ctxAllowing = (allowed: string[]) => ({
    domain: "orch.io",
    now: 0,
    user: { name: "approver", groups: [] },
    authorize: async (a: { verb: string; resource?: string; name?: string }) => {
      asked.push(`${a.verb} ${a.resource ?? ""} ${a.name ?? ""}`);
      return { decision: allowed.includes(`${a.verb} ${a.name ?? ""}`) ? ("allow" as const) : ("noOpinion" as const), reason: "" };
    },
  });

  it("lets an approval through with approve on the signer, or on its domain's wildcard", async () => {
    asked.length = 0;
    await checkSignerAccess(csr(["Approved"]), csr([]), "approval", ctxAllowing(["approve orch.io/orch-apiserver-client"]));
    await checkSignerAccess(csr(["Approved"]), csr([]), "approval", ctxAllowing(["approve orch.io/*"]));
    expect(asked).toEqual(["approve signers orch.io/orch-apiserver-client", "approve signers orch.io/orch-apiserver-client", "approve signers orch.io/*"]);
  });

  it("refuses an approval without approve, as the reference words it", async () => {
    await expect(checkSignerAccess(csr(["Approved"]), csr([]), "approval", ctxAllowing([]))).rejects.toMatchObject({
      status: {
        code: 403,
        message:
          'certificatesigningrequests.certificates.orch.io "node-1" is forbidden: user not permitted to approve requests with signerName "orch.io/orch-apiserver-client"',
      },
    });
  });

  it("needs sign to set the certificate through status, and nothing for other status changes", async () => {
    await expect(checkSignerAccess(csr(["Approved"], "Y2VydA=="), csr(["Approved"]), "status", ctxAllowing([]))).rejects.toMatchObject({
      status: { code: 403 },
    });
    await checkSignerAccess(csr(["Approved"], "Y2VydA=="), csr(["Approved"]), "status", ctxAllowing(["sign orch.io/orch-apiserver-client"]));
    await checkSignerAccess(csr(["Approved", "Failed"]), csr(["Approved"]), "status", ctxAllowing([]));
  });
});
