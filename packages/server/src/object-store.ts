/**
 * Step 7 of the pipeline: the generic write path every kind shares (the reference's generic
 * registry store). Every write goes through one compare-and-swap loop,
 * {@link ObjectStore.guaranteedUpdate}: the verbs (create, update, patch, apply, delete, the
 * action sub-resources) only say, with a try-update function, what the current object becomes.
 * Around it: creation (generateName, uid, timestamps), updates (server-owned metadata,
 * generation, validation, `managedFields`), two-phase deletion with finalizers, and dry-run.
 * @module
 */
import {
  alreadyExists,
  badRequest,
  conflict,
  formatTime,
  invalid,
  isAlreadyExists,
  isConflict,
  isNotFound,
  methodNotAllowed,
  notFound,
  type APIObject,
  type FieldError,
  type ManagedFieldsEntry,
  type Status,
} from "@orch/meta";
import { actionKindOf, validateObjectMeta, validateObjectMetaUpdate } from "@orch/resources";
import type { ActionSubresource, StrategyContext } from "@orch/resources";
import { passedAtOnce, type AdmissionAttributes, type AdmissionChain, type Operation } from "@orch/admission";
import { typeInfoOf, updatedManagedFields, updateManagedFields, type JSONObject, type TypeNode, type UpdateManagedFieldsOptions } from "@orch/merge";
import { deepFreeze, type Clock, type Entry, type Store } from "@orch/store";
import { isNoOpWrite, sameExcept } from "./no-op-write.js";
import { inWireOrder, withResourceVersion } from "./wire-order.js";
import { mutableCopy, objectKey, wireObject, type ServedResource } from "./served-resource.js";
import { storedInOtherVersion } from "./decoding-store.js";
import { successStatus } from "./responses.js";
import type { UserInfo } from "./api-request.js";
import { admissionAttributes, type WriteDescription } from "./admission.js";

/** `fieldValidation`: what to do with fields the schema does not know. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/** Options every write shares. */
export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** Warnings for the response's `Warning` headers; the write appends to it. */
  warnings: string[];
  /** The request's audit annotations, when it is audited: admission adds its own to it. */
  auditAnnotations?: Record<string, string>;
  /** The sub-resource written (`status`, `finalize`), `""` for the main resource. */
  subresource?: string;
  /** The field manager recorded in `managedFields` (the `fieldManager` query or the User-Agent's). */
  fieldManager?: string;
  /** The object's `managedFields` were already computed by server-side apply. */
  applied?: boolean;
  /**
   * The caller, for admission and the kind's `checkWriteAccess` (RBAC escalation, CSR
   * approval); the server's own writes have none (admission sees them as `system:apiserver`).
   */
  user?: UserInfo;
  /** The write is a patch or an apply (admission shows PatchOptions rather than UpdateOptions). */
  patch?: boolean;
  /**
   * The write is admission's own (a ResourceQuota's charge on `status.used`): it is not admitted
   * again, so charging a quota costs one write and never calls webhooks back.
   */
  admitted?: boolean;
}

/** What the current object must be for a write to go ahead (DeleteOptions `preconditions`). */
export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** DeleteOptions, from the body or the query. */
export interface DeleteOptions {
  dryRun: boolean;
  /** The caller, for admission. */
  user?: UserInfo;
  /** Warnings for the response's `Warning` headers; admission appends. */
  warnings?: string[];
  /** The request's audit annotations, when it is audited: admission adds its own to it. */
  auditAnnotations?: Record<string, string>;
  propagationPolicy?: "Orphan" | "Background" | "Foreground";
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
}

/** The answer of a write: the object (or Status) and the HTTP code. */
export interface WriteResult {
  code: number;
  body: APIObject | Status;
}

/**
 * A write's result whose body is the wire object (see `wireObject`) of the entry the write stored
 * or found unchanged. The entry is private, so the result still reads and compares as a plain
 * {@link WriteResult}.
 */
class StoredWrite implements WriteResult {
  code: number;
  body: APIObject;
  readonly #entry: Entry;

  constructor(code: number, entry: Entry) {
    this.code = code;
    this.body = wireObject(entry);
    this.#entry = entry;
  }

  /** The entry {@link body} was read from. */
  get entry(): Entry {
    return this.#entry;
  }
}

/**
 * The stored entry whose wire object `result` answers, when it answers one as it was stored: the
 * answer can then be encoded from the entry's cached JSON, which later reads and watch events reuse.
 */
