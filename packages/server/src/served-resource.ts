/**
 * A resource type as one group/version serves it: the resolved group, its store keys, and the
 * conversion of stored entries to what a client sees.
 * @module
 */
import { cloneJSON, type APIObject, type QualifiedKind, type QualifiedResource } from "@orch/meta";
import type { ResourceType, ResourceVersion } from "@orch/resources";
import type { Entry, Store } from "@orch/store";
import { withResourceVersion } from "./wire-order.js";

/** A resource type at one served version, with everything the handlers derive from it. */
export interface ServedResource {
  type: ResourceType;
  /** The group with the domain filled in (`coordination.orch.io`); `""` for core. */
  group: string;
  version: ResourceVersion;
  /** `v1` or `<group>/<version>`. */
  apiVersion: string;
  namespaced: boolean;
  qualifiedResource: QualifiedResource;
  qualifiedKind: QualifiedKind;
  /** `/registry/<group or core>/<resource>/` (of the resource it is stored as, for a `storedAs` kind). */
  keyPrefix: string;
  /** The server's product domain. */
  domain: string;
}

/**
 * Builds the served form of `type` at `version` in `group` (already resolved). `storedIn` is
 * the resolved group of `type.storedAs` (its objects' keys are that resource's); ignored
 * without `storedAs`.
 */
export function serveResource(type: ResourceType, group: string, version: ResourceVersion, storedIn = "", domain = "orch.io"): ServedResource {
  const stored = type.storedAs ? { group: storedIn, resource: type.storedAs.resource } : { group, resource: type.resource };
  return {
    type,
    group,
    version,
    apiVersion: group ? `${group}/${version.name}` : version.name,
    namespaced: type.scope === "Namespaced",
    qualifiedResource: { group, resource: type.resource },
    qualifiedKind: { group, kind: type.kind },
    keyPrefix: `/registry/${stored.group || "core"}/${stored.resource}/`,
    domain,
  };
}

/** The store key of one object. */
export function objectKey(served: ServedResource, namespace: string, name: string): string {
  return served.namespaced ? `${served.keyPrefix}${namespace}/${name}` : `${served.keyPrefix}${name}`;
}

/** The store prefix of a collection: one namespace, or every namespace when `namespace` is `""`. */
export function collectionPrefix(served: ServedResource, namespace: string): string {
  return served.namespaced && namespace ? `${served.keyPrefix}${namespace}/` : served.keyPrefix;
}

/**
 * How many objects of `served` the store holds, in all namespaces: one list of one entry, whose
 * `remaining` counts the rest (what `apiserver_storage_objects` and the width of a LIST in flow
 * control are made of).
 */
export async function countStoredObjects(store: Store, served: ServedResource): Promise<number> {
  const page = await store.list(collectionPrefix(served, ""), { limit: 1 });
  return page.entries.length + page.remaining;
}

/**
 * What a client sees of one entry: its wire object, that object's JSON once serialised, and the
 * JSON of its conversions to other served versions, by served resource, once each.
 */
interface Wire {
  object: APIObject;
  json: string | undefined;
  presented: Map<ServedResource, string> | undefined;
  /** The UTF-8 bytes of `json`, and of the conversions, for list bodies written as parts. */
  bytes: Uint8Array | undefined;
  presentedBytes: Map<ServedResource, Uint8Array> | undefined;
}

const encoder = new TextEncoder();

// One cache entry per stored entry for both the object and its JSON: a WeakMap insertion costs
// about as much as a small object's serialisation, so reads and writes make one, not two.
const wireCache = new WeakMap<Entry, Wire>();

function wireOf(entry: Entry): Wire {
  let wire = wireCache.get(entry);
  if (wire === undefined) {
    const value = entry.value as APIObject;
    const object = Object.freeze({
      ...value,
      metadata: Object.freeze(withResourceVersion(value.metadata, String(entry.modRevision))),
    }) as APIObject;
    wire = { object, json: undefined, presented: undefined, bytes: undefined, presentedBytes: undefined };
    wireCache.set(entry, wire);
  }
  return wire;
}

/**
 * What a client sees of a stored entry: the stored object with `metadata.resourceVersion` set
 * to the entry's modRevision. Entries are immutable, so the result is computed once per entry
 * and shared (frozen at the top two levels; callers must not mutate it).
 */
export function wireObject(entry: Entry): APIObject {
  return wireOf(entry).object;
}

/**
 * The JSON text of {@link wireObject}, serialised once per entry and reused by every read that
 * answers plain JSON (gets, list items, watch events) and by the answer of the write that stored it.
 */
export function wireJSON(entry: Entry): string {
  const wire = wireOf(entry);
  return (wire.json ??= JSON.stringify(wire.object));
}

/**
 * What a client of `served`'s version sees of a stored object: the object itself for the storage
 * version, else its conversion (computed on every read; only non-storage versions pay for it).
 */
export function presentObject(served: ServedResource, stored: APIObject): APIObject {
  return served.version.fromStorage ? served.version.fromStorage(stored, served) : stored;
}

/**
 * {@link wireJSON} in `served`'s version. A conversion (a pure function of the stored object
 * and the served version) is serialised once per entry and version, as the storage version's is.
 */
export function presentJSON(served: ServedResource, entry: Entry): string {
  const convert = served.version.fromStorage;
  if (!convert) return wireJSON(entry);
  const wire = wireOf(entry);
  let json = wire.presented?.get(served);
  if (json === undefined) {
    json = JSON.stringify(convert(wire.object, served));
    (wire.presented ??= new Map()).set(served, json);
  }
  return json;
}

/**
 * The UTF-8 bytes of {@link presentJSON}, encoded once per entry and version: a LIST writes its
 * items' bytes one after the other instead of joining their texts into one large string per answer.
 * Shared between answers; callers must not modify them.
 */
export function presentBytes(served: ServedResource, entry: Entry): Uint8Array {
  const wire = wireOf(entry);
  if (!served.version.fromStorage) return (wire.bytes ??= encoder.encode(wireJSON(entry)));
  let bytes = wire.presentedBytes?.get(served);
  if (bytes === undefined) {
    bytes = encoder.encode(presentJSON(served, entry));
    (wire.presentedBytes ??= new Map()).set(served, bytes);
  }
  return bytes;
}

/** A deep, mutable copy of a JSON value (for strategies that edit an object). */
export function mutableCopy<T>(value: T): T {
  return cloneJSON(value);
}
