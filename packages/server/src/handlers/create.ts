/**
 * POST: the create of a stored object (with `generateName` and dry-run, through
 * `ObjectStore.create`), or one of its variants: a POST to an action sub-resource or of a kind
 * that acts on another resource (see `action.ts`), and the create of a virtual kind, answered by
 * its strategy and never stored.
 * @module
 */
import { methodNotAllowed } from "@orch/meta";
import type { APIResponse } from "../api-request.js";
import { postAction, postActionOn } from "./action.js";
import { decodeRequestObject } from "./decode.js";
import { answerWrite, type ResourceCall } from "./handler-context.js";
import { writeOptions } from "./request-options.js";

/**
 * Serves `create`: 201 with the new object (the object as it would be under dry-run).
 * @throws StatusError 405 for a POST to a named object, 400/415/422 for a bad body, 409 for a
 *   taken name, 404/403 for a missing or terminating namespace.
 */
export async function create(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, info } = call;
  const opts = writeOptions(call);
  if (info.subresource) return postAction(call, opts);
  if (info.name) throw methodNotAllowed(served.qualifiedResource, "create");
  if (served.type.actionOn) return postActionOn(call, opts);
  const object = decodeRequestObject(call, opts);
  if (typeof object.metadata?.name === "string") call.request.auditObjectName = object.metadata.name;
  const result = served.type.virtual
    ? await ctx.objects.evaluate(served, call.namespace, object, call.request.user)
    : await ctx.objects.create(served, call.namespace, object, opts);
  return answerWrite(call, result, opts.warnings);
}
