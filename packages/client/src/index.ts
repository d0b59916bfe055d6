/**
 * `@orch/client`: a typed client for orch (and Kubernetes-style) API servers, with one interface
 * over two transports, in-process against an `APIServer` and HTTP, plus informers.
 * @module
 */
export type { Transport, TransportRequest, TransportResponse } from "./transport.js";
export {
  inProcessTransport,
  type InProcessRequest,
  type InProcessResponse,
  type InProcessServer,
  type InProcessTransportOptions,
  type InProcessUser,
} from "./in-process-transport.js";
export { httpTransport, type HTTPTransportOptions } from "./http-transport.js";
export { apiVersionOf, resolveGroup, resourcePath, resourceRefOf, type ResourceRef } from "./resource-ref.js";
export type { SchemaObject, SchemaOutput } from "./schema-object.js";
export {
  apiServicesRef,
  bindingsRef,
  certificateSigningRequestsRef,
  clusterRoleBindingsRef,
  clusterRolesRef,
  componentStatusesRef,
  configMapsRef,
  controllerRevisionsRef,
  cronJobsRef,
  csiDriversRef,
  csiNodesRef,
  csiStorageCapacitiesRef,
  daemonSetsRef,
  deploymentsRef,
  endpointSlicesRef,
  endpointsRef,
  eventsEventsRef,
  eventsRef,
  flowSchemasRef,
  horizontalPodAutoscalersRef,
  imageReviewsRef,
  ingressClassesRef,
  ingressesRef,
  jobsRef,
  leasesRef,
  limitRangesRef,
  localSubjectAccessReviewsRef,
  mutatingWebhookConfigurationsRef,
  namespacesRef,
  networkPoliciesRef,
  nodesRef,
  persistentVolumeClaimsRef,
  persistentVolumesRef,
  podDisruptionBudgetsRef,
  podsRef,
  podTemplatesRef,
  priorityClassesRef,
  priorityLevelConfigurationsRef,
  replicaSetsRef,
  replicationControllersRef,
  resourceQuotasRef,
  roleBindingsRef,
  rolesRef,
  runtimeClassesRef,
  secretsRef,
  selfSubjectAccessReviewsRef,
  selfSubjectReviewsRef,
  selfSubjectRulesReviewsRef,
  serviceAccountsRef,
  servicesRef,
  statefulSetsRef,
  storageClassesRef,
  subjectAccessReviewsRef,
  tokenReviewsRef,
  validatingWebhookConfigurationsRef,
  volumeAttachmentsRef,
} from "./generated/refs.js";
export {
  Client,
  ResourceClient,
  type ForTypeOptions,
  type TypeObject,
  patchContentTypes,
  responseError,
  type ClientOptions,
  type ClientRequest,
  type DeleteCollectionOptions,
  type DeleteOptions,
  type FieldValidation,
  type GetOptions,
  type ListOptions,
  type NamespaceOptions,
  type PatchOptions,
  type PatchType,
  type SelectorOptions,
  type UpdateOptions,
  type WatchOptions,
  type WriteOptions,
} from "./client.js";
export { Informer, systemTimers, type EventHandlerOptions, type InformerHandlers, type InformerOptions, type InformerTimers } from "./informer.js";
export { Indexer, indexByNamespace, labelIndex, namespaceIndex, objectKey, type IndexFunc, type Indexers } from "./informer-indexer.js";
export { SharedInformers, type SharedInformersOptions } from "./shared-informers.js";
export type { AuthProviderConfig, ClientCertificate, CredentialSource, Credentials, ExecConfig, ExecEnvVar, ExecInteractiveMode } from "./credentials.js";
export {
  execClusterExtensionName,
  execCredentialAPIVersions,
  execCredentialGroup,
  execCredentialInput,
  execInteractive,
  execInteractiveMode,
  parseExecCredential,
  sameCredentials,
  type ExecClusterInfo,
  type ExecCredentialInput,
  type ExecCredentialResult,
} from "./exec-credential.js";
export { ClientConfigError, entryName, type ClientConfigErrorLocation } from "./config/client-config-error.js";
export type { ClientConfig, ClusterEntry, ContextEntry, EntryOrigin, ExecEntry, NamedExtension, UserEntry } from "./config/client-config.js";
export { parseClientConfig, type ParseClientConfigOptions } from "./config/parse-client-config.js";
export { mergeClientConfigs } from "./config/merge-client-configs.js";
export {
  resolveClientConfig,
  type PEMSource,
  type ResolveClientConfigOptions,
  type ResolvedAuth,
  type ResolvedClientConfig,
  type ResolvedCluster,
  type ResolvedUser,
} from "./config/resolve-client-config.js";
export { staticCredentialSource } from "./config/static-credential-source.js";
export type { ActionBodyType, ObjectSchema, ResourceClientOptions, SubresourceClient } from "./resource-client.js";
export { ScalableResourceClient, type Scale } from "./resource-client.js";
export { BuiltinAccessors } from "./generated/accessors.js";
export {
  CertificateSigningRequestClient,
  DeploymentClient,
  NamespaceClient,
  PodClient,
  ReplicaSetClient,
  ReplicationControllerClient,
  ServiceAccountClient,
  StatefulSetClient,
} from "./generated/kind-clients.js";
