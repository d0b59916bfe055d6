/**
 * The access kinds of the catalog: admission webhook configurations, the access reviews
 * (SubjectAccessReview and its local and self kin, SelfSubjectRulesReview), TokenReview,
 * SelfSubjectReview, ImageReview, CertificateSigningRequest, and RBAC's roles and bindings.
 * @module
 */
import { certificateSigningRequestType } from "../certificate-signing-request.js";
import { clusterRoleBindingType } from "../cluster-role-binding.js";
import { clusterRoleType } from "../cluster-role.js";
import { imageReviewType } from "../image-review.js";
import { localSubjectAccessReviewType } from "../local-subject-access-review.js";
import { mutatingWebhookConfigurationType } from "../mutating-webhook-configuration.js";
import type { ResourceType } from "../resource-type.js";
import { roleBindingType } from "../role-binding.js";
import { roleType } from "../role.js";
import { selfSubjectAccessReviewType } from "../self-subject-access-review.js";
import { selfSubjectReviewType } from "../self-subject-review.js";
import { selfSubjectRulesReviewType } from "../self-subject-rules-review.js";
import { subjectAccessReviewType } from "../subject-access-review.js";
import { tokenReviewType } from "../token-review.js";
import { validatingWebhookConfigurationType } from "../validating-webhook-configuration.js";

/**
 * MutatingWebhookConfiguration and ValidatingWebhookConfiguration (`admissionregistration`,
 * `v1` and `v1beta1`), SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectAccessReview,
 * SelfSubjectRulesReview, TokenReview and SelfSubjectReview (virtual), ImageReview
 * (`imagepolicy/v1alpha1`, virtual, off by default), CertificateSigningRequest, and Role,
 * ClusterRole, RoleBinding and ClusterRoleBinding (`rbac.authorization`).
 */
export const accessResources: readonly ResourceType[] = [
  mutatingWebhookConfigurationType,
  validatingWebhookConfigurationType,
  subjectAccessReviewType,
  localSubjectAccessReviewType,
  selfSubjectAccessReviewType,
  selfSubjectRulesReviewType,
  tokenReviewType,
  selfSubjectReviewType,
  imageReviewType,
  certificateSigningRequestType,
  roleType,
  clusterRoleType,
  roleBindingType,
  clusterRoleBindingType,
];
