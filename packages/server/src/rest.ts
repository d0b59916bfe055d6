/**
 * The REST verbs of one resource request: query parameters, selectors, the read path through
 * `@orch/list`, the write path through {@link ObjectStore}, and the encoding of each answer.
 * @module
 */
import {
  badRequest,
  invalid,
  methodNotAllowed,
  parseFieldSelector,
  parseLabelSelector,
  statusError,
  type APIObject,
  type FieldSelector,
  type LabelSelector,
  type Status,
  type WatchEvent,
} from "@orch/meta";
import { hasProtobufCodec } from "@orch/protobuf";
import { listChunk, openWatch, planRead, readOne, type WatchStreamEvent } from "@orch/list";
import type { Clock, Entry, Store } from "@orch/store";
import { subresourceVerbsOf } from "@orch/resources";
import type { APIRequest, APIResponse } from "./api-request.js";
import { decodeUTF8, negotiate, parseMediaType, parseYAMLBody, readObjectBody, type Negotiated } from "./negotiation.js";
import { apply, defaultFieldManager, validateFieldManager, type JSONObject } from "@orch/merge";
import { storedTypeInfo } from "./object-store.js";
import type { DeleteOptions, FieldValidation, ObjectStore, WriteOptions, WriteResult } from "./object-store.js";
import { applyPatch } from "./patch.js";
import type { ResourceRequestInfo } from "./request-info.js";
import { addWarnings, EncodedJSON, encodeResponse } from "./responses.js";
import { collectionPrefix, objectKey, presentJSON, presentObject, wireObject, type ServedResource } from "./served-resource.js";
import { parseIncludeObject, renderTable } from "./table.js";
import { notFound as notFoundError } from "@orch/meta";

/** What the REST layer needs of the server. */
export interface RestContext {
  store: Store;
  clock: Clock;
  domain: string;
  objects: ObjectStore;
  /** Another served resource of the same server (for `actionOn` kinds such as Binding). */
  lookup(group: string, version: string, resource: string): ServedResource | undefined;
  /** The objects of a `computed` kind (ComponentStatus), computed on each read. */
  computed(served: ServedResource): Promise<APIObject[]>;
}

/** 404 for a path that names no resource. */
export function noSuchResource(): never {
  throw statusError("NotFound", "the server could not find the requested resource", { details: {} });
}

function isTrue(value: string | null): boolean {
  return value !== null && value !== "false" && value !== "0";
}

function parseNonNegativeInt(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === "") return undefined;
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw badRequest(`invalid ${name} ${JSON.stringify(raw.slice(0, 64))}: must be a non-negative integer`);
  }
  return Number(raw);
}

function parseDryRun(query: URLSearchParams): boolean {
  const values = query.getAll("dryRun");
  for (const v of values) if (v !== "All" && v !== "") throw badRequest(`Invalid dryRun value ${JSON.stringify(v)}: supported values: "All"`);
  return values.length > 0;
}

