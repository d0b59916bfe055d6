export type {
  ActionResult,
  ActionSubresource,
  ResourceStrategy,
  ResourceType,
  ResourceVersion,
  Scope,
  StrategyContext,
  SubresourceStrategy,
  TableColumn,
  Verb,
} from "./resource-type.js";
export { bytes, componentNameOf, int32, int64, microTime, named, stringMap, time } from "./schema/fields.js";
export {
  fieldsV1Schema,
  kindSchema,
  listMetaSchema,
  listSchema,
  managedFieldsEntrySchema,
  objectMetaSchema,
  ownerReferenceSchema,
} from "./schema/object-meta.js";
export {
  deleteOptionsSchema,
  patchSchema,
  preconditionsSchema,
  statusCauseSchema,
  statusDetailsSchema,
  statusSchema,
  watchEventSchema,
} from "./schema/shared-kinds.js";
export {
  decodeObject,
  dropUnknownFields,
  duplicateFieldMessage,
  findDuplicateFields,
  findUnknownFields,
  foregroundDeletionFinalizer,
  orphanFinalizer,
  strictDecodingError,
  unknownFieldMessage,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type ObjectMetaOptions,
  type ObjectMetaUpdateOptions,
} from "./validate.js";
export {
  namespaceActive,
  namespaceConditionSchema,
  namespaceFinalizer,
  namespaceNameLabel,
  namespaceSpecSchema,
  namespaceStatusSchema,
  namespaceTerminating,
  namespaceType,
  namespaceV1Schema,
  validateNamespace,
  validateNamespaceFinalize,
  validateNamespaceStatusUpdate,
} from "./namespace.js";
export { configMapType, configMapV1Schema, validateConfigMap, validateConfigMapUpdate } from "./config-map.js";
export { mergeStringData, secretType, secretTypes, secretV1Schema, validateSecret, validateSecretUpdate } from "./secret.js";
export { leaseSpecSchema, leaseType, leaseV1Schema, validateLease } from "./lease.js";
export {
  eventSelectableFields,
  eventSeriesSchema,
  eventSourceSchema,
  eventType,
  eventV1Schema,
  objectReferenceSchema,
  validateEvent,
} from "./event.js";
export {
  ResourceRegistry,
  builtinResources,
  compareVersions,
  resolveGroup,
  type APIGroupInfo,
  type RegisteredResource,
  type RegisteredVersion,
} from "./registry.js";
export {
  componentPrefix,
  kindComponentName,
  openAPIDocument,
  openAPIDocumentHash,
  openAPIIndex,
  openAPIKinds,
  openAPIPath,
  type OpenAPIDocument,
  type OpenAPIIndex,
  type OpenAPINode,
} from "./openapi.js";
