/**
 * LIST of a collection of stored objects: one chunk through `@orch/list` (limit, continue,
 * resourceVersion semantics), filtered by the selectors, answered as JSON joined from each
 * entry's cached JSON (no re-serialisation), or as a Table.
 * @module
 */
import { listChunk, planRead } from "@orch/list";
import type { APIResponse } from "../api-request.js";
import { EncodedJSON } from "../responses.js";
import { collectionPrefix, presentJSON, presentObject, wireObject } from "../served-resource.js";
import { listKind, tableOf, type ResourceCall } from "./handler-context.js";
import { readParams, selection } from "./request-options.js";

/**
 * Serves `list`.
 * @throws StatusError 400 for bad read parameters or selectors, 410 for an expired continue token.
 */
export async function list(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, query } = call;
  const params = readParams(query);
  const plan = planRead("list", params, { domain: ctx.domain });
  const { predicate } = selection(served, query);
  const chunk = await listChunk(ctx.store, collectionPrefix(served, call.namespace), plan, {
    ...(params.limit !== undefined ? { limit: params.limit } : {}),
    ...(predicate ? { predicate } : {}),
    domain: ctx.domain,
    clock: ctx.clock,
  });
  const metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number } = { resourceVersion: String(chunk.resourceVersion) };
  if (chunk.continue) metadata.continue = chunk.continue;
  if (chunk.remainingItemCount !== undefined) metadata.remainingItemCount = chunk.remainingItemCount;
  if (call.negotiated.representation === "table") {
    return call.encode(
      200,
      tableOf(
        call,
        chunk.entries.map((e) => presentObject(served, wireObject(e))),
        metadata,
      ),
    );
  }
  const kind = listKind(served);
  const head = `{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(served.apiVersion)},"metadata":${JSON.stringify(metadata)},"items":[`;
  const json = `${head}${chunk.entries.map((e) => presentJSON(served, e)).join(",")}]}`;
  const items = () => chunk.entries.map((e) => presentObject(served, wireObject(e)));
  return call.encode(200, new EncodedJSON(json, () => ({ kind, apiVersion: served.apiVersion, metadata, items: items() })));
}
