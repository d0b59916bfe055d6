export {
  operations,
  isResource,
  type AdmissionAttributes,
  type GroupVersionKind,
  type GroupVersionResource,
  type Operation,
  type Reinvocation,
} from "./attributes.js";
export type { AdmissionServices, LiveList } from "./services.js";
export {
  admissionForbidden,
  asAdmissionError,
  passedAtOnce,
  type AdmissionPlugin,
  type PluginContext,
  type PluginFactory,
  type ServiceReference,
  type ServiceResolver,
  type WebhookClientFactory,
  type WebhookTLS,
  type WebhookTransport,
} from "./plugin.js";
export { AdmissionChain, type AdmissionChainOptions, type AdmissionObservation } from "./chain.js";
export {
  admissionPluginOrder,
  buildAdmissionPlugins,
  defaultAdmissionPlugins,
  isBuiltinPlugin,
  removedAdmissionPlugins,
  resolveAdmissionPlugins,
  type BuiltinPluginName,
} from "./registry.js";
export {
  admissionConfigurationVersions,
  parseAdmissionConfiguration,
  parseConfigurationDocument,
  type AdmissionConfiguration,
  type AdmissionPluginConfiguration,
} from "./configuration.js";
export {
  imagePolicyWebhook,
  isImageReviewer,
  type ImageReview,
  type ImageReviewer,
  type ImageReviewSpec,
  type ImageReviewStatus,
} from "./plugins/image-policy-webhook.js";
export { podSecurityConfigurationVersions } from "./pod-security/configuration.js";
export {
  mutatingAdmissionWebhook,
  validatingAdmissionWebhook,
  webhookCredentials,
  type WebhookCredential,
  type WebhookCredentials,
  type WebhookCredentialsConfiguration,
} from "./webhook/index.js";
export { quotaResources, quotaStatus, quotaUsage, type QuotaObjects, type QuotaResource, type QuotaUsageContext } from "./quota/usage.js";
