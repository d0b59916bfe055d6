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
export { configMapsRef, eventsRef, leasesRef, namespacesRef, secretsRef } from "./builtin-refs.js";
export {
  Client,
  ResourceClient,
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
export { Informer, objectKey, systemTimers, type InformerHandlers, type InformerOptions, type InformerTimers } from "./informer.js";
export type {
  AuthProviderConfig,
  ClientCertificate,
  CredentialSource,
  Credentials,
  ExecConfig,
  ExecEnvVar,
  ExecInteractiveMode,
} from "./credentials.js";
