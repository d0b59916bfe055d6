/**
 * PATCH of a stored object or of a sub-resource: a JSON patch, merge patch or strategic merge
 * patch applied to the current object in the served version, decoded again, and written through
 * `ObjectStore.guaranteedUpdate` (re-applied to the newer object after a conflict). A patch of
 * `application/apply-patch+yaml` is server-side apply (see `apply.ts`).
 * @module
 */
import { badRequest } from "@orch/meta";
import type { APIResponse } from "../api-request.js";
import { applyPatch } from "../patch.js";
import { presentObject } from "../served-resource.js";
import { serverSideApply } from "./apply.js";
import { decodeBody } from "./decode.js";
import { answerWrite, type ResourceCall } from "./handler-context.js";
import { isApplyPatch, writeOptions } from "./request-options.js";

/**
 * Serves `patch`: 200 with the stored object.
 * @throws StatusError 415 for an unsupported patch type, 400 for a bad patch or a changed name,
 *   404 for a missing object, 409 when the patch names another resourceVersion, 422 for an
 *   invalid result.
 */
export async function patch(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, info, request } = call;
  const opts = writeOptions(call);
  opts.subresource = info.subresource;
  const contentType = request.headers.get("content-type");
  if (isApplyPatch(contentType)) return answerWrite(call, await serverSideApply(call, opts), opts.warnings);
  const objects = ctx.objects;
  const result = await objects.guaranteedUpdate(served, call.namespace, info.name, { dryRun: opts.dryRun }, async (current) => {
    const presented = presentObject(served, current);
    const patched = applyPatch(contentType, request.body, presented, served.version.schema);
    // The stored managedFields, which the patched object carries unless the patch names them,
    // need no decoding in the version they were stored in.
    const stored = presented === current && !served.version.toStorage ? current.metadata.managedFields : undefined;
    const decoded = decodeBody(call, patched, opts, undefined, stored);
    if (decoded.metadata.name !== info.name) {
      throw badRequest(`the name of the object (${String(decoded.metadata.name)}) does not match the name on the URL (${info.name})`);
    }
    // A patch that sets another resourceVersion than the current one makes it a precondition.
    const pinned = decoded.metadata.resourceVersion !== current.metadata.resourceVersion;
    return {
      kind: "update",
      object: await objects.beforeUpdate(served, objects.prepareWrite(served, info.subresource, decoded, current), current, opts, pinned),
    };
  });
  return answerWrite(call, result, opts.warnings);
}
