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
 * `head`, the items separated by commas, then `tail`, as one flat string. A single `join` copies
 * each character once; `head + items.join(",") + tail` makes a string of parts that is copied
 * again, whole, the first time it is read (to count or encode its bytes): for a list of hundreds
 * of objects that second copy is a good part of the time it takes to answer.
 */
function joinItems(head: string, items: string[], tail: string): string {
  const last = items.length - 1;
  if (last < 0) return head + tail;
  items[0] = head + (items[0] as string);
  items[last] = (items[last] as string) + tail;
  return items.join(",");
}

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
  const json = joinItems(
    head,
    chunk.entries.map((e) => presentJSON(served, e)),
    "]}",
  );
  const items = () => chunk.entries.map((e) => presentObject(served, wireObject(e)));
  return call.encode(200, new EncodedJSON(json, () => ({ kind, apiVersion: served.apiVersion, metadata, items: items() })));
}
