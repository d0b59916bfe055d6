/**
 * Step 7 of the pipeline: the generic write path every kind shares (the reference's generic
 * registry store). Creation, update with optimistic concurrency and retry, two-phase deletion
 * with finalizers, dry-run, generateName, uid, timestamps and generation.
 * @module
 */
import {
  alreadyExists,
  badRequest,
  conflict,
  formatAPIVersion,
  formatTime,
  forbidden,
  invalid,
  isAlreadyExists,
  methodNotAllowed,
  isConflict,
  isNotFound,
  notFound,
  type APIObject,
  type FieldError,
  type Status,
} from "@orch/meta";
import {
  actionKindOf,
  decodeActionBody,
  decodeObject,
  dropUnknownFields,
  duplicateFieldMessage,
  findDuplicateFields,
  findUnknownFields,
  strictDecodingError,
  unknownFieldMessage,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "@orch/resources";
import type { ActionSubresource, StrategyContext } from "@orch/resources";
import { typeInfoOf, updateManagedFields, type JSONObject, type TypeNode } from "@orch/merge";
import { deepFreeze, type Clock, type Entry, type Store } from "@orch/store";
import { sameJSON } from "./same-json.js";
import { mutableCopy, objectKey, wireObject, type ServedResource } from "./served-resource.js";
import { successStatus } from "./responses.js";

/** `fieldValidation`: what to do with fields the schema does not know. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/** Options every write shares. */
export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** Warnings for the response's `Warning` headers; the write appends to it. */
  warnings: string[];
  /** The sub-resource written (`status`, `finalize`), `""` for the main resource. */
  subresource?: string;
  /** The field manager recorded in `managedFields` (the `fieldManager` query or the User-Agent's). */
  fieldManager?: string;
  /** The object's `managedFields` were already computed by server-side apply. */
  applied?: boolean;
}

/** DeleteOptions, from the body or the query. */
export interface DeleteOptions {
  dryRun: boolean;
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** The answer of a write: the object (or Status) and the HTTP code. */
export interface WriteResult {
  code: number;
  body: APIObject | Status;
}

/** Decides whether a write may go into a namespace (it exists and is not terminating). */
export type NamespaceGuard = (served: ServedResource, namespace: string, name: string) => Promise<void>;

const generateNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

/**
 * A name from `generateName`, as the reference's SimpleNameGenerator makes it: the prefix cut to
 * 58 characters, then five characters of the reference alphabet (uniqueness, not secrecy).
 */
function generatedName(prefix: string): string {
  let out = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  for (let i = 0; i < 5; i++) out += generateNameAlphabet[Math.floor(Math.random() * generateNameAlphabet.length)];
  return out;
}

/** How many names a create from `generateName` tries before its 409 (the reference's RetryGenerateName). */
const generateNameAttempts = 8;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What generation tracking leaves out: a change anywhere else is a spec change. */
const notSpec: ReadonlySet<string> = new Set(["metadata", "status", "apiVersion", "kind"]);


function stripResourceVersion(object: APIObject): APIObject {
  if (object.metadata.resourceVersion === undefined) return object;
  const metadata = { ...object.metadata };
  delete metadata.resourceVersion;
  return { ...object, metadata };
}

const typeInfoCache = new WeakMap<ServedResource, TypeNode>();

/** The merge type of the objects a served resource stores (its storage version's schema). */
export function storedTypeInfo(served: ServedResource): TypeNode {
  let info = typeInfoCache.get(served);
  if (!info) {
    const storage = served.type.versions.find((v) => v.storage) ?? served.version;
    info = typeInfoOf(storage.schema);
    typeInfoCache.set(served, info);
  }
  return info;
}

/** What the server lends every strategy beyond the domain and the time (see `StrategyContext`). */
export type StrategyServices = Pick<StrategyContext, "get" | "serviceAccountTokens">;

/** The generic object store of one server: the write rules every kind shares. */
export class ObjectStore {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly domain: string,
    private readonly guardNamespace: NamespaceGuard,
    private readonly services: StrategyServices = {},
  ) {}

  private context(): StrategyContext {
    return { ...this.services, domain: this.domain, now: this.clock.now() };
  }