function parseFieldValidation(query: URLSearchParams): FieldValidation {
  const v = query.get("fieldValidation");
  if (v === null || v === "") return "Warn";
  if (v === "Ignore" || v === "Warn" || v === "Strict") return v;
  throw badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(v)}: supported values: "Ignore", "Warn", "Strict"`);
}

/** The field-selector fields of an object: name, namespace and the kind's own. */
function fieldsOf(served: ServedResource, object: APIObject): Record<string, string> {
  const fields: Record<string, string> = { "metadata.name": object.metadata.name ?? "" };
  if (served.namespaced) fields["metadata.namespace"] = object.metadata.namespace ?? "";
  const extra = served.type.strategy?.selectableFields?.(object);
  return extra ? { ...fields, ...extra } : fields;
}

interface Selection {
  labels: LabelSelector;
  fields: FieldSelector;
  predicate: ((entry: Entry) => boolean) | undefined;
}

function selection(served: ServedResource, query: URLSearchParams): Selection {
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(query.get("fieldSelector") ?? "");
  const supported = new Set(["metadata.name", ...(served.namespaced ? ["metadata.namespace"] : []), ...(served.type.strategy?.selectableFieldNames ?? [])]);
  fields.checkSupported(supported);
  const predicate =
    labels.isEmpty() && fields.isEmpty()
      ? undefined
      : (entry: Entry) => {
          const object = wireObject(entry);
          return labels.matches(object.metadata.labels) && (fields.isEmpty() || fields.matches(fieldsOf(served, object)));
        };
  return { labels, fields, predicate };
}

function readParams(query: URLSearchParams): { resourceVersion?: string; resourceVersionMatch?: string; limit?: number; continue?: string } {
  const params: { resourceVersion?: string; resourceVersionMatch?: string; limit?: number; continue?: string } = {};
  const rv = query.get("resourceVersion");
  if (rv !== null) params.resourceVersion = rv;
  const match = query.get("resourceVersionMatch");
  if (match !== null && match !== "") params.resourceVersionMatch = match;
  const limit = parseNonNegativeInt(query, "limit");
  if (limit !== undefined) params.limit = limit;
  const token = query.get("continue");
  if (token !== null && token !== "") params.continue = token;
  return params;
}

function deleteOptions(request: APIRequest, body: unknown, query: URLSearchParams): DeleteOptions {
  const options: DeleteOptions = { dryRun: parseDryRun(query) };
  const source = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  if (source.kind !== undefined && source.kind !== "DeleteOptions") throw badRequest(`the body of a delete must be DeleteOptions, not ${String(source.kind)}`);
  const policy = source.propagationPolicy ?? query.get("propagationPolicy") ?? undefined;
  if (policy !== undefined && policy !== null) {
    if (policy !== "Orphan" && policy !== "Background" && policy !== "Foreground") {
      throw badRequest(`propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan"`);
    }
    options.propagationPolicy = policy;
  }
  if (source.orphanDependents === true && options.propagationPolicy === undefined) options.propagationPolicy = "Orphan";
  const grace = source.gracePeriodSeconds ?? parseNonNegativeInt(query, "gracePeriodSeconds");
  if (grace !== undefined) {
    if (typeof grace !== "number" || !Number.isInteger(grace)) throw badRequest("gracePeriodSeconds must be an integer");
    options.gracePeriodSeconds = grace;
  }
  if (Array.isArray(source.dryRun) && source.dryRun.length > 0) {
    for (const v of source.dryRun) if (v !== "All") throw badRequest(`Invalid dryRun value ${JSON.stringify(v)}: supported values: "All"`);
    options.dryRun = true;
  }
  const pre = source.preconditions;
  if (pre !== undefined && pre !== null) {
    if (typeof pre !== "object" || Array.isArray(pre)) throw badRequest("preconditions must be an object");
    const p = pre as Record<string, unknown>;
    options.preconditions = {};
    if (typeof p.uid === "string") options.preconditions.uid = p.uid;
    if (typeof p.resourceVersion === "string") options.preconditions.resourceVersion = p.resourceVersion;
  }
  void request;
  return options;
}

function listKind(served: ServedResource): string {
  return `${served.type.kind}List`;
}

/** The options kind a write's query parameters belong to, for the 422 of a bad `fieldManager`. */
const optionsKind: Partial<Record<string, string>> = { create: "CreateOptions", update: "UpdateOptions", patch: "PatchOptions" };

/**
 * The field manager of a write: `fieldManager`, else the User-Agent's (gaps.md). A name over 128
 * bytes or with control characters, or none on an apply, is a 422 on the write's options kind.
 */
function fieldManagerOf(domain: string, verb: string, query: URLSearchParams, request: APIRequest, isApply = false): string {
  const given = query.get("fieldManager") ?? "";
  const errors = validateFieldManager(given, { apply: isApply });
  if (errors.length) throw invalid({ group: `meta.${domain}`, kind: optionsKind[verb] ?? "PatchOptions" }, "", errors);
  return given || defaultFieldManager(request.headers.get("user-agent") ?? "");
}

function isApplyPatch(contentType: string | null): boolean {
  const media = contentType ? parseMediaType(contentType) : undefined;
  return media !== undefined && media.type === "application" && media.subtype === "apply-patch+yaml";
}

