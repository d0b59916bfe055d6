/**
 * ImageReview (`imagepolicy.{domain}/v1alpha1`, cluster-scoped, virtual: only `create`, answered
 * and never stored): asks the image policy webhook whether the images of a pod may run. The
 * version is alpha and off by default: a server serves it only when its runtime config turns
 * `imagepolicy.<domain>/v1alpha1` on.
 * @module
 */
import { listType, statusError, type APIObject, type StatusError } from "@orch/meta";
import { z } from "zod";
import type { ImageReviewResult, ResourceType, StrategyContext } from "./resource-type.js";
import { named, optionalString, stringMap } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ImageReviewContainerSpec`: one container's image. */
export const imageReviewContainerSpecSchema = named(
  z
    .object({
      image: optionalString("This can be in the form image:tag or image@SHA:0000"),
    })
    .meta({ description: "ImageReviewContainerSpec is a description of a container within the pod creation request." }),
  "api.imagepolicy.v1alpha1.ImageReviewContainerSpec",
);

/** `ImageReviewSpec`: the pod being admitted, as far as the image policy sees it. */
export const imageReviewSpecSchema = named(
  z
    .object({
      annotations: stringMap()
        .optional()
        .describe(
          "Annotations is a list of key-value pairs extracted from the Pod's annotations. It only includes keys which match the pattern `*.image-policy.<domain>/*`. It is up to each webhook backend to determine how to interpret these annotations, if at all.",
        ),
      containers: listType(z.array(imageReviewContainerSpecSchema), "atomic")
        .optional()
        .describe("Containers is a list of a subset of the information in each container of the Pod being created."),
      namespace: optionalString("Namespace is the namespace the pod is being created in."),
    })
    .meta({ description: "ImageReviewSpec is a description of the pod creation request." }),
  "api.imagepolicy.v1alpha1.ImageReviewSpec",
);

/** `ImageReviewStatus`: the webhook's decision. */
export const imageReviewStatusSchema = named(
  z
    .object({
      allowed: z.boolean().optional().describe("Allowed indicates that all images were allowed to be run."),
      auditAnnotations: stringMap()
        .optional()
        .describe(
          "AuditAnnotations will be added to the attributes object of the admission controller request using 'AddAnnotation'.  keys should be prefix-less (i.e., without the admission controller name).",
        ),
      reason: optionalString(
        "Reason should be empty unless Allowed is false in which case it may contain a short description of what is wrong.  Kubernetes may truncate excessively long errors when displaying to the user.",
      ),
    })
    .meta({ description: "ImageReviewStatus is the result of the review for the pod creation request." }),
  "api.imagepolicy.v1alpha1.ImageReviewStatus",
);

/** The zod schema of an ImageReview in `v1alpha1`. */
export const imageReviewV1alpha1Schema = kindSchema(
  {
    spec: imageReviewSpecSchema.optional().describe("Spec holds information about the pod being evaluated"),
    status: imageReviewStatusSchema.optional().describe("Status is filled in by the backend and indicates whether the pod should be allowed."),
  },
  "ImageReview checks if the set of images in a pod are allowed.",
);

/**
 * The refusal of an ImageReview on a server that does not run the ImagePolicyWebhook admission
 * plugin (no `ctx.reviewImages`): 405 MethodNotAllowed, as for a kind without the verb.
 */
export function imageReviewUnsupported(domain: string): StatusError {
  const group = `imagepolicy.${domain}`;
  return statusError(
    "MethodNotAllowed",
    `create is not supported on resources of kind "imagereviews.${group}": ImageReview needs the ImagePolicyWebhook admission plugin`,
    { details: { group, kind: "imagereviews" } },
  );
}

/**
 * The answer to an ImageReview: `status` as the image policy webhook decided, through
 * `ctx.reviewImages`, which sees the review without the body's own `status`. `reason` and
 * `auditAnnotations` are left out when empty, as the reference's JSON does.
 * @throws StatusError 405 MethodNotAllowed ({@link imageReviewUnsupported}) without `ctx.reviewImages`.
 */
export async function evaluateImageReview(object: APIObject, ctx: StrategyContext): Promise<APIObject> {
  if (!ctx.reviewImages) throw imageReviewUnsupported(ctx.domain);
  const { status: _ignored, ...review } = object;
  const result: ImageReviewResult = await ctx.reviewImages(review as APIObject);
  const status: Record<string, unknown> = { allowed: result.allowed === true };
  if (result.reason) status["reason"] = result.reason;
  if (result.auditAnnotations && Object.keys(result.auditAnnotations).length > 0) status["auditAnnotations"] = { ...result.auditAnnotations };
  return { ...review, status } as APIObject;
}

/**
 * The ImageReview resource type: virtual, cluster-scoped, `create` only, answered by the image
 * policy webhook; `v1alpha1` is off unless the server's runtime config turns it on.
 */
export const imageReviewType: ResourceType = {
  group: "imagepolicy.{domain}",
  resource: "imagereviews",
  singular: "imagereview",
  kind: "ImageReview",
  scope: "Cluster",
  versions: [{ name: "v1alpha1", schema: imageReviewV1alpha1Schema, storage: true, enabledByDefault: false }],
  verbs: ["create"],
  virtual: true,
  strategy: {
    evaluate: (object, ctx) => evaluateImageReview(object, ctx),
  },
};
