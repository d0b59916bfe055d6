/**
 * The connect sub-resources (Pod `log`, `exec`, `attach`, `portforward`, `proxy`): the request's
 * options are decoded, the kind's {@link ConnectSubresource} says where the request would go,
 * and the server answers in the backend's stead. This server connects to no node agent and no
 * pod network, so a request that would reach one is answered as the reference answers when the
 * backend cannot be reached: a 503 whose message starts as the reference's (`Get "<url>"` for a
 * streamed read, `error dialing backend` for an upgraded connection, `error trying to reach
 * service` for a proxied request).
 * @module
 */
import { badRequest, serviceUnavailable } from "@orch/meta";
import type { ConnectSubresource, ConnectTarget } from "@orch/resources";
import type { APIRequest, APIResponse } from "../api-request.js";
import type { ResourceRequestInfo } from "../request-info.js";
import type { ServedResource } from "../served-resource.js";
import type { RestContext } from "./handler-context.js";

/** Why no backend answers: this server has no connection to node agents or pods. */
const noBackend = "this server does not connect to node agents or pods";

/** True for a request that asks to switch protocols (`Connection: Upgrade` with an `Upgrade` header), as SPDY and WebSocket clients send. */
export function isUpgradeRequest(headers: Headers): boolean {
  const connection = headers.get("connection") ?? "";
  return connection.split(",").some((token) => token.trim().toLowerCase() === "upgrade") && headers.has("upgrade");
}

/**
 * The answer for a target: an empty 200 for `empty`, else the refusal of a request that must
 * upgrade and does not (400), or the backend that cannot be reached (503).
 */
function answer(target: ConnectTarget, request: APIRequest): APIResponse {
  if (target.type === "empty") return { status: 200, headers: new Headers({ "Content-Type": target.contentType }), body: "" };
  if (target.upgradeRequired && !isUpgradeRequest(request.headers)) throw badRequest("Upgrade request required");
  const why = `dial tcp ${target.host}: ${noBackend}`;
  switch (target.via) {
    case "stream":
      throw serviceUnavailable(`Get ${JSON.stringify(target.location)}: ${why}`);
    case "dial":
      throw serviceUnavailable(`error dialing backend: ${why}`);
    case "proxy":
      throw serviceUnavailable(`error trying to reach service: ${why}`);
  }
}

/**
 * Serves a request to the connect sub-resource `connect` of the object `info.name` (the method
 * was checked against the sub-resource's verbs before).
 * @throws StatusError 400 for `dryRun` on a connection, a query that does not convert or a
 *   request the object cannot take (no such container, no node yet), 422 for invalid options,
 *   404 for a missing object (or Node), 503 for a backend that cannot be reached.
 */
export async function serveConnect(
  ctx: RestContext,
  served: ServedResource,
  info: ResourceRequestInfo,
  request: APIRequest,
  query: URLSearchParams,
  connect: ConnectSubresource,
): Promise<APIResponse> {
  if (!connect.read && query.has("dryRun")) throw badRequest("dryRun is not supported");
  const options = connect.options(query, info.subpath ?? "", info.name);
  const namespace = served.namespaced ? info.namespace : "";
  const target = await connect.locate(namespace, info.name, options, ctx.objects.strategyContext(request.user));
  return answer(target, request);
}