export function storedEntryOf(result: WriteResult): Entry | undefined {
  return result instanceof StoredWrite && result.body === wireObject(result.entry) ? result.entry : undefined;
}

/**
 * What a try-update function makes of the current object (the reference's `tryUpdate`):
 * - `create`: store `object` (ready: {@link ObjectStore.prepareCreate} ran), answered 201;
 * - `update`: store `object` (ready: {@link ObjectStore.beforeUpdate} or the verb's own rules
 *   ran), answered 200 with what was stored unless `answer` says otherwise. An object that is
 *   being deleted and keeps no finalizer is removed instead; one equal to the stored object
 *   writes nothing and answers the current one;
 * - `delete`: remove the current object, answered with `answer`;
 * - `noop`: write nothing, answered with `answer`.
 */
export type UpdateDecision =
  | { kind: "create"; object: APIObject }
  | { kind: "update"; object: APIObject; answer?: (written: APIObject) => WriteResult }
  | { kind: "delete"; answer: WriteResult }
  | { kind: "noop"; answer: WriteResult };

/**
 * Decides, for the current object, what the write does. Runs once per attempt (again after a
 * conflict, on the newer object), so it must not keep state between calls; it may throw (a 4xx
 * StatusError ends the write). `current` is the stored object as clients see it (frozen).
 */
export type TryUpdate<Current extends APIObject | undefined = APIObject> = (current: Current) => UpdateDecision | Promise<UpdateDecision>;

/**
 * How {@link ObjectStore.guaranteedUpdate} treats the object's existence:
 * - `update` (the default): a missing object is 404 before `tryUpdate` runs;
 * - `upsert`: a missing object is handed to `tryUpdate` as `undefined`, which may create it (the
 *   reference's `ignoreNotFound`: PUT of a kind that allows create-on-update, server-side apply);
 * - `create` (POST): the store is not read (its create refuses a taken key) but under dry-run;
 *   an existing object is 409 AlreadyExists; `tryUpdate` gets `undefined`.
 */
export type UpdateMode = "update" | "upsert" | "create";

/** The flags of {@link ObjectStore.guaranteedUpdate}. */
export interface UpdateFlags {
  /** Write nothing: answer what would have been written (a create still sees a taken name: 409). */
  dryRun: boolean;
  /** What a missing or existing object means (see {@link UpdateMode}); `update` by default. */
  mode?: UpdateMode;
  /**
   * With `mode: "create"`: the `generateName` prefix the name was made from. When another object
   * took the name, the create retries under a fresh one (8 names in all, as the reference's
   * RetryGenerateName), then 409.
   */
  generateName?: string;
  /** What the current object must be, checked on every attempt (409 with the reference's message). */
  preconditions?: Preconditions;
}

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

/** How many times a write is tried again after a compare-and-swap conflict before its 409. */
const conflictRetries = 16;

/** What generation tracking leaves out: a change anywhere else is a spec change. */
const notSpec: ReadonlySet<string> = new Set(["metadata", "status", "apiVersion", "kind"]);

function stripResourceVersion(object: APIObject): APIObject {
  if (object.metadata.resourceVersion === undefined) return object;
  const metadata = { ...object.metadata };
  delete metadata.resourceVersion;
  return { ...object, metadata };
}

/** `object` under `name`: itself when it has that name already. */
function renamed(object: APIObject, name: string): APIObject {
  return object.metadata.name === name ? object : { ...object, metadata: { ...object.metadata, name } };
}

/** The default answer of an update: 200 with the stored object. */
const updated = (written: APIObject): WriteResult => ({ code: 200, body: written });

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
export type StrategyServices = Pick<
  StrategyContext,
  "get" | "list" | "updateStatus" | "serviceAccountTokens" | "reviewToken" | "authorize" | "rulesFor" | "uncoveredRules" | "reviewImages"
>;

