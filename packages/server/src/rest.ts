/**
 * The REST entry of one resource request: the checks every verb shares (the sub-resource
 * exists and answers the verb, the kind offers the verb, the scope fits the path), the
 * negotiation of the answer's representation, then the handler of the verb from a
 * `Record<RequestVerb, Handler>` table (one module per verb under `handlers/`; a computed kind
 * has its own table). Kind behaviour lives in the kind's strategy, never here.
 * @module
 */
import { methodNotAllowed } from "@orch/meta";
import { hasProtobufCodec } from "@orch/protobuf";
import { subresourceVerbsOf } from "@orch/resources";
import type { APIRequest, APIResponse } from "./api-request.js";
import { computedHandlers } from "./handlers/computed.js";
import { serveConnect } from "./handlers/connect.js";
import { create } from "./handlers/create.js";
import { deleteCollection } from "./handlers/delete-collection.js";
import { deleteObject } from "./handlers/delete.js";
import { get } from "./handlers/get.js";
import { noSuchResource, type Handler, type ResourceCall, type RestContext } from "./handlers/handler-context.js";
import { list } from "./handlers/list.js";
import { patch } from "./handlers/patch.js";
import { isTrue } from "./handlers/request-options.js";
import { scaleHandlers } from "./handlers/scale.js";
import { update } from "./handlers/update.js";
import { watch } from "./handlers/watch.js";
import { negotiate } from "./negotiation.js";
import type { RequestVerb, ResourceRequestInfo } from "./request-info.js";
import { encodeResponse } from "./responses.js";
import type { ServedResource } from "./served-resource.js";

export { noSuchResource, type RestContext };

/** The handler of each verb of a stored (or virtual, or action) kind. */
const handlers: Readonly<Record<RequestVerb, Handler>> = {
  get,
  list,
  watch,
  create,
  update,
  patch,
  delete: deleteObject,
  deletecollection: deleteCollection,
};

/** The `Warning` of a request through a deprecated version, naming the version to use instead. */
function deprecationWarning(ctx: RestContext, served: ServedResource): string | undefined {
  if (!served.version.deprecated) return undefined;
  const preferred = served.type.versions.find((v) => v.storage && !v.deprecated);
  const instead = preferred ? ctx.lookup(served.group, preferred.name, served.type.resource) : undefined;
  return `${served.apiVersion} ${served.type.kind} is deprecated${instead ? `; use ${instead.apiVersion} ${served.type.kind}` : ""}`;
}

/**
 * Records a request through a deprecated version: the `apiserver_requested_deprecated_apis`
 * gauge, and the audit annotations `<domain>/deprecated` and `<domain>/removed-release`.
 */
function noteDeprecated(ctx: RestContext, served: ServedResource, info: ResourceRequestInfo, request: APIRequest): void {
  const removed = served.version.removedRelease ?? "";
  ctx.metrics?.deprecatedRequest({
    group: served.group,
    version: served.version.name,
    resource: served.type.resource,
    subresource: info.subresource,
    removed_release: removed,
  });
  const annotations = request.auditAnnotations;
  if (!annotations) return;
  annotations[`${ctx.domain}/deprecated`] = "true";
  if (removed) annotations[`${ctx.domain}/removed-release`] = removed;
}

/**
 * Serves one resource request of `served` (resolved from `info`'s group, version and
 * resource): the shared checks, then the handler of `info.verb`.
 * @throws StatusError 404 for a sub-resource the kind lacks or a cluster-scoped kind under a
 *   namespace, 405 for a verb the kind or sub-resource does not offer, 406 for an `Accept`
 *   nothing matches, and whatever the handler throws.
 */
export async function serveResource(
  ctx: RestContext,
  served: ServedResource,
  info: ResourceRequestInfo,
  request: APIRequest,
  query: URLSearchParams,
): Promise<APIResponse> {
  if (info.subresource && !(served.type.subresources ?? []).includes(info.subresource)) noSuchResource();
  // An action sub-resource (pods/eviction, serviceaccounts/token) is only ever created; others
  // answer the verbs their strategy names.
  if (info.subresource && !subresourceVerbsOf(served.type, info.subresource).includes(info.verb)) throw methodNotAllowed(served.qualifiedResource, info.verb);
  const verbs = served.type.verbs;
  if (verbs && !verbs.includes(info.verb)) throw methodNotAllowed(served.qualifiedResource, info.verb);
  // A cluster-scoped kind has no route under `namespaces/<ns>/`; the path of the namespaces
  // themselves (`namespaces/<name>`) is read as that namespace by request-info, as the reference does.
  if (!served.namespaced && info.namespace && info.resource !== "namespaces") noSuchResource();
  // A path after the sub-resource is only for connect sub-resources that take one (`proxy`).
  const connect = info.subresource ? served.type.strategy?.connect?.[info.subresource] : undefined;
  if (info.subpath && !connect?.subpath) noSuchResource();
  // A connect sub-resource answers no stored representation: it is served before negotiation.
  if (connect) return serveConnect(ctx, served, info, request, query, connect);
  // protobuf answers only single objects (no lists, watches or Tables) of kinds with a codec
  const singleObject =
    !info.subresource && (info.verb === "get" || info.verb === "create" || info.verb === "update" || info.verb === "patch" || info.verb === "delete");
  const negotiated = negotiate(
    request.headers.get("accept"),
    ctx.domain,
    info.verb === "get" || info.verb === "list" || info.verb === "watch",
    singleObject && hasProtobufCodec(served.apiVersion, served.type.kind),
  );
  const pretty = isTrue(query.get("pretty"));
  const deprecation = deprecationWarning(ctx, served);
  if (deprecation) noteDeprecated(ctx, served, info, request);
  const call: ResourceCall = {
    ctx,
    served,
    info,
    request,
    query,
    namespace: served.namespaced ? info.namespace : "",
    negotiated,
    encode: (code, body, warnings) =>
      encodeResponse(code, body, { negotiated, pretty, warnings: deprecation ? [deprecation, ...(warnings ?? [])] : (warnings ?? []) }),
  };
  // The scale sub-resource of a kind that declares one answers with an autoscaling/v1 Scale.
  const scale = info.subresource === "scale" && served.type.strategy?.scale ? scaleHandlers[info.verb] : undefined;
  if (scale) return scale(call);
  return (served.type.computed ? computedHandlers : handlers)[info.verb](call);
}
