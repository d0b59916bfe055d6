/**
 * PUT of a stored object or of one of its sub-resources (`status`, `finalize`, ...): the body
 * replaces the object through `ObjectStore.update` (optimistic concurrency on a given
 * resourceVersion; a create for kinds that allow create-on-update).
 * @module
 */
import type { APIResponse } from "../api-request.js";
import { decodeRequestObject } from "./decode.js";
import { answerWrite, type ResourceCall } from "./handler-context.js";
import { writeOptions } from "./request-options.js";

/**
 * Serves `update`: 200 with the stored object (201 when it was created).
 * @throws StatusError 400/415/422 for a bad body, 404 for a missing object, 409 for a stale
 *   resourceVersion.
 */
export async function update(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, info } = call;
  const opts = writeOptions(call);
  const object = decodeRequestObject(call, opts);
  return answerWrite(call, await ctx.objects.update(served, call.namespace, info.name, object, info.subresource, opts), opts.warnings);
}