/** The generic object store of one server: the write rules every kind shares. */
export class ObjectStore {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly domain: string,
    private readonly admission: () => AdmissionChain | undefined,
    private readonly services: StrategyServices = {},
  ) {}

  /**
   * The mutating phase of admission for one write: the attributes after every mutating plugin
   * ran (`attrs.object` is what to write on), or `undefined` when no plugin looks at the
   * operation. The validating phase runs later on the same attributes ({@link validateAdmission}).
   */
  private async admit(served: ServedResource, write: WriteDescription & { admitted?: boolean }): Promise<AdmissionAttributes | undefined> {
    const chain = this.admission();
    if (write.admitted || !chain?.handles(write.operation)) return undefined;
    const attrs = admissionAttributes(served, this.domain, write);
    const admitting = chain.admit(attrs);
    // The chain answers passedAtOnce when no plugin had to be awaited: no turn of the queue for it.
    if (admitting !== passedAtOnce) await admitting;
    return attrs;
  }

  /**
   * The validating phase of admission on `attrs` (from {@link admit}), with `object` as finally
   * written: a promise to await, or `undefined` when it passed at once (a refusal then throws).
   */
  private validateAdmission(attrs: AdmissionAttributes | undefined, object?: APIObject): Promise<void> | undefined {
    if (!attrs) return undefined;
    if (object) {
      attrs.object = object;
      attrs.name = object.metadata.name ?? attrs.name;
    }
    const validating = this.admission()?.validate(attrs);
    return validating === passedAtOnce ? undefined : validating;
  }

  /** The description of a create or update for {@link admit}. */
  private describe(
    operation: Operation,
    namespace: string,
    object: APIObject,
    old: APIObject | undefined,
    opts: WriteOptions,
  ): WriteDescription & { admitted?: boolean } {
    const write: WriteDescription & { admitted?: boolean } = {
      operation,
      namespace,
      name: object.metadata.name ?? "",
      object,
      oldObject: old,
      subresource: opts.subresource ?? "",
      optionsKind: operation === "CREATE" ? "CreateOptions" : opts.patch ? "PatchOptions" : "UpdateOptions",
      dryRun: opts.dryRun,
      user: opts.user,
      warnings: opts.warnings,
    };
    if (opts.fieldManager) write.fieldManager = opts.fieldManager;
    if (opts.admitted) write.admitted = true;
    if (opts.auditAnnotations) write.auditAnnotations = opts.auditAnnotations;
    return write;
  }

  /**
   * The context strategy hooks and version defaults run in: the domain, now, the server's
   * services, and the caller when known.
   */
  strategyContext(user?: UserInfo): StrategyContext {
    // A copy of one template object of fixed shape, made once: copying it is much cheaper than
    // spreading the services and adding the domain on every write.
    // A context with a caller is copied from a template that has the member already: adding a
    // member to the copy cost more than the copy.
    let ctx: StrategyContext;
    if (user) {
      this.#userContextTemplate ??= { ...this.services, domain: this.domain, now: 0, user };
      ctx = { ...this.#userContextTemplate };
      ctx.user = user;
    } else {
      this.#contextTemplate ??= { ...this.services, domain: this.domain, now: 0 };
      ctx = { ...this.#contextTemplate };
    }
    ctx.now = this.clock.now();
    return ctx;
  }

  /** The services and the domain every strategy context carries (see {@link strategyContext}). */
  #contextTemplate: StrategyContext | undefined;

  /** {@link #contextTemplate} with a `user` member, overwritten in each copy. */
  #userContextTemplate: StrategyContext | undefined;

  /**
   * The kind's checks of the caller's rights on a write (`checkWriteAccess`), when it has them
   * and the write has a caller (the server's own writes, such as its controllers', have none):
   * their promise, or `undefined` when there is nothing to check.
   */
  private checkWriteAccess(served: ServedResource, object: APIObject, old: APIObject | undefined, opts: WriteOptions): Promise<void> | undefined {
    const check = served.type.strategy?.checkWriteAccess;
    return check && opts.user ? check(object, old, opts.subresource ?? "", this.strategyContext(opts.user)) : undefined;
  }

  /**
   * The one read-modify-write loop of every write (the reference's `GuaranteedUpdate`): reads
   * the object (unless `flags.mode` is `create`), checks `flags.preconditions`, lets `tryUpdate`
   * decide, and writes with compare-and-swap. A conflict runs `tryUpdate` again on the newer
   * object (17 tries in all); under `upsert`, an object created or deleted meanwhile is read
   * again too. Dry-run writes nothing and answers what would have been written.
   * @throws StatusError 404 for a missing object (`update` mode), 409 AlreadyExists for a taken
   *   name (`create` mode), 409 Conflict for failed preconditions or too many conflicts, and
   *   whatever `tryUpdate` throws.
   */
  guaranteedUpdate(
    served: ServedResource,
    namespace: string,
    name: string,
    flags: UpdateFlags & { mode?: "update" },
    tryUpdate: TryUpdate,
  ): Promise<WriteResult>;
  guaranteedUpdate(
    served: ServedResource,
    namespace: string,
    name: string,
    flags: UpdateFlags,
    tryUpdate: TryUpdate<APIObject | undefined>,
  ): Promise<WriteResult>;
  async guaranteedUpdate(
    served: ServedResource,
    namespace: string,
    initialName: string,
    flags: UpdateFlags,
    given: TryUpdate | TryUpdate<APIObject | undefined>,
  ): Promise<WriteResult> {
    // Only `upsert` and `create` hand `undefined` to `tryUpdate`: the first overload's never see it.
    const tryUpdate = given as TryUpdate<APIObject | undefined>;
    const mode = flags.mode ?? "update";
    let name = initialName;
    let key = objectKey(served, namespace, name);
    for (let attempt = 1; ; attempt++) {
      // A create reads nothing: the store's create refuses a taken key by itself.
      const entry = mode === "create" && !flags.dryRun ? undefined : await this.store.get(key);
      const current = entry ? wireObject(entry) : undefined;
      if (current) {
        if (mode === "create") throw alreadyExists(served.qualifiedResource, name);
        if (flags.preconditions) checkPreconditions(served, name, current, flags.preconditions);
      } else if (mode === "update") throw notFound(served.qualifiedResource, name);
      // A decision made at once (a create's) is not awaited.
      const deciding = tryUpdate(current);
      const decision = deciding instanceof Promise ? await deciding : deciding;
      if (decision.kind === "noop") return decision.answer;
      let written: Promise<WriteResult>;
      if (decision.kind === "create") {
        if (entry) throw alreadyExists(served.qualifiedResource, name);
        written = this.commitCreate(key, renamed(decision.object, name), flags.dryRun);
      } else {
        if (!entry || !current) throw notFound(served.qualifiedResource, name);
        written = this.commitChange(key, entry, current, decision, flags.dryRun);
      }
      try {
        return await written;
      } catch (error) {
        if (isAlreadyExists(error)) {
          if (mode === "create") {
            if (!flags.generateName || attempt >= generateNameAttempts) throw alreadyExists(served.qualifiedResource, name);
            // Another object took the generated name: the same object under a fresh one.
            name = generatedName(flags.generateName);
            key = objectKey(served, namespace, name);
            continue;
          }
          // Created meanwhile (upsert): update what is there now.
          if (attempt <= conflictRetries) continue;
          throw alreadyExists(served.qualifiedResource, name);
        }
        if (isConflict(error)) {
          if (attempt <= conflictRetries) continue;
          throw conflict(served.qualifiedResource, name);
        }
        if (isNotFound(error)) {
          // Deleted meanwhile: an upsert creates it again.
          if (mode === "upsert" && attempt <= conflictRetries) continue;
          throw notFound(served.qualifiedResource, name);
        }
        throw error;
      }
    }
  }

  /** Stores a new object (or, under dry-run, answers it): 201. */
  private async commitCreate(key: string, object: APIObject, dryRun: boolean): Promise<WriteResult> {
    if (dryRun) return { code: 201, body: inWireOrder(object) };
    return new StoredWrite(201, await this.store.create(key, deepFreeze(inWireOrder(object))));
  }

  /** Writes an `update` or `delete` decision against the entry it was made from (nothing under dry-run). */
  private async commitChange(
    key: string,
    entry: Entry,
    current: APIObject,
    decision: Exclude<UpdateDecision, { kind: "create" | "noop" }>,
    dryRun: boolean,
  ): Promise<WriteResult> {
    if (decision.kind === "delete") {
      if (!dryRun) await this.store.delete(key, entry.modRevision);
      return decision.answer;
    }
    const answer = decision.answer;
    // What the store keeps: in wire order, without resourceVersion (one copy for both).
    const stored = inWireOrder(decision.object, true);
    // An object read from an older version is written even when unchanged: that stores it in the storage version.
    if (isNoOpWrite(stored, entry.value as APIObject) && !storedInOtherVersion(entry)) return answer ? answer(current) : new StoredWrite(200, entry);
    if (dryRun) return (answer ?? updated)(inWireOrder(decision.object));
    const written = await this.writeOrFinalize(key, stored, entry, decision.object);
    if (answer) return answer(written.object);
    return written.entry ? new StoredWrite(200, written.entry) : updated(written.object);
  }

  /**
   * Writes an updated object (`stored`: `object` as the store keeps it, see {@link inWireOrder});
   * one that is being deleted and has no finalizer left is removed. Answers the object as
   * written, and the new entry unless it was removed.
   */
  private async writeOrFinalize(key: string, stored: APIObject, entry: Entry, object: APIObject): Promise<{ object: APIObject; entry?: Entry }> {
    const meta = stored.metadata;
    if (meta.deletionTimestamp && !meta.finalizers?.length && !hasSpecFinalizers(stored)) {
      await this.store.delete(key, entry.modRevision);
      // The last state as the write made it (its members in the order they came).
      const last = stripResourceVersion(object);
      return { object: { ...last, metadata: withResourceVersion(last.metadata, String(entry.modRevision)) } };
    }
    const written = await this.store.update(key, deepFreeze(stored), entry.modRevision);
    return { object: wireObject(written), entry: written };
  }

  /** Records the write's field ownership in `metadata.managedFields` (an Update entry), unless apply did. */
  private track(served: ServedResource, live: APIObject | undefined, next: APIObject, opts: WriteOptions): APIObject {
    if (opts.applied) return next;
    return updateManagedFields(this.ownership(served, live, next, opts)).object as APIObject;
  }

  /** The `managedFields` a create of `next` records (its Update entry), without the copy of `next` that carries them. */
  private createdOwnership(served: ServedResource, next: APIObject, opts: WriteOptions): ManagedFieldsEntry[] {
    return updatedManagedFields(this.ownership(served, undefined, next, opts));
  }

  /** What the field manager records a write of `next` over `live` with. */
  private ownership(served: ServedResource, live: APIObject | undefined, next: APIObject, opts: WriteOptions): UpdateManagedFieldsOptions {
    return {
      live: live as JSONObject | undefined,
      next: next as JSONObject,
      manager: opts.fieldManager ?? "unknown",
      apiVersion: served.apiVersion,
      subresource: opts.subresource || undefined,
      now: this.clock.now(),
      typeInfo: storedTypeInfo(served),
    };
  }

  private invalid(served: ServedResource, name: string, errors: FieldError[]): never {
    throw invalid(served.qualifiedKind, name, errors);
  }

  private metaOptions(served: ServedResource): { namespaced: boolean; nameIsLabel: boolean; nameIsPathSegment: boolean } {
    const strategy = served.type.strategy;
    return { namespaced: served.namespaced, nameIsLabel: strategy?.nameIsLabel === true, nameIsPathSegment: strategy?.nameIsPathSegment === true };
  }

  /**
   * BeforeCreate: makes `input` (decoded, mutable; changed in place) a new object of `served` in
   * `namespace`: a name from `generateName`, the kind's defaults, mutating admission, uid,
   * timestamps, generation, the kind's create rules, validation, validating admission, and
   * `managedFields`. The result is what a `create` decision stores.
   * @throws StatusError 400 for a namespace that disagrees with the request's or a set
   *   resourceVersion, 422 for an invalid object, and what admission refuses (404/403 for a
   *   missing or terminating namespace, a webhook's denial, ...).
   */
  async prepareCreate(served: ServedResource, namespace: string, input: APIObject, opts: WriteOptions): Promise<APIObject> {
    const meta = input.metadata;
    if (served.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      }
      if (namespace) meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
    if (meta.resourceVersion) throw badRequest("resourceVersion should not be set on objects to be created");
    if (!meta.name && meta.generateName) meta.name = generatedName(meta.generateName);
    // The caller, for kinds that record who created them (CertificateSigningRequest).
    const ctx = this.strategyContext(opts.user);
    const strategy = served.type.strategy;
    strategy?.defaults?.(input, ctx);
    // The caller owns what it sent, defaulted (as the reference, whose field manager runs before
    // admission and the registry): not what admission, the kind's create rules or the server's
    // allocations (a Service's cluster IPs) add after.
    // A status the create drops (below) is nobody's, as the reference's reset fields.
    const dropsStatus = served.type.subresources?.includes("status") === true && !strategy?.statusOnCreate;
    const requested = dropsStatus && input.status !== undefined ? withoutStatus(input) : input;
    const owned = opts.applied ? undefined : this.createdOwnership(served, requested, opts);
    // Mutating admission sees the defaulted object; what the server owns is set after it.
    const attrs = await this.admit(served, this.describe("CREATE", meta.namespace ?? "", input, undefined, opts));
    const object = attrs?.object ?? input;
    // A webhook's patch replaced the object: default it again, as decoding its answer would.
    if (object !== input) strategy?.defaults?.(object, ctx);
    const created = object.metadata;
    if (served.namespaced) created.namespace = meta.namespace ?? "";
    else delete created.namespace;
    created.uid = crypto.randomUUID();
    created.creationTimestamp = formatTime(ctx.now);
    created.generation = 1;
    delete created.deletionTimestamp;
    delete created.deletionGracePeriodSeconds;
    // A kind with a status sub-resource starts without status; its strategy may set one.
    if (dropsStatus) delete object.status;
    strategy?.prepareForCreate?.(object, ctx);
    // The three lists are joined only when one of them holds an error (a valid write allocates none).
    const metaErrors = validateObjectMeta(object, this.metaOptions(served), ctx);
    const kindErrors = strategy?.validate?.(object, ctx);
    const createErrors = strategy?.validateCreate?.(object, ctx);
    if (metaErrors.length || kindErrors?.length || createErrors?.length) {
      this.invalid(served, created.name ?? "", [...metaErrors, ...(kindErrors ?? []), ...(createErrors ?? [])]);
    }
    // Awaited only when they answer with a promise (admission that passed at once, no access check: nothing).
    const validating = this.validateAdmission(attrs, object);
    if (validating) await validating;
    const checking = this.checkWriteAccess(served, object, undefined, opts);
    if (checking) await checking;
    if (opts.applied) return object;
    if (owned?.length) created.managedFields = owned;
    else delete created.managedFields;
    return object;
  }

  /** POST: creates `input` (already decoded; changed in place) in `namespace`. */
  async create(served: ServedResource, namespace: string, input: APIObject, opts: WriteOptions): Promise<WriteResult> {
    const generateName = input.metadata.name ? undefined : input.metadata.generateName || undefined;
    const object = await this.prepareCreate(served, namespace, input, opts);
    const flags: UpdateFlags = { dryRun: opts.dryRun, mode: "create", ...(generateName ? { generateName } : {}) };
    return this.guaranteedUpdate(served, object.metadata.namespace ?? "", object.metadata.name as string, flags, () => ({ kind: "create", object }));
  }

  /**
   * BeforeUpdate: what every update of a stored object runs on the object a verb built from
   * `current` (mutable; changed in place): the resourceVersion precondition when `pinned`,
   * mutating admission, the server-owned metadata of `current`, defaults, generation, the
   * validation of the main resource or of `opts.subresource`, validating admission, and
   * `managedFields`. The result is what an `update` decision stores.
   * @throws StatusError 409 when `pinned` and `object`'s resourceVersion is not `current`'s, 422
   *   for an invalid object, and what admission refuses.
   */
  async beforeUpdate(served: ServedResource, object: APIObject, current: APIObject, opts: WriteOptions, pinned = false): Promise<APIObject> {
    if (pinned && object.metadata.resourceVersion !== current.metadata.resourceVersion) throw conflict(served.qualifiedResource, object.metadata.name ?? "");
    const attrs = await this.admit(served, this.describe("UPDATE", current.metadata.namespace ?? "", object, current, opts));
    const prepared = this.prepareUpdate(served, attrs?.object ?? object, current, opts.subresource ?? "");
    const validating = this.validateAdmission(attrs, prepared);
    if (validating) await validating;
    const checking = this.checkWriteAccess(served, prepared, current, opts);
    if (checking) await checking;
    return this.track(served, current, prepared, opts);
  }

  /** Carries server-owned metadata over, runs the strategy and validation of an update. */
  private prepareUpdate(served: ServedResource, object: APIObject, old: APIObject, subresource: string): APIObject {
    const ctx = this.strategyContext();
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
    if ((strategy?.tracksGeneration ?? true) && !sameExcept(object, old, notSpec)) meta.generation += 1;
    let kindErrors: readonly FieldError[];
    if (subresource === "status" && strategy?.validateStatusUpdate) kindErrors = strategy.validateStatusUpdate(object, old, ctx);
    else if (subresource && subresource !== "status") kindErrors = strategy?.subresourceStrategies?.[subresource]?.validateUpdate?.(object, old, ctx) ?? [];
    else {
      const objectErrors = strategy?.validate?.(object, ctx);
      const updateErrors = strategy?.validateUpdate?.(object, old, ctx);
      kindErrors = !updateErrors?.length ? (objectErrors ?? []) : !objectErrors?.length ? updateErrors : [...objectErrors, ...updateErrors];
    }
    // The lists are joined only when one of them holds an error (a valid write allocates none).
    const metaErrors = validateObjectMeta(object, this.metaOptions(served), ctx);
    const metaUpdateErrors = validateObjectMetaUpdate(object, old, { domain: this.domain });
    if (metaErrors.length || metaUpdateErrors.length || kindErrors.length) {
      this.invalid(served, meta.name ?? "", [...metaErrors, ...metaUpdateErrors, ...kindErrors]);
    }
    return object;
  }

  /**
   * PUT of the main resource or of a sub-resource: `object` (decoded) replaces the stored one;
   * a kind that allows create-on-update creates a missing one (the main resource only).
   */
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
    const upsert = served.type.strategy?.allowCreateOnUpdate === true && !subresource;
    return this.guaranteedUpdate(served, namespace, name, { dryRun: opts.dryRun, mode: upsert ? "upsert" : "update" }, async (current) => {
      const next = mutableCopy(object);
      if (!current) {
        delete next.metadata.resourceVersion;
        return { kind: "create", object: await this.prepareCreate(served, namespace, next, opts) };
      }
      if (!pinned) next.metadata.resourceVersion = current.metadata.resourceVersion as string;
      return { kind: "update", object: await this.beforeUpdate(served, this.prepareWrite(served, subresource, next, current), current, opts, pinned) };
    });
  }

  /**
   * What an update through `subresource` may change of `current` (the reference's "Status
   * sub-resource"): a write to the main resource keeps the stored `status` of a kind with a
   * status sub-resource; a write to `/status` changes only `status`; other sub-resources follow
   * their strategy. The kind's own hooks run after these defaults. `next` is mutable.
   */
  prepareWrite(served: ServedResource, subresource: string, next: APIObject, current: APIObject): APIObject {
    const strategy = served.type.strategy;
    const ctx = this.strategyContext();
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
   * POST to an action sub-resource (Pod `binding`, `eviction`; ServiceAccount `token`): lets the
   * action decide on a copy of the parent, then writes the changed parent, deletes it, or leaves
   * it. `request` is the decoded body of the action's kind; the answer is the action's.
   * @throws StatusError 404 for a missing parent, 422 on the action's kind for field errors.
   */
  async act(
    served: ServedResource,
    namespace: string,
    name: string,
    actionName: string,
    action: ActionSubresource,
    request: APIObject,
    opts: WriteOptions,
  ): Promise<WriteResult> {
    return this.guaranteedUpdate(served, namespace, name, { dryRun: opts.dryRun }, async (current) => {
      const write = {
        ...this.describe("CREATE", namespace, request, undefined, { ...opts, subresource: actionName }),
        name,
        kind: actionKindOf(action, this.domain),
      };
      const attrs = await this.admit(served, write);
      const body = attrs?.object ?? request;
      await this.validateAdmission(attrs);
      const parent = mutableCopy(current);
      const outcome = await action.act(parent, body, opts.dryRun ? { ...this.strategyContext(), dryRun: true } : this.strategyContext());
      if (Array.isArray(outcome)) throw invalid({ group: actionKindOf(action, this.domain).group, kind: action.kind }, name, outcome);
      const answered = outcome.body as APIObject | Status;
      const answer: WriteResult = { code: outcome.code, body: answered.kind === "Status" ? answered : inWireOrder(answered as APIObject) };
      if (outcome.parent === "none") return { kind: "noop", answer };
      if (outcome.parent === "delete") return { kind: "delete", answer };
      // A dry run of an action leaves the parent as it is, unvalidated (as the reference's binding).
      if (opts.dryRun) return { kind: "noop", answer };
      return { kind: "update", object: this.prepareUpdate(served, parent, current, actionName), answer: () => answer };
    });
  }

  /**
   * create of a virtual kind (SubjectAccessReview, TokenReview, SelfSubjectReview): validated,
   * answered, not stored; `user` is the caller, for reviews that answer about it.
   */
  async evaluate(served: ServedResource, namespace: string, object: APIObject, user?: UserInfo): Promise<WriteResult> {
    const ctx: StrategyContext = user ? { ...this.strategyContext(), user } : this.strategyContext();
    if (served.namespaced && namespace) object.metadata.namespace = namespace;
    const strategy = served.type.strategy;
    strategy?.defaults?.(object, ctx);
    if (!strategy?.evaluate) throw methodNotAllowed(served.qualifiedResource, "create");
    const opts: WriteOptions = { dryRun: false, fieldValidation: "Ignore", warnings: [], ...(user ? { user } : {}) };
    const attrs = await this.admit(served, this.describe("CREATE", namespace, object, undefined, opts));
    const admitted = attrs?.object ?? object;
    const errors = strategy?.validate?.(admitted, ctx) ?? [];
    if (errors.length) this.invalid(served, admitted.metadata.name ?? "", errors);
    await this.validateAdmission(attrs, admitted);
    return { code: 201, body: inWireOrder(await strategy.evaluate(admitted, ctx)) };
  }

  /**
   * DELETE of one object: with the preconditions, admission (DELETE, the stored object as the old one), then the first phase (`deletionTimestamp`, the propagation finalizers, the kind's `prepareForDelete`)
   * while finalizers remain, else the removal.
   */
  async delete(served: ServedResource, namespace: string, name: string, options: DeleteOptions): Promise<WriteResult> {
    const strategy = served.type.strategy;
    const flags = { dryRun: options.dryRun, ...(options.preconditions ? { preconditions: options.preconditions } : {}) };
    return this.guaranteedUpdate(served, namespace, name, flags, async (current) => {
      strategy?.checkDelete?.(current, this.strategyContext(options.user));
      const attrs = await this.admit(served, {
        operation: "DELETE",
        namespace,
        name,
        object: undefined,
        oldObject: current,
        subresource: "",
        optionsKind: "DeleteOptions",
        dryRun: options.dryRun,
        user: options.user,
        warnings: options.warnings ?? [],
        ...(options.auditAnnotations ? { auditAnnotations: options.auditAnnotations } : {}),
      });
      await this.validateAdmission(attrs);
      const finalizers = [...(current.metadata.finalizers ?? [])];
      if (options.propagationPolicy === "Foreground" && !finalizers.includes("foregroundDeletion")) finalizers.push("foregroundDeletion");
      if (options.propagationPolicy === "Orphan" && !finalizers.includes("orphan")) finalizers.push("orphan");
      const details = { name, ...(served.group ? { group: served.group } : {}), kind: served.type.resource, uid: current.metadata.uid ?? "" };
      if (finalizers.length === 0 && !hasSpecFinalizers(current)) {
        return { kind: "delete", answer: { code: 200, body: strategy?.deleteReturnsObject ? current : successStatus(details) } };
      }
      // Graceful: the object stays, marked, until its finalizers are gone.
      const next = mutableCopy(current);
      next.metadata.finalizers = finalizers;
      if (!next.metadata.deletionTimestamp) {
        next.metadata.deletionTimestamp = formatTime(this.clock.now());
        next.metadata.deletionGracePeriodSeconds = 0;
      }
      strategy?.prepareForDelete?.(next, this.strategyContext());
      const code = options.propagationPolicy === "Foreground" ? 202 : 200;
      return {
        kind: "update",
        object: next,
        answer: (written) => ({ code, body: strategy?.deleteReturnsObject === false ? successStatus(details, code) : written }),
      };
    });
  }
}

/** 409 unless `current` is what `pre` requires (the reference's `Preconditions.Check` messages). */
function checkPreconditions(served: ServedResource, name: string, current: APIObject, pre: Preconditions): void {
  if (pre.uid !== undefined && pre.uid !== current.metadata.uid) {
    throw conflict(served.qualifiedResource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ""}`);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw conflict(
      served.qualifiedResource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ""}`,
    );
  }
}

/** True when a kind keeps its own finalizers in `spec.finalizers` (Namespace) and some remain. */
export function hasSpecFinalizers(object: APIObject): boolean {
  const spec = object.spec as { finalizers?: unknown } | undefined;
  return Array.isArray(spec?.finalizers) && spec.finalizers.length > 0;
}

/** `object` without `status` (a shallow copy). */
function withoutStatus(object: APIObject): APIObject {
  const copy = { ...object };
  delete copy.status;
  return copy;
}

/** The default `/status` update: everything of `current` but the status of `next`. */
function withStatusOf(current: APIObject, next: APIObject): APIObject {
  const merged = mutableCopy(current) as APIObject;
  if (next.status === undefined) delete merged.status;
  else merged.status = next.status;
  merged.metadata.resourceVersion = next.metadata.resourceVersion as string;
  return merged;
}
