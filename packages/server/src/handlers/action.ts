/**
 * The create variants that act on a stored object instead of storing one: a POST to an action
 * sub-resource (Pod `binding` and `eviction`, ServiceAccount `token`), and the create of a kind
 * whose `actionOn` names such an action of another resource (a Binding binds the pod of its
 * name). The body is of the action's kind; the answer is the action's.
 * @module
 */
import { badRequest, methodNotAllowed } from "@orch/meta";
import type { APIResponse } from "../api-request.js";
import type { WriteOptions } from "../object-store.js";
import { answerInClientVersion, decodeActionRequest, readRequestBody } from "./decode.js";
import { answerWrite, noSuchResource, type ResourceCall } from "./handler-context.js";

/**
 * POST to the action sub-resource `info.subresource` of the object `info.name`.
 * @throws StatusError 405 when the sub-resource is no action, 400 for a bad body, 404 for a
 *   missing object, 422 or the action's own error when the action refuses.
 */
export async function postAction(call: ResourceCall, opts: WriteOptions): Promise<APIResponse> {
  const { ctx, served, info } = call;
  const action = served.type.strategy?.actions?.[info.subresource];
  if (!action) throw methodNotAllowed(served.qualifiedResource, "create");
  const request = decodeActionRequest(call, action, readRequestBody(call));
  const result = await ctx.objects.act(served, call.namespace, info.name, info.subresource, action, request.object, opts);
  return answerWrite(call, answerInClientVersion(result, action, request), opts.warnings);
}

/**
 * POST of a kind whose `actionOn` is an action of another resource of the same group and
 * version: the action runs on the object named by the body's `metadata.name`.
 * @throws StatusError 404 when the other resource or its action is not served, 400 for a body
 *   without a name or otherwise bad, as {@link postAction} for the rest.
 */
export async function postActionOn(call: ResourceCall, opts: WriteOptions): Promise<APIResponse> {
  const { ctx, served } = call;
  const target = served.type.actionOn;
  const on = target ? ctx.lookup(served.group, served.version.name, target.resource) : undefined;
  const action = target ? on?.type.strategy?.actions?.[target.action] : undefined;
  if (!target || !on || !action) noSuchResource();
  const body = readRequestBody(call) as { metadata?: { name?: string } } | null;
  const name = typeof body === "object" && body !== null ? (body.metadata?.name ?? "") : "";
  if (!name) throw badRequest(`a ${served.type.kind} must name the ${on.type.singular} it acts on in metadata.name`);
  const request = decodeActionRequest(call, action, body);
  const result = await ctx.objects.act(on, call.namespace, name, target.action, action, request.object, opts);
  return answerWrite(call, answerInClientVersion(result, action, request), opts.warnings);
}