/**
 * PATCH with `application/apply-patch+yaml`: server-side apply of a YAML or JSON configuration
 * by `fieldManager` (required), creating the object when it is missing, with conflicts as 409
 * unless `force=true`.
 */
async function serverSideApply(
  ctx: RestContext,
  served: ServedResource,
  namespace: string,
  info: ResourceRequestInfo,
  request: APIRequest,
  query: URLSearchParams,
  opts: WriteOptions,
): Promise<WriteResult> {
  const manager = opts.fieldManager ?? "";
  const force = isTrue(query.get("force"));
  const body = parseYAMLBody(decodeUTF8(request.body));
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("the apply configuration must be an object");
  const config = body as Record<string, unknown>;
  if (config.apiVersion !== served.apiVersion) {
    throw badRequest(`the API version in the data (${String(config.apiVersion ?? "")}) does not match the expected API version (${served.apiVersion})`);
  }
  if (config.kind !== served.type.kind) {
    throw badRequest(`the kind in the data (${String(config.kind ?? "")}) does not match the expected kind (${served.type.kind})`);
  }
  const meta = (typeof config.metadata === "object" && config.metadata !== null ? config.metadata : {}) as Record<string, unknown>;
  if (meta.name !== undefined && meta.name !== info.name) {
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${info.name})`);
  }
  if (served.namespaced && meta.namespace !== undefined && meta.namespace !== namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  const applied = { ...config, metadata: { ...meta, name: info.name, ...(served.namespaced ? { namespace } : {}) } } as JSONObject;
  const applyOpts: WriteOptions = { ...opts, fieldManager: manager, applied: true };
  const run = (live: APIObject | undefined) =>
    apply({ live: live as JSONObject | undefined, applied, manager, force, apiVersion: served.apiVersion, now: ctx.clock.now(), typeInfo: storedTypeInfo(served), subresource: info.subresource || undefined }).object;
  return ctx.objects.guaranteedUpdate(
    served,
    namespace,
    info.name,
    applyOpts,
    (current) => {
      if (!current) return "create";
      const decoded = ctx.objects.decodeBody(served, run(presentObject(served, current)), applyOpts);
      return { object: ctx.objects.prepareWrite(served, info.subresource, decoded, current), pinned: false };
    },
    info.subresource ? undefined : () => ctx.objects.create(served, namespace, ctx.objects.decodeBody(served, run(undefined), applyOpts), applyOpts),
  );
}

/** The `Warning` of a request through a deprecated version, naming the version to use instead. */
function deprecationWarning(ctx: RestContext, served: ServedResource): string | undefined {
  if (!served.version.deprecated) return undefined;
  const preferred = served.type.versions.find((v) => v.storage && !v.deprecated);
  const instead = preferred ? ctx.lookup(served.group, preferred.name, served.type.resource) : undefined;
  return `${served.apiVersion} ${served.type.kind} is deprecated${instead ? `; use ${instead.apiVersion} ${served.type.kind}` : ""}`;
}

/** Serves one resource request. */
export async function serveResource(ctx: RestContext, served: ServedResource, info: ResourceRequestInfo, request: APIRequest, query: URLSearchParams): Promise<APIResponse> {
  const pretty = isTrue(query.get("pretty"));
  const subresources = served.type.subresources ?? [];
  if (info.subresource && !subresources.includes(info.subresource)) noSuchResource();
  // An action sub-resource (pods/eviction, serviceaccounts/token) is only ever created; others
  // answer the verbs their strategy names.
  if (info.subresource && !subresourceVerbsOf(served.type, info.subresource).includes(info.verb)) throw methodNotAllowed(served.qualifiedResource, info.verb);
  const verbs = served.type.verbs;
  if (verbs && !verbs.includes(info.verb)) throw methodNotAllowed(served.qualifiedResource, info.verb);
  const namespace = served.namespaced ? info.namespace : "";
  if (!served.namespaced && info.namespace && served.type.resource !== "namespaces") noSuchResource();
  // protobuf answers only single objects (no lists, watches or Tables) of kinds with a codec
  const singleObject = !info.subresource && (info.verb === "get" || info.verb === "create" || info.verb === "update" || info.verb === "patch" || info.verb === "delete");
  const negotiated = negotiate(
    request.headers.get("accept"),
    ctx.domain,
    info.verb === "get" || info.verb === "list" || info.verb === "watch",
    singleObject && hasProtobufCodec(served.apiVersion, served.type.kind),
  );
  const deprecation = deprecationWarning(ctx, served);
  const encode = (code: number, body: unknown, warnings?: string[]) =>
    encodeResponse(code, body, { negotiated, pretty, warnings: deprecation ? [deprecation, ...(warnings ?? [])] : (warnings ?? []) });
  const writeOptions = (): WriteOptions => ({
    dryRun: parseDryRun(query),
    fieldValidation: parseFieldValidation(query),
    warnings: [],
    fieldManager: fieldManagerOf(ctx.domain, info.verb, query, request, info.verb === "patch" && isApplyPatch(request.headers.get("content-type"))),
  });
  const answer = (result: WriteResult, opts: WriteOptions) =>
    encode(result.code, result.body.kind === "Status" ? result.body : presentObject(served, result.body as APIObject), opts.warnings);
  if (served.type.computed) return serveComputed(ctx, served, info, query, encode, negotiated);

  switch (info.verb) {
    case "get": {
      const plan = planRead("get", readParams(query), { domain: ctx.domain });
      const entry = await readOne(ctx.store, objectKey(served, namespace, info.name), plan, { clock: ctx.clock });
      if (!entry) throw notFoundError(served.qualifiedResource, info.name);
      const object = presentObject(served, wireObject(entry));
      if (negotiated.representation === "table") {
        return encode(200, renderTable(served, [object], { resourceVersion: object.metadata.resourceVersion ?? "" }, parseIncludeObject(query.get("includeObject")), negotiated.metaDomain ?? ctx.domain, ctx.clock.now()));
      }
      return encode(200, new EncodedJSON(presentJSON(served, entry), () => object));
    }
    case "list": {
      const params = readParams(query);
      const plan = planRead("list", params, { domain: ctx.domain });
      const { predicate } = selection(served, query);
      const chunk = await listChunk(ctx.store, collectionPrefix(served, namespace), plan, {
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(predicate ? { predicate } : {}),
        domain: ctx.domain,
        clock: ctx.clock,
      });
      const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion: String(chunk.resourceVersion) };
      if (chunk.continue) metadata.continue = chunk.continue;
      if (chunk.remainingItemCount !== undefined) metadata.remainingItemCount = chunk.remainingItemCount;
      if (negotiated.representation === "table") {
        return encode(200, renderTable(served, chunk.entries.map((e) => presentObject(served, wireObject(e))), metadata, parseIncludeObject(query.get("includeObject")), negotiated.metaDomain ?? ctx.domain, ctx.clock.now()));
      }
      const head = `{"kind":${JSON.stringify(listKind(served))},"apiVersion":${JSON.stringify(served.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
      const json = `${head}${chunk.entries.map((e) => presentJSON(served, e)).join(",")}]}`;
      const items = () => chunk.entries.map((e) => presentObject(served, wireObject(e)));
      return encode(200, new EncodedJSON(json, () => ({ kind: listKind(served), apiVersion: served.apiVersion, metadata, items: items() })));
    }
    case "watch":
      return watch(ctx, served, namespace, info, request, query, negotiated);
    case "create": {
      const opts = writeOptions();
      if (info.subresource) {
        const action = served.type.strategy?.actions?.[info.subresource];
        if (!action) throw methodNotAllowed(served.qualifiedResource, "create");
        const body = readObjectBody(request.headers.get("content-type"), request.body);
        return answer(await ctx.objects.act(served, namespace, info.name, info.subresource, action, body, opts), opts);
      }
      if (info.name) throw methodNotAllowed(served.qualifiedResource, "create");
      const target = served.type.actionOn;
      if (target) {
        // A kind whose create is an action on another resource: Binding binds the pod of its name.
        const on = ctx.lookup(served.group, served.version.name, target.resource);
        const action = on?.type.strategy?.actions?.[target.action];
        if (!on || !action) noSuchResource();
        const body = readObjectBody(request.headers.get("content-type"), request.body) as { metadata?: { name?: string } } | null;
        const name = typeof body === "object" && body !== null ? (body.metadata?.name ?? "") : "";
        if (!name) throw badRequest(`a ${served.type.kind} must name the ${on.type.singular} it acts on in metadata.name`);
        return answer(await ctx.objects.act(on, namespace, name, target.action, action, body, opts), opts);
      }
      const object = decodeRequestObject(ctx, served, request, opts);
      if (served.type.virtual) return answer(await ctx.objects.evaluate(served, namespace, object), opts);
      return answer(await ctx.objects.create(served, namespace, object, opts), opts);
    }
    case "update": {
      const opts = writeOptions();
      const object = decodeRequestObject(ctx, served, request, opts);
      const result = await ctx.objects.update(served, namespace, info.name, object, info.subresource, opts).catch(async (error: unknown) => {
        if (served.type.strategy?.allowCreateOnUpdate && !info.subresource && isNotFoundStatus(error)) {
          const fresh = decodeRequestObject(ctx, served, request, { ...opts, warnings: [] });
          fresh.metadata.name = info.name;
          delete fresh.metadata.resourceVersion;
          return ctx.objects.create(served, namespace, fresh, opts);
        }
        throw error;
      });
      return answer(result, opts);
    }
    case "patch": {
      const opts = writeOptions();
      opts.subresource = info.subresource;
      const contentType = request.headers.get("content-type");
      if (isApplyPatch(contentType)) return answer(await serverSideApply(ctx, served, namespace, info, request, query, opts), opts);
      let pinned = false;
      const result = await ctx.objects.guaranteedUpdate(served, namespace, info.name, opts, (current) => {
        if (!current) return "create";
        const patched = applyPatch(contentType, request.body, presentObject(served, current), served.version.schema);
        const decoded = ctx.objects.decodeBody(served, patched, opts);
        if (decoded.metadata.name !== info.name) {
          throw badRequest(`the name of the object (${String(decoded.metadata.name)}) does not match the name on the URL (${info.name})`);
        }
        pinned = decoded.metadata.resourceVersion !== current.metadata.resourceVersion;
        return { object: ctx.objects.prepareWrite(served, info.subresource, decoded, current), pinned };
      });
      return answer(result, opts);
    }
    case "delete": {
      if (info.subresource) throw methodNotAllowed(served.qualifiedResource, "delete");
      const text = request.body && request.body.length ? readObjectBody(request.headers.get("content-type"), request.body) : undefined;
      const options = deleteOptions(request, text, query);
      const result = await ctx.objects.delete(served, namespace, info.name, options);
      return encode(result.code, result.body);
    }
    case "deletecollection": {
      const text = request.body && request.body.length ? readObjectBody(request.headers.get("content-type"), request.body) : undefined;
      const options = deleteOptions(request, text, query);
      const { predicate } = selection(served, query);
      const chunk = await listChunk(ctx.store, collectionPrefix(served, namespace), planRead("list", {}), {
        ...(predicate ? { predicate } : {}),
        clock: ctx.clock,
      });
      for (const entry of chunk.entries) {
        const object = wireObject(entry);
        await ctx.objects.delete(served, object.metadata.namespace ?? "", object.metadata.name ?? "", options).catch((error: unknown) => {
          if (!isNotFoundStatus(error)) throw error;
        });
      }
      const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 };
      return encode(200, status);
    }
  }
}

