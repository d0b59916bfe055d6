/**
 * The access kinds of the catalog: admission webhook configurations, SubjectAccessReview,
 * TokenReview and CertificateSigningRequest.
 * @module
 */
import { certificateSigningRequestType } from "../certificate-signing-request.js";
import { mutatingWebhookConfigurationType } from "../mutating-webhook-configuration.js";
import type { ResourceType } from "../resource-type.js";
import { selfSubjectReviewType } from "../self-subject-review.js";
import { subjectAccessReviewType } from "../subject-access-review.js";
import { tokenReviewType } from "../token-review.js";
import { validatingWebhookConfigurationType } from "../validating-webhook-configuration.js";

/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration (`admissionregistration`,
 * `v1` and `v1beta1`), SubjectAccessReview, TokenReview and SelfSubjectReview (virtual),
 * CertificateSigningRequest.
 */
export const accessResources: readonly ResourceType[] = [
  mutatingWebhookConfigurationType,
  validatingWebhookConfigurationType,
  subjectAccessReviewType,
  tokenReviewType,
  selfSubjectReviewType,
  certificateSigningRequestType,
];
