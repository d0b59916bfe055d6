/**
 * ValidatingWebhookConfiguration (`admissionregistration.{domain}`, `v1` stored and `v1beta1`
 * served deprecated, cluster-scoped): the webhooks the API server calls to accept or reject
 * writes. `webhooks` is a map list keyed by `name`; each version has its own defaults.
 * @module
 */
import type { APIObject, FieldError } from "@orch/meta";
import { createOptions, updateOptions, validateWebhookConfiguration, webhookConfigurationSchema, webhookConfigurationType } from "./internal/access-webhook.js";
import type { ResourceType } from "./resource-type.js";

/** The zod schema of a ValidatingWebhookConfiguration in `v1` (the storage version). */
export const validatingWebhookConfigurationV1Schema = webhookConfigurationSchema("v1", "Validating");

/** The zod schema of a ValidatingWebhookConfiguration in `v1beta1` (no `matchConditions`). */
export const validatingWebhookConfigurationV1beta1Schema = webhookConfigurationSchema("v1beta1", "Validating");

/**
 * The rules of a create (pair with `validateObjectMeta`), as the reference's
 * `ValidateValidatingWebhookConfiguration`: per webhook a fully qualified name of at least three
 * segments, rules (operations `*`/CREATE/UPDATE/DELETE/CONNECT, groups, versions, resources,
 * scope `*`/Cluster/Namespaced), failurePolicy Fail/Ignore, matchPolicy Exact/Equivalent,
 * sideEffects (`None`/`NoneOnDryRun` required in `v1`), timeoutSeconds 1 to 30, label
 * selectors, exactly one of `clientConfig.url` (https, no user, fragment or query) and
 * `clientConfig.service`, admissionReviewVersions naming `v1` or `v1beta1`, unique names.
 * Objects written through `v1beta1` keep that version's looser sideEffects and name rules.
 */
export function validateValidatingWebhookConfiguration(object: APIObject): FieldError[] {
  return validateWebhookConfiguration(object, "Validating", createOptions(object));
}

/**
 * The rules of an update: those of a create, relaxed as the reference relaxes them for objects
 * that already broke them (side effects, unrecognized review versions, duplicate names).
 */
export function validateValidatingWebhookConfigurationUpdate(object: APIObject, old: APIObject): FieldError[] {
  return validateWebhookConfiguration(object, "Validating", updateOptions(object, old));
}

/** The ValidatingWebhookConfiguration resource type. */
export const validatingWebhookConfigurationType: ResourceType = webhookConfigurationType(
  "Validating",
  validatingWebhookConfigurationV1Schema,
  validatingWebhookConfigurationV1beta1Schema,
);