/** Reads and decodes the object body of a create or update (JSON bodies are also checked for duplicate fields). */
function decodeRequestObject(ctx: RestContext, served: ServedResource, request: APIRequest, opts: WriteOptions): APIObject {
  const contentType = request.headers.get("content-type");
  const value = readObjectBody(contentType, request.body);
  const json = !contentType || contentType.toLowerCase().startsWith("application/json");
  return ctx.objects.decodeBody(served, value, opts, json && request.body ? new TextDecoder().decode(request.body) : undefined);
}

/** get and list of a computed kind: objects computed now, filtered by the selectors, never paged. */
async function serveComputed(
  ctx: RestContext,
  served: ServedResource,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  encode: (code: number, body: unknown) => APIResponse,
  negotiated: Negotiated,
): Promise<APIResponse> {
  const objects = await ctx.computed(served);
  if (info.verb === "get") {
    const found = objects.find((o) => o.metadata.name === info.name);
    if (!found) throw notFoundError(served.qualifiedResource, info.name);
    if (negotiated.representation === "table") return encode(200, renderTable(served, [found], {}, parseIncludeObject(query.get("includeObject")), negotiated.metaDomain ?? ctx.domain, ctx.clock.now()));
    return encode(200, found);
  }
  if (info.verb !== "list") throw methodNotAllowed(served.qualifiedResource, info.verb);
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(query.get("fieldSelector") ?? "");
  fields.checkSupported(new Set(["metadata.name", ...(served.type.strategy?.selectableFieldNames ?? [])]));
  const items = objects.filter((o) => labels.matches(o.metadata.labels) && fields.matches(fieldsOf(served, o)));
  if (negotiated.representation === "table") return encode(200, renderTable(served, items, {}, parseIncludeObject(query.get("includeObject")), negotiated.metaDomain ?? ctx.domain, ctx.clock.now()));
  return encode(200, { kind: listKind(served), apiVersion: served.apiVersion, metadata: {}, items });
}

