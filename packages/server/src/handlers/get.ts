/**
 * GET of one stored object: read through `@orch/list` (a consistent read, or the watch cache for
 * `resourceVersion=0` and the like), answered from the entry's cached JSON or as a Table.
 * @module
 */
import { notFound, type APIObject } from "@orch/meta";
import { planRead, readOne } from "@orch/list";
import type { APIResponse } from "../api-request.js";
import { EncodedJSON } from "../responses.js";
import { objectKey, presentJSON, presentObject, wireObject } from "../served-resource.js";
import { tableOf, type ResourceCall } from "./handler-context.js";
import { readParams } from "./request-options.js";

/**
 * Serves `get` (the object of a sub-resource such as `status` is the whole object).
 * @throws StatusError 404 for a missing object, 400 for bad read parameters.
 */
export async function get(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, info } = call;
  const plan = planRead("get", readParams(call.query), { domain: ctx.domain });
  const entry = await readOne(ctx.store, objectKey(served, call.namespace, info.name), plan, { clock: ctx.clock });
  if (!entry) throw notFound(served.qualifiedResource, info.name);
  if (call.negotiated.representation === "table") {
    const object = presentObject(served, wireObject(entry));
    return call.encode(200, tableOf(call, [object], { resourceVersion: object.metadata.resourceVersion ?? "" }));
  }
  // The object itself is only made (once) when an encoding other than the cached JSON asks for it.
  let object: APIObject | undefined;
  return call.encode(200, new EncodedJSON(presentJSON(served, entry), () => (object ??= presentObject(served, wireObject(entry)))));
}
