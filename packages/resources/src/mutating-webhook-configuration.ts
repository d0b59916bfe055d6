/**
 * MutatingWebhookConfiguration (`admissionregistration.{domain}`, `v1` stored and `v1beta1`
 * served deprecated, cluster-scoped): the webhooks the API server calls to accept or reject
 * writes. `webhooks` is a map list keyed by `name`; each version has its own defaults.
 * @module
 */
import type { APIObject, FieldError } from "@orch/meta";
import { createOptions, updateOptions, validateWebhookConfiguration, webhookConfigurationSchema, webhookConfigurationType } from "./internal/access-webhook.js";
import type { ResourceType } from "./resource-type.js";

/** The zod schema of a MutatingWebhookConfiguration in `v1` (the storage version). */
export const mutatingWebhookConfigurationV1Schema = webhookConfigurationSchema("v1", "Mutating");

/** The zod schema of a MutatingWebhookConfiguration in `v1beta1` (no `matchConditions`). */
export const mutatingWebhookConfigurationV1beta1Schema = webhookConfigurationSchema("v1beta1", "Mutating");

/**
 * The rules of a create (pair with `validateObjectMeta`), as the reference's
 * `ValidateMutatingWebhookConfiguration`: per webhook a fully qualified name of at least three
 * segments, rules (operations `*`/CREATE/UPDATE/DELETE/CONNECT, groups, versions, resources,
 * scope `*`/Cluster/Namespaced), failurePolicy Fail/Ignore, matchPolicy Exact/Equivalent,
 * sideEffects (`None`/`NoneOnDryRun` required in `v1`), timeoutSeconds 1 to 30, label
 * selectors, exactly one of `clientConfig.url` (https, no user, fragment or query) and
 * `clientConfig.service`, admissionReviewVersions naming `v1` or `v1beta1`, unique names.
 * Objects written through `v1beta1` keep that version's looser sideEffects and name rules.
 */
export function validateMutatingWebhookConfiguration(object: APIObject): FieldError[] {
  return validateWebhookConfiguration(object, "Mutating", createOptions(object));
}

/**
 * The rules of an update: those of a create, relaxed as the reference relaxes them for objects
 * that already broke them (side effects, unrecognized review versions, duplicate names).
 */
export function validateMutatingWebhookConfigurationUpdate(object: APIObject, old: APIObject): FieldError[] {
  return validateWebhookConfiguration(object, "Mutating", updateOptions(object, old));
}

/** The MutatingWebhookConfiguration resource type. */
export const mutatingWebhookConfigurationType: ResourceType = webhookConfigurationType(
  "Mutating",
  mutatingWebhookConfigurationV1Schema,
  mutatingWebhookConfigurationV1beta1Schema,
);