function isNotFoundStatus(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { reason?: string }).reason === "NotFound";
}

/** Default watch timeout: a random 30 to 60 minutes, as the reference spreads reconnects. */
function defaultWatchTimeoutMs(): number {
  return (1800 + Math.floor(Math.random() * 1800)) * 1000;
}

async function watch(
  ctx: RestContext,
  served: ServedResource,
  namespace: string,
  info: ResourceRequestInfo,
  request: APIRequest,
  query: URLSearchParams,
  negotiated: Negotiated,
): Promise<APIResponse> {
  const plan = planRead("watch", readParams(query), { domain: ctx.domain });
  const sel = selection(served, query);
  let predicate = sel.predicate;
  if (info.name) {
    // A watch on one object: `/.../configmaps/<name>?watch=1` (the older form) or a name selector.
    const name = info.name;
    const inner = predicate;
    predicate = (entry) => wireObject(entry).metadata.name === name && (inner ? inner(entry) : true);
  }
  const timeoutSeconds = parseNonNegativeInt(query, "timeoutSeconds");
  const controller = new AbortController();
  const signal = request.signal ? AbortSignal.any([request.signal, controller.signal]) : controller.signal;
  const events = openWatch(ctx.store, collectionPrefix(served, namespace), plan, {
    ...(predicate ? { predicate } : {}),
    allowBookmarks: isTrue(query.get("allowWatchBookmarks")),
    timeoutMs: timeoutSeconds !== undefined && timeoutSeconds > 0 ? timeoutSeconds * 1000 : defaultWatchTimeoutMs(),
    clock: ctx.clock,
    signal,
  });
  const table = negotiated.representation === "table";
  const include = parseIncludeObject(query.get("includeObject"));
  const render = (event: WatchStreamEvent): WatchEvent => {
    switch (event.type) {
      case "ERROR":
        return { type: "ERROR", object: event.status };
      case "BOOKMARK":
        return { type: "BOOKMARK", object: { kind: served.type.kind, apiVersion: served.apiVersion, metadata: { resourceVersion: String(event.revision) } } };
      default: {
        const object = presentObject(served, wireObject(event.entry));
        if (!table) return { type: event.type, object };
        return { type: event.type, object: renderTable(served, [object], { resourceVersion: object.metadata.resourceVersion ?? "" }, include, negotiated.metaDomain ?? ctx.domain, ctx.clock.now()) as unknown as APIObject };
      }
    }
  };
  async function* stream(): AsyncGenerator<string> {
    try {
      for await (const event of events) {
        if (!table && event.type !== "ERROR" && event.type !== "BOOKMARK") yield `{"type":"${event.type}","object":${presentJSON(served, event.entry)}}\n`;
        else yield `${JSON.stringify(render(event))}\n`;
      }
    } finally {
      controller.abort();
    }
  }
  const headers = new Headers({ "Content-Type": table ? negotiated.contentType : "application/json", "Cache-Control": "no-cache, private" });
  addWarnings(headers, []);
  return { status: 200, headers, stream: stream() };
}
