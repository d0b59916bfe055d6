/**
 * The wire shapes shared by every kind: TypeMeta, ObjectMeta, ListMeta, lists, Status, watch
 * events and Tables. They are plain JSON types; the resource catalog adds one schema per kind.
 * @module
 */

/** `apiVersion` and `kind`, carried by every object on the wire. */
export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

/** One entry of `metadata.managedFields`: what a field manager owns and how it got it. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: "Apply" | "Update";
  apiVersion?: string;
  /** RFC 3339 UTC with seconds. */
  time?: string;
  fieldsType?: "FieldsV1";
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

/** A reference from a dependent object to its owner, used by garbage collection. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The `metadata` of every persisted object. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  /** Opaque to clients: the decimal modRevision of the object in the store. */
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339 UTC with seconds, set by the server. */
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
}

/** The `metadata` of a collection and of a Status. */
export interface ListMeta {
  /** The version at which the collection was read. */
  resourceVersion?: string;
  /** Token for the next chunk; the empty string (or absent) on the last chunk. */
  continue?: string;
  /** Items not in this response; omitted when unknown (selectors) or when the list is complete. */
  remainingItemCount?: number;
  selfLink?: string;
}

/** Any API object: TypeMeta plus ObjectMeta plus whatever its kind adds. */
export interface APIObject extends TypeMeta {
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** A collection: kind `<Kind>List`. */
export interface APIList<T extends APIObject = APIObject> extends TypeMeta {
  metadata: ListMeta;
  items: T[];
}

/** One cause of a failure; for an invalid object, one per field error. */
export interface StatusCause {
  reason?: string;
  message?: string;
  /** A JSON-path-like field path: `metadata.name`, `data[a b]`, `spec.rules[0].verbs`. */
  field?: string;
}

/** What a Status says about the object it concerns. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** The body of every error response, and of a successful delete of some kinds. */
export interface Status {
  kind: "Status";
  apiVersion: "v1";
  metadata: ListMeta;
  status: "Success" | "Failure";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** The event types of a watch stream. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

/** One line of a watch stream. `ERROR` carries a Status; `BOOKMARK` only a resourceVersion. */
export interface WatchEvent<T extends TypeMeta = APIObject> {
  type: WatchEventType;
  object: T | Status;
}

/** A column of a Table. */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: `string`, `integer`, `number`, `boolean`, `date`. */
  type: string;
  format?: string;
  description?: string;
  /** 0 is the most important; kubectl hides columns above 0 unless `-o wide`. */
  priority?: number;
}

/** One row of a Table; `object` follows `includeObject`. */
export interface TableRow {
  cells: unknown[];
  object?: unknown;
  conditions?: { type: string; status: string }[];
}

/** Server-side rendered tabular output (`as=Table;g=meta.<domain>;v=v1`). */
export interface Table extends TypeMeta {
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}
