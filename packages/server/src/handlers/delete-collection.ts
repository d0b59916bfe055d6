/**
 * DELETE of a collection: every object the selectors match (in the namespace, or in all), each
 * deleted as one DELETE would (objects gone meanwhile are skipped), answered with a Success
 * Status. Objects their kind refuses to delete at all (its strategy's `checkDelete`: the system
 * PriorityClasses) are left in place and the rest deleted, so that deleting "all" of a kind
 * neither fails halfway nor removes what the server depends on.
 * @module
 */
import { isNotFound, type Status } from "@orch/meta";
import { listChunk, planRead } from "@orch/list";
import type { APIResponse } from "../api-request.js";
import { collectionPrefix, wireObject } from "../served-resource.js";
import { readRequestBody } from "./decode.js";
import type { ResourceCall } from "./handler-context.js";
import { requestDeleteOptions, selection } from "./request-options.js";

/**
 * Serves `deletecollection`.
 * @throws StatusError 400 for bad options or selectors, and the first failure of a delete other
 *   than 404 (the objects before it stay deleted).
 */
export async function deleteCollection(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, query } = call;
  const options = requestDeleteOptions(call, readRequestBody(call, true));
  const { predicate } = selection(served, query);
  const chunk = await listChunk(ctx.store, collectionPrefix(served, call.namespace), planRead("list", {}), {
    ...(predicate ? { predicate } : {}),
    clock: ctx.clock,
  });
  const checkDelete = served.type.strategy?.checkDelete;
  const strategyContext = checkDelete && ctx.objects.strategyContext(call.request.user);
  for (const entry of chunk.entries) {
    const object = wireObject(entry);
    if (checkDelete && strategyContext && refuses(() => checkDelete(object, strategyContext))) continue;
    await ctx.objects.delete(served, object.metadata.namespace ?? "", object.metadata.name ?? "", options).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 };
  return call.encode(200, status);
}

/** True when `check` throws (the kind refuses the deletion). */
function refuses(check: () => void): boolean {
  try {
    check();
    return false;
  } catch {
    return true;
  }
}
