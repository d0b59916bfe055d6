/**
 * GET and LIST of a computed kind (ComponentStatus): the objects come from the kind's
 * `computed` provider, given the server's facts on each read; nothing is stored, paged or
 * watched. Lists are filtered by the selectors.
 * @module
 */
import { methodNotAllowed, notFound, parseFieldSelector, parseLabelSelector, type APIObject } from "@orch/meta";
import type { APIResponse } from "../api-request.js";
import type { RequestVerb } from "../request-info.js";
import { listKind, tableOf, type Handler, type ResourceCall } from "./handler-context.js";
import { fieldsOf } from "./request-options.js";

/** The objects of the served computed kind now. */
function computedObjects(call: ResourceCall): APIObject[] | Promise<APIObject[]> {
  const { ctx, served } = call;
  const provider = served.type.computed;
  if (!provider) return [];
  return provider({ domain: ctx.domain, now: ctx.clock.now(), storeHealthy: ctx.facts.storeHealthy, controllersRunning: ctx.facts.controllersRunning });
}

/**
 * Serves `get` of a computed kind.
 * @throws StatusError 404 when the provider returns no object of that name.
 */
export async function getComputed(call: ResourceCall): Promise<APIResponse> {
  const name = call.info.name;
  const found = (await computedObjects(call)).find((o) => o.metadata.name === name);
  if (!found) throw notFound(call.served.qualifiedResource, name);
  if (call.negotiated.representation === "table") return call.encode(200, tableOf(call, [found], {}));
  return call.encode(200, found);
}

/**
 * Serves `list` of a computed kind: every object the selectors match, in one unpaged list.
 * @throws StatusError 400 for a malformed selector or an unsupported field.
 */
export async function listComputed(call: ResourceCall): Promise<APIResponse> {
  const { served, query } = call;
  const objects = await computedObjects(call);
  const labels = parseLabelSelector(query.get("labelSelector") ?? "");
  const fields = parseFieldSelector(query.get("fieldSelector") ?? "");
  fields.checkSupported(new Set(["metadata.name", ...(served.type.strategy?.selectableFieldNames ?? [])]));
  const items = objects.filter((o) => labels.matches(o.metadata.labels) && fields.matches(fieldsOf(served, o)));
  if (call.negotiated.representation === "table") return call.encode(200, tableOf(call, items, {}));
  return call.encode(200, { kind: listKind(served), apiVersion: served.apiVersion, metadata: {}, items });
}

/** 405 for a verb a computed kind does not offer. */
const notOffered: Handler = async (call) => {
  throw methodNotAllowed(call.served.qualifiedResource, call.info.verb);
};

/** The handlers of a computed kind: `get` and `list`; every other verb is 405. */
export const computedHandlers: Readonly<Record<RequestVerb, Handler>> = {
  get: getComputed,
  list: listComputed,
  watch: notOffered,
  create: notOffered,
  update: notOffered,
  patch: notOffered,
  delete: notOffered,
  deletecollection: notOffered,
};
