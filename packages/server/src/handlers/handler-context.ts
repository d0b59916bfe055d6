/**
 * What every REST handler works with: the server's part ({@link RestContext}), one resource
 * request after the checks every verb shares ({@link ResourceCall}), the shape of a handler, and
 * the few answers several handlers give (a 404 for no route, a write's result, a Table).
 * @module
 */
import type { MetricsRecorder } from "../metrics.js";
import { statusError, type APIObject, type ListMeta, type Table } from "@orch/meta";
import type { ComputedContext } from "@orch/resources";
import type { Clock, Store } from "@orch/store";
import type { APIRequest, APIResponse } from "../api-request.js";
import type { Negotiated } from "../negotiation.js";
import { storedEntryOf, type ObjectStore, type WriteResult } from "../object-store.js";
import type { ResourceRequestInfo } from "../request-info.js";
import { EncodedJSON } from "../responses.js";
import { presentJSON, presentObject, type ServedResource } from "../served-resource.js";
import { parseIncludeObject, renderTable } from "../table.js";

/**
 * What the server tells the providers of computed kinds about itself (ComponentStatus reports
 * them); the handler adds the domain and the time to make a `ComputedContext`.
 */
export type ServerFacts = Pick<ComputedContext, "storeHealthy" | "controllersRunning">;

/** What the REST layer needs of the server; one per server, shared by every request. */
export interface RestContext {
  /** Where objects are read (the watch cache when there is one). */
  store: Store;
  clock: Clock;
  domain: string;
  /** The write path every handler that writes goes through. */
  objects: ObjectStore;
  /** Another served resource of the same server (for `actionOn` kinds such as Binding). */
  lookup(group: string, version: string, resource: string): ServedResource | undefined;
  /** The facts the `computed` provider of a kind (ComponentStatus) is given on each read. */
  facts: ServerFacts;
  /**
   * Watches without `timeoutSeconds` end after a random duration from this many seconds to twice
   * that (`--min-request-timeout`); 1800 when absent.
   */
  minRequestTimeoutSeconds?: number;
  /** Counts requests through deprecated versions (`apiserver_requested_deprecated_apis`); absent: nothing is counted. */
  metrics?: MetricsRecorder;
}

/** One resource request as its handler gets it: the route, the request and how to answer. */
export interface ResourceCall {
  ctx: RestContext;
  served: ServedResource;
  info: ResourceRequestInfo;
  request: APIRequest;
  query: URLSearchParams;
  /** The namespace of the request for a namespaced kind (`""` for all namespaces); `""` otherwise. */
  namespace: string;
  /** The representation the client accepts for this request. */
  negotiated: Negotiated;
  /**
   * Encodes an answer in the negotiated representation, with `pretty`, the deprecation warning
   * of the served version and `warnings` as `Warning` headers.
   */
  encode(code: number, body: unknown, warnings?: readonly string[]): APIResponse;
}

/** Serves one verb of a resource request; rejects with a StatusError for every failure. */
export type Handler = (call: ResourceCall) => Promise<APIResponse>;

/** 404 for a path that names no resource. */
export function noSuchResource(): never {
  throw statusError("NotFound", "the server could not find the requested resource", { details: {} });
}

/**
 * The answer of a write: its Status as is, or its object in the served version, with the write's
 * warnings. The object of a stored entry is answered from the entry's JSON, serialised once for
 * this answer and the reads and watch events after it.
 */
export function answerWrite(call: ResourceCall, result: WriteResult, warnings: readonly string[]): APIResponse {
  const body = result.body;
  if (body.kind === "Status") return call.encode(result.code, body, warnings);
  const served = call.served;
  const stored = storedEntryOf(result);
  if (stored && call.negotiated.representation === "json") {
    return call.encode(result.code, new EncodedJSON(presentJSON(served, stored), () => presentObject(served, body as APIObject)), warnings);
  }
  return call.encode(result.code, presentObject(served, body as APIObject), warnings);
}

/** The kind of a list of the served kind: `<Kind>List`. */
export function listKind(served: ServedResource): string {
  return `${served.type.kind}List`;
}

/** `objects` as the Table the client asked for (`includeObject` from the query). */
export function tableOf(call: ResourceCall, objects: APIObject[], listMeta: ListMeta): Table {
  const { ctx, served, query, negotiated } = call;
  return renderTable(served, objects, listMeta, parseIncludeObject(query.get("includeObject")), negotiated.metaDomain ?? ctx.domain, ctx.clock.now());
}
