import { isMethodNotAllowed, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { evaluateImageReview, imageReviewType, imageReviewV1alpha1Schema } from "./image-review.js";
import { openAPIDocument } from "./openapi.js";
import { ResourceRegistry } from "./registry.js";
import type { ImageReviewResult } from "./resource-type.js";

const ctx = { domain: "orch.io", now: 0 };
const review = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): APIObject => ({
  apiVersion: "imagepolicy.orch.io/v1alpha1",
  kind: "ImageReview",
  metadata: {},
  spec,
  ...extra,
});
const spec = {
  containers: [{ image: "registry.example/app:1.0" }, { image: "busybox@sha256:0000" }],
  annotations: { "mode.image-policy.orch.io/break-glass": "true" },
  namespace: "default",
};

describe("ImageReview", () => {
  it("is a virtual, cluster-scoped imagepolicy kind offering only create, off by default", () => {
    expect(imageReviewType).toMatchObject({
      group: "imagepolicy.{domain}",
      resource: "imagereviews",
      kind: "ImageReview",
      scope: "Cluster",
      virtual: true,
      verbs: ["create"],
    });
    expect(imageReviewType.versions).toMatchObject([{ name: "v1alpha1", storage: true, enabledByDefault: false }]);
  });

  it("decodes containers' images, the annotations map, the namespace and the status", () => {
    const body = review(spec, { status: { allowed: false, reason: "no", auditAnnotations: { a: "b" } } });
    expect(imageReviewV1alpha1Schema.parse(body)).toEqual(body);
  });

  it.each([
    ["an image that is not a string", { containers: [{ image: 5 }] }],
    ["containers that are not a list", { containers: { image: "x" } }],
    ["an annotation value that is not a string", { annotations: { a: 1 } }],
    ["a namespace that is not a string", { namespace: ["default"] }],
  ])("refuses %s", (_what, bad) => {
    expect(imageReviewV1alpha1Schema.safeParse(review(bad)).success).toBe(false);
  });

  it("refuses a create with 405 naming the ImagePolicyWebhook plugin where no image reviewer is supplied", async () => {
    let thrown: unknown;
    try {
      await evaluateImageReview(review(spec), ctx);
    } catch (error) {
      thrown = error;
    }
    expect(isMethodNotAllowed(thrown)).toBe(true);
    expect((thrown as Error).message).toBe(
      'create is not supported on resources of kind "imagereviews.imagepolicy.orch.io": ImageReview needs the ImagePolicyWebhook admission plugin',
    );
  });

  it("answers with the reviewer's decision, which sees the spec and not the body's own status", async () => {
    const asked: APIObject[] = [];
    const reviewing = {
      ...ctx,
      reviewImages: async (r: APIObject): Promise<ImageReviewResult> => {
        asked.push(r);
        return { allowed: false, reason: "image not signed", auditAnnotations: { "image-policy": "denied" } };
      },
    };
    const answer = await imageReviewType.strategy?.evaluate?.(review(spec, { status: { allowed: true } }), reviewing);
    expect(asked).toEqual([review(spec)]);
    expect(answer).toEqual(review(spec, { status: { allowed: false, reason: "image not signed", auditAnnotations: { "image-policy": "denied" } } }));
  });

  it("leaves an empty reason and empty audit annotations out of the status, as the reference's JSON does", async () => {
    const answer = await evaluateImageReview(review(spec), { ...ctx, reviewImages: async () => ({ allowed: true, reason: "", auditAnnotations: {} }) });
    expect(answer["status"]).toEqual({ allowed: true });
  });

  it("has an OpenAPI document in imagepolicy.<domain>/v1alpha1 with its named components", () => {
    const doc = openAPIDocument(new ResourceRegistry([imageReviewType], "k8s.io"), "imagepolicy.k8s.io", "v1alpha1");
    expect(Object.keys(doc?.components.schemas ?? {})).toEqual(
      expect.arrayContaining([
        "io.k8s.api.imagepolicy.v1alpha1.ImageReview",
        "io.k8s.api.imagepolicy.v1alpha1.ImageReviewSpec",
        "io.k8s.api.imagepolicy.v1alpha1.ImageReviewStatus",
        "io.k8s.api.imagepolicy.v1alpha1.ImageReviewContainerSpec",
      ]),
    );
    expect(Object.keys(doc?.paths ?? {})).toEqual(["/apis/imagepolicy.k8s.io/v1alpha1/imagereviews"]);
  });
});