  /** Records the write's field ownership in `metadata.managedFields` (an Update entry), unless apply did. */
  private track(served: ServedResource, live: APIObject | undefined, next: APIObject, opts: WriteOptions): APIObject {
    if (opts.applied) return next;
    const result = updateManagedFields({
      live: live as JSONObject | undefined,
      next: next as JSONObject,
      manager: opts.fieldManager ?? "unknown",
      apiVersion: served.apiVersion,
      subresource: opts.subresource || undefined,
      now: this.clock.now(),
      typeInfo: storedTypeInfo(served),
    });
    return result.object as APIObject;
  }

  /**
   * Checks the envelope of a body against the endpoint, applies `fieldValidation`, and decodes it.
   * @throws StatusError 400 for a body that is not an object of this kind and version.
   */
  decodeBody(served: ServedResource, body: unknown, opts: WriteOptions, rawJSON?: string): APIObject {
    if (!isPlainObject(body)) throw badRequest(`the body of a ${served.type.kind} must be a JSON object`);
    const apiVersion = body.apiVersion;
    const kind = body.kind;
    if (apiVersion !== undefined && apiVersion !== "" && apiVersion !== served.apiVersion) {
      throw badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${served.apiVersion})`);
    }
    if (kind !== undefined && kind !== "" && kind !== served.type.kind) {
      throw badRequest(`the kind in the data (${String(kind)}) does not match the expected kind (${served.type.kind})`);
    }
    let value: unknown = { ...body, apiVersion: served.apiVersion, kind: served.type.kind };
    // Unknown fields are found once; the common case (none) then skips the pruning copy.
    let unknownFound = true;
    if (opts.fieldValidation !== "Ignore") {
      const unknown = findUnknownFields(value, served.type, served.version);
      unknownFound = unknown.length > 0;
      const problems = [
        ...(rawJSON === undefined ? [] : findDuplicateFields(rawJSON, body).map(duplicateFieldMessage)),
        ...unknown.map(unknownFieldMessage),
      ];
      if (problems.length > 0) {
        if (opts.fieldValidation === "Strict") throw strictDecodingError(served.type, served.version.name, problems);
        opts.warnings.push(...problems);
      }
    }
    if (unknownFound) value = dropUnknownFields(value, served.type, served.version);
    let decoded = decodeObject(served.type, served.version, value) as APIObject;
    if (!isPlainObject(decoded.metadata)) decoded.metadata = {};
    // Everything past decoding works on the storage version.
    served.version.defaults?.(decoded, this.context());
    if (served.version.toStorage) decoded = served.version.toStorage(decoded);
    return decoded;
  }

  private invalid(served: ServedResource, name: string, errors: FieldError[]): never {
    throw invalid(served.qualifiedKind, name, errors);
  }

  /** POST: creates `object` (already decoded) in `namespace`. */
  async create(served: ServedResource, namespace: string, input: APIObject, opts: WriteOptions): Promise<WriteResult> {
    let object = input;
    const meta = object.metadata;
    if (served.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      if (namespace) meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    if (meta.resourceVersion) throw badRequest("resourceVersion should not be set on objects to be created");
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = generatedName(meta.generateName as string);
    const ctx = this.context();
    meta.uid = crypto.randomUUID();
    meta.creationTimestamp = formatTime(ctx.now);
    meta.generation = 1;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    const strategy = served.type.strategy;
    // A kind with a status sub-resource starts without status; its strategy may set one.
    if (served.type.subresources?.includes("status") && !strategy?.statusOnCreate) delete object.status;
    strategy?.defaults?.(object, ctx);
    strategy?.prepareForCreate?.(object, ctx);
    const errors = [
      ...validateObjectMeta(object, { namespaced: served.namespaced, nameIsLabel: served.type.kind === "Namespace" }, ctx),
      ...(strategy?.validate?.(object, ctx) ?? []),
    ];
    if (errors.length) this.invalid(served, meta.name ?? "", errors);
    const name = meta.name as string;
    if (served.namespaced) await this.guardNamespace(served, meta.namespace ?? "", name);
    object = this.track(served, undefined, object, opts);
    if (opts.dryRun) {
      if (await this.store.get(objectKey(served, meta.namespace ?? "", name))) throw alreadyExists(served.qualifiedResource, name);
      return { code: 201, body: object };
    }
    for (let attempt = 1; ; attempt++) {
      const current = object.metadata.name as string;
      try {
        const entry = await this.store.create(objectKey(served, meta.namespace ?? "", current), deepFreeze(object));
        return { code: 201, body: wireObject(entry) };
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
        if (!generated || attempt >= generateNameAttempts) throw alreadyExists(served.qualifiedResource, current);
        // Another object took the generated name: the same object under a fresh one.
        object = { ...object, metadata: { ...object.metadata, name: generatedName(meta.generateName as string) } };
      }
    }
  }

  /**
   * The read-modify-write loop of every update (PUT, PATCH, `/status`, finalization): reads the
   * current entry, lets `mutate` build the new object from it, and writes with compare-and-swap,
   * retrying on a conflict unless `mutate` pinned a resourceVersion.
   */
  async guaranteedUpdate(
    served: ServedResource,
    namespace: string,
    name: string,
    opts: WriteOptions,
    mutate: (current: APIObject | undefined) => { object: APIObject; pinned: boolean } | "create",
    createIfMissing?: () => Promise<WriteResult>,
  ): Promise<WriteResult> {
    const key = objectKey(served, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const entry = await this.store.get(key);
      if (!entry) {
        if (createIfMissing) return createIfMissing();
        throw notFound(served.qualifiedResource, name);
      }
      const current = wireObject(entry);
      const result = mutate(current);
      if (result === "create") throw notFound(served.qualifiedResource, name);
      const { object, pinned } = result;
      if (pinned && object.metadata.resourceVersion !== String(entry.modRevision)) {
        throw conflict(served.qualifiedResource, name);
      }
      const next = this.track(served, current, this.prepareUpdate(served, object, current, opts.subresource ?? ""), opts);
      const stored = stripResourceVersion(next);
      if (sameJSON(stored, entry.value)) return { code: 200, body: current };
      if (opts.dryRun) return { code: 200, body: next };
      try {
        const written = await this.writeOrFinalize(key, stored, entry);
        return { code: 200, body: written };
      } catch (error) {
        if (isConflict(error) && !pinned && attempt < 16) continue;
        if (isConflict(error)) throw conflict(served.qualifiedResource, name);
        if (isNotFound(error)) throw notFound(served.qualifiedResource, name);
        throw error;
      }
    }
  }

  /** Writes an updated object; one that is being deleted and has no finalizer left is removed. */
  private async writeOrFinalize(key: string, stored: APIObject, entry: Entry): Promise<APIObject> {
    const meta = stored.metadata;
    if (meta.deletionTimestamp && !(meta.finalizers?.length) && !hasSpecFinalizers(stored)) {
      await this.store.delete(key, entry.modRevision);
      return { ...stored, metadata: { ...meta, resourceVersion: String(entry.modRevision) } };
    }
    const written = await this.store.update(key, deepFreeze(stored), entry.modRevision);
    return wireObject(written);
  }

  /** Carries server-owned metadata over, runs the strategy and validation of an update. */
  private prepareUpdate(served: ServedResource, object: APIObject, old: APIObject, subresource: string): APIObject {
    const ctx = this.context();
    const meta = object.metadata;
    const oldMeta = old.metadata;
    if (oldMeta.uid !== undefined && meta.uid === undefined) meta.uid = oldMeta.uid;
    if (oldMeta.creationTimestamp !== undefined && meta.creationTimestamp === undefined) meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp !== undefined) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    else delete meta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    else delete meta.deletionGracePeriodSeconds;
    if (served.namespaced) meta.namespace = meta.namespace ?? oldMeta.namespace ?? "";
    const strategy = served.type.strategy;
    strategy?.defaults?.(object, ctx);
    meta.generation = oldMeta.generation ?? 1;
    if ((strategy?.tracksGeneration ?? true) && !sameJSON(object, old, notSpec)) meta.generation += 1;
    const kindErrors =
      subresource === "status" && strategy?.validateStatusUpdate
        ? strategy.validateStatusUpdate(object, old, ctx)
        : subresource && subresource !== "status"
          ? (strategy?.subresourceStrategies?.[subresource]?.validateUpdate?.(object, old, ctx) ?? [])
          : [...(strategy?.validate?.(object, ctx) ?? []), ...(strategy?.validateUpdate?.(object, old, ctx) ?? [])];
    const errors = [
      ...validateObjectMeta(object, { namespaced: served.namespaced, nameIsLabel: served.type.kind === "Namespace" }, ctx),
      ...validateObjectMetaUpdate(object, old, { domain: this.domain }),
      ...kindErrors,
    ];
    if (errors.length) this.invalid(served, meta.name ?? "", errors);
    return object;
  }

  /** PUT of the main resource or of `/status`. */
  async update(served: ServedResource, namespace: string, name: string, object: APIObject, subresource: string, opts: WriteOptions): Promise<WriteResult> {
    opts.subresource = subresource;
    const meta = object.metadata;
    if (meta.name !== undefined && meta.name !== name) {
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    }
    meta.name = name;
    if (served.namespaced) {
      if (meta.namespace && meta.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      meta.namespace = namespace;
    } else delete meta.namespace;
    const pinned = Boolean(meta.resourceVersion);
    return this.guaranteedUpdate(served, namespace, name, opts, (current) => {
      const next = mutableCopy(object);
      if (!pinned && current) next.metadata.resourceVersion = current.metadata.resourceVersion as string;
      return { object: current ? this.prepareWrite(served, subresource, next, current) : next, pinned };
    });
  }

  /**
   * What an update through `subresource` may change of `current` (gaps.md, "Status
   * sub-resource"): a write to the main resource keeps the stored `status` of a kind with a
   * status sub-resource; a write to `/status` changes only `status`; other sub-resources follow
   * their strategy. The kind's own hooks run after these defaults.
   */
  prepareWrite(served: ServedResource, subresource: string, next: APIObject, current: APIObject): APIObject {
    const strategy = served.type.strategy;
    const ctx = this.context();
    if (subresource === "status") {
      if (strategy?.prepareForStatusUpdate) {
        strategy.prepareForStatusUpdate(next, current, ctx);
        return next;
      }
      return withStatusOf(current, next);
    }
    if (subresource) {
      strategy?.subresourceStrategies?.[subresource]?.prepareForUpdate?.(next, current, ctx);
      return next;
    }
    if (served.type.subresources?.includes("status")) {
      if (current.status === undefined) delete next.status;
      else next.status = mutableCopy(current.status);
    }
    strategy?.prepareForUpdate?.(next, current, ctx);
    return next;
  }

  /**
   * POST to an action sub-resource (Pod `binding`, `eviction`): decodes the body of the action's
   * kind, lets the action decide on a copy of the parent, and writes or deletes the parent.
   */
  async act(
    served: ServedResource,
    namespace: string,
    name: string,
    actionName: string,
    action: ActionSubresource,
    body: unknown,
    opts: WriteOptions,
  ): Promise<WriteResult> {
    if (!isPlainObject(body)) throw badRequest(`the body of a ${action.kind} must be a JSON object`);
    const gvk = actionKindOf(action, this.domain);
    const apiVersion = formatAPIVersion(gvk);
    // The reference's clients (`kubectl create token`) send the body in the reference's group on
    // any server: it is taken, and answered in that group, as the client decodes only that.
    const reference = formatAPIVersion(actionKindOf(action, "k8s.io"));
    const answerIn = body.apiVersion === reference ? reference : apiVersion;
    const answer = (result: unknown): APIObject =>
      answerIn !== apiVersion && isPlainObject(result) && result["kind"] === action.kind ? ({ ...result, apiVersion: answerIn } as APIObject) : (result as APIObject);
    if (body.kind !== undefined && body.kind !== action.kind) {
      throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${action.kind})`);
    }
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersion && body.apiVersion !== reference) {
      throw badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`);
    }
    const request = decodeActionBody(action, gvk.version, { ...body, apiVersion, kind: action.kind });
    const key = objectKey(served, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const entry = await this.store.get(key);
      if (!entry) throw notFound(served.qualifiedResource, name);
      const parent = mutableCopy(wireObject(entry)) as APIObject;
      const outcome = await action.act(parent, request, this.context());
      if (Array.isArray(outcome)) throw invalid({ group: gvk.group, kind: action.kind }, name, outcome);
      if (opts.dryRun || outcome.parent === "none") return { code: outcome.code, body: answer(outcome.body) };
      try {
        if (outcome.parent === "delete") await this.store.delete(key, entry.modRevision);
        else {
          const next = this.prepareUpdate(served, parent, wireObject(entry), actionName);
          await this.store.update(key, deepFreeze(stripResourceVersion(next)), entry.modRevision);
        }
        return { code: outcome.code, body: answer(outcome.body) };
      } catch (error) {
        if (isConflict(error) && attempt < 16) continue;
        throw error;
      }
    }
  }

  /** create of a virtual kind (SubjectAccessReview, TokenReview): validated, answered, not stored. */
  async evaluate(served: ServedResource, namespace: string, object: APIObject): Promise<WriteResult> {
    const ctx = this.context();
    if (served.namespaced && namespace) object.metadata.namespace = namespace;
    const strategy = served.type.strategy;
    strategy?.defaults?.(object, ctx);
    const errors = strategy?.validate?.(object, ctx) ?? [];
    if (errors.length) this.invalid(served, object.metadata.name ?? "", errors);
    if (!strategy?.evaluate) throw methodNotAllowed(served.qualifiedResource, "create");
    return { code: 201, body: await strategy.evaluate(object, ctx) };
  }

  /** DELETE of one object: immediate, or the first phase when finalizers remain. */
  async delete(served: ServedResource, namespace: string, name: string, options: DeleteOptions): Promise<WriteResult> {
    const key = objectKey(served, namespace, name);
    for (let attempt = 0; ; attempt++) {
      const entry = await this.store.get(key);
      if (!entry) throw notFound(served.qualifiedResource, name);
      const current = wireObject(entry);
      const pre = options.preconditions;
      if (pre?.uid !== undefined && pre.uid !== current.metadata.uid) {
        throw conflict(served.qualifiedResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ""}`);
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
        throw conflict(
          served.qualifiedResource,
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ""}`,
        );
      }
      const finalizers = [...(current.metadata.finalizers ?? [])];
      if (options.propagationPolicy === "Foreground" && !finalizers.includes("foregroundDeletion")) finalizers.push("foregroundDeletion");
      if (options.propagationPolicy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan");
      const graceful = finalizers.length > 0 || hasSpecFinalizers(current);
      const details = { name, ...(served.group ? { group: served.group } : {}), kind: served.type.resource, uid: current.metadata.uid ?? "" };
      if (graceful) {
        const next = mutableCopy(current) as APIObject;
        next.metadata.finalizers = finalizers;
        if (!next.metadata.deletionTimestamp) {
          next.metadata.deletionTimestamp = formatTime(this.clock.now());
          next.metadata.deletionGracePeriodSeconds = 0;
        }
        served.type.strategy?.prepareForDelete?.(next, this.context());
        const code = options.propagationPolicy === "Foreground" ? 202 : 200;
        if (options.dryRun) return { code, body: served.type.strategy?.deleteReturnsObject === false ? successStatus(details, code) : next };
        try {
          const written = sameJSON(stripResourceVersion(next), entry.value)
            ? current
            : wireObject(await this.store.update(key, deepFreeze(stripResourceVersion(next)), entry.modRevision));
          return { code, body: served.type.strategy?.deleteReturnsObject === false ? successStatus(details, code) : written };
        } catch (error) {
          if (isConflict(error) && attempt < 16) continue;
          throw error;
        }
      }
      if (!options.dryRun) {
        try {
          await this.store.delete(key, entry.modRevision);
        } catch (error) {
          if (isConflict(error) && attempt < 16) continue;
          if (isNotFound(error)) throw notFound(served.qualifiedResource, name);
          throw error;
        }
      }
      return { code: 200, body: served.type.strategy?.deleteReturnsObject ? current : successStatus(details) };
    }
  }

  /** Refuses a write into a namespace that is being deleted (403), or that does not exist (404). */
  static terminating(served: ServedResource, namespace: string, name: string): never {
    throw forbidden(served.qualifiedResource, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  }
}

/** True when a kind keeps its own finalizers in `spec.finalizers` (Namespace) and some remain. */
export function hasSpecFinalizers(object: APIObject): boolean {
  const spec = object.spec as { finalizers?: unknown } | undefined;
  return Array.isArray(spec?.finalizers) && spec.finalizers.length > 0;
}

/** The default `/status` update: everything of `current` but the status of `next`. */
function withStatusOf(current: APIObject, next: APIObject): APIObject {
  const merged = mutableCopy(current) as APIObject;
  if (next.status === undefined) delete merged.status;
  else merged.status = next.status;
  merged.metadata.resourceVersion = next.metadata.resourceVersion as string;
  return merged;
}
