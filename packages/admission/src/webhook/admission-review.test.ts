import { configMapType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor } from "../internal/testing.js";
import { admissionReviewRequest, reviewVersionOf, UndecodablePatchError, verifyAdmissionReview, type ExpectedAnswer } from "./admission-review.js";

const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "team" }, data: { a: "1" } };

describe("reviewVersionOf", () => {
  it("is the first of the webhook's versions this server speaks", () => {
    expect(reviewVersionOf(["v1", "v1beta1"])).toBe("v1");
    expect(reviewVersionOf(["v1beta1", "v1"])).toBe("v1beta1");
    expect(reviewVersionOf(["v2", "v1"])).toBe("v1");
    expect(reviewVersionOf(["v2"])).toBeUndefined();
  });
});

describe("admissionReviewRequest", () => {
  it("carries every request field of the reference's AdmissionReview, the matched kind and resource next to the request's own", () => {
    const attrs = attributesFor({
      operation: "UPDATE",
      type: configMapType,
      object,
      oldObject: { ...object, data: {} },
      dryRun: true,
      options: { kind: "UpdateOptions", apiVersion: "meta.orch.io/v1", fieldManager: "kubectl" },
      user: { name: "alice", uid: "u-1", groups: ["dev"], extra: { team: ["blue"] } },
    });
    const review = admissionReviewRequest("orch.io", "v1", "uid-1", attrs, {
      resource: { group: "", version: "v1", resource: "configmaps" },
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      subresource: "",
      object,
      oldObject: { ...object, data: {} },
    });
    expect(review).toEqual({
      apiVersion: "admission.orch.io/v1",
      kind: "AdmissionReview",
      request: {
        uid: "uid-1",
        kind: { group: "", version: "v1", kind: "ConfigMap" },
        resource: { group: "", version: "v1", resource: "configmaps" },
        requestKind: { group: "", version: "v1", kind: "ConfigMap" },
        requestResource: { group: "", version: "v1", resource: "configmaps" },
        name: "cm",
        namespace: "team",
        operation: "UPDATE",
        userInfo: { username: "alice", uid: "u-1", groups: ["dev"], extra: { team: ["blue"] } },
        object,
        oldObject: { ...object, data: {} },
        dryRun: true,
        options: { kind: "UpdateOptions", apiVersion: "meta.orch.io/v1", fieldManager: "kubectl" },
      },
    });
  });

  it("sends null objects and options where there are none, sub-resources when written, and the v1beta1 group", () => {
    const attrs = attributesFor({ operation: "DELETE", type: configMapType, oldObject: object, subresource: "status", domain: "k8s.io" });
    const review = admissionReviewRequest("k8s.io", "v1beta1", "uid-2", attrs, {
      resource: attrs.resource,
      kind: attrs.kind,
      subresource: "status",
      object: undefined,
      oldObject: object,
    }) as { apiVersion: string; request: Record<string, unknown> };
    expect(review.apiVersion).toBe("admission.k8s.io/v1beta1");
    expect(review.request).toMatchObject({
      subResource: "status",
      requestSubResource: "status",
      object: null,
      oldObject: object,
      options: null,
      dryRun: false,
    });
  });
});

describe("verifyAdmissionReview", () => {
  const v1: ExpectedAnswer = { domain: "orch.io", version: "v1", uid: "u", mutating: true };
  const review = (response: unknown, apiVersion = "admission.orch.io/v1") => ({ apiVersion, kind: "AdmissionReview", response });

  it("reads allowed, status, the decoded patch, warnings and audit annotations", () => {
    const patch = btoa('[{"op":"add","path":"/x","value":"é"}]'.replace("é", "\u00c3\u00a9"));
    expect(
      verifyAdmissionReview(review({ uid: "u", allowed: true, patchType: "JSONPatch", patch, warnings: ["careful"], auditAnnotations: { k: "v" } }), v1),
    ).toEqual({
      allowed: true,
      status: undefined,
      patch: '[{"op":"add","path":"/x","value":"é"}]',
      patchType: "JSONPatch",
      warnings: ["careful"],
      auditAnnotations: { k: "v" },
    });
    expect(verifyAdmissionReview(review({ uid: "u", allowed: false, status: { code: 403, message: "no" } }), v1)).toMatchObject({
      allowed: false,
      status: { code: 403, message: "no" },
    });
  });

  it("refuses another version or kind than the one sent, with the reference's wording", () => {
    expect(() => verifyAdmissionReview(review({ uid: "u", allowed: true }, "admission.orch.io/v1beta1"), v1)).toThrow(
      "expected webhook response of admission.orch.io/v1, Kind=AdmissionReview, got admission.orch.io/v1beta1, Kind=AdmissionReview",
    );
    expect(() => verifyAdmissionReview({ apiVersion: "admission.orch.io/v1", kind: "Status" }, v1)).toThrow("got admission.orch.io/v1, Kind=Status");
    expect(() => verifyAdmissionReview([], v1)).toThrow("got a JSON array");
  });

  it("refuses a missing response and (v1) another uid", () => {
    expect(() => verifyAdmissionReview(review(undefined), v1)).toThrow("webhook response was absent");
    expect(() => verifyAdmissionReview(review({ uid: "other", allowed: true }), v1)).toThrow('expected response.uid="u", got "other"');
    // v1beta1 answers were never held to the uid.
    expect(verifyAdmissionReview(review({ allowed: true }, "admission.orch.io/v1beta1"), { ...v1, version: "v1beta1" }).allowed).toBe(true);
  });

  it("v1: patch and patchType go together, only from a mutating webhook", () => {
    expect(() => verifyAdmissionReview(review({ uid: "u", allowed: true, patch: btoa("[]") }), v1)).toThrow(
      "webhook returned response.patch but not response.patchType",
    );
    expect(() => verifyAdmissionReview(review({ uid: "u", allowed: true, patchType: "JSONPatch" }), v1)).toThrow(
      "webhook returned response.patchType but not response.patch",
    );
    const validating = { ...v1, mutating: false };
    expect(() => verifyAdmissionReview(review({ uid: "u", allowed: true, patch: btoa("[]"), patchType: "JSONPatch" }), validating)).toThrow(
      "validating webhook may not return response.patch",
    );
    expect(() => verifyAdmissionReview(review({ uid: "u", allowed: true, patchType: "JSONPatch" }), validating)).toThrow(
      "validating webhook may not return response.patchType",
    );
    expect(verifyAdmissionReview(review({ uid: "u", allowed: true, patch: btoa("[]"), patchType: "MergePatch" }), v1).patchType).toBe("MergePatch");
  });

  it("v1beta1: a patch is a JSON patch, and a validating webhook's patch is ignored", () => {
    const beta = { ...v1, version: "v1beta1" as const };
    const answer = review({ allowed: true, patch: btoa("[]") }, "admission.orch.io/v1beta1");
    expect(verifyAdmissionReview(answer, beta)).toMatchObject({ patch: "[]", patchType: "JSONPatch" });
    expect(verifyAdmissionReview(answer, { ...beta, mutating: false })).toMatchObject({ patch: undefined, patchType: undefined });
  });

  it("a patch that is not base64 is an undecodable patch", () => {
    expect(() => verifyAdmissionReview(review({ uid: "u", allowed: true, patchType: "JSONPatch", patch: "%%%" }), v1)).toThrow(UndecodablePatchError);
  });
});
