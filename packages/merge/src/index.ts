/**
 * Server-side apply, field ownership (`managedFields`) and the patch types of orch, driven by the
 * merge markers of the resource schemas.
 *
 * - {@link typeInfoOf} reads a zod schema's structure and markers; {@link unstructured} stands
 *   for objects without a schema.
 * - {@link FieldSet}, {@link fieldSetOf}, {@link encodeFieldsV1} and {@link decodeFieldsV1}: field
 *   paths, sets of them, and their FieldsV1 encoding.
 * - {@link updateManagedFields} records the ownership of POST, PUT and non-apply PATCH;
 *   {@link apply} is server-side apply with conflicts and `force`.
 * @module
 */
export {
  canonicalJSON,
  compareElements,
  elementKind,
  fieldElement,
  formatElement,
  formatPath,
  indexElement,
  keyElement,
  parseElement,
  valueElement,
  type FieldPathElements,
  type PathElement,
  type PathElementKind,
} from "./field-path.js";
export { FieldSet } from "./field-set.js";
export { fieldSetOf, compareObjects, type Comparison } from "./internal/walk.js";
export { decodeFieldsV1, encodeFieldsV1, isEncodedFieldsV1, type FieldsV1 } from "./fieldsV1.js";
export { resolveType, typeAt, typeInfoOf, unstructured, type TypeKind, type TypeNode, type ZodSchema } from "./type-info.js";
export {
  decodeManagedFields,
  decodeManagedFieldsLenient,
  defaultFieldManager,
  encodeManagedFields,
  fieldManagerMaxLength,
  isResetManagedFields,
  updateManagedFields,
  updatedManagedFields,
  validateFieldManager,
  type JSONObject,
  type ManagedWriteResult,
  type ManagerState,
  type Managers,
  type UpdateManagedFieldsOptions,
} from "./managed-fields.js";
export { maxUpdateManagers } from "./internal/ownership.js";
export { apply, applyConflictError, beforeFirstApplyManager, type ApplyConflict, type ApplyOptions } from "./apply.js";
export { strategicMergePatch, strategicMergePatchSupported, type PatchSchema } from "./strategic-merge-patch.js";
