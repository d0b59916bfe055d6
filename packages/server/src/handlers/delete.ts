/**
 * DELETE of one stored object, with the DeleteOptions of its body or query (dry-run,
 * propagation policy, preconditions), through `ObjectStore.delete`: the kind's delete rules,
 * then the first phase while finalizers remain, else the removal.
 * @module
 */
import { methodNotAllowed } from "@orch/meta";
import type { APIResponse } from "../api-request.js";
import { readRequestBody } from "./decode.js";
import type { ResourceCall } from "./handler-context.js";
import { requestDeleteOptions } from "./request-options.js";

/**
 * Serves `delete`: 200 (202 for foreground deletion) with a Success Status or the object, as
 * the kind's `deleteReturnsObject` says.
 * @throws StatusError 405 for a sub-resource, 400 for bad options, 404 for a missing object,
 *   409 for failed preconditions, and what admission refuses.
 */
export async function deleteObject(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, info } = call;
  if (info.subresource) throw methodNotAllowed(served.qualifiedResource, "delete");
  const options = requestDeleteOptions(call, readRequestBody(call, true));
  const result = await ctx.objects.delete(served, call.namespace, info.name, options);
  return call.encode(result.code, result.body, options.warnings);
}
