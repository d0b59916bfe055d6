/**
 * LIST of a collection of stored objects: one chunk through `@orch/list` (limit, continue,
 * resourceVersion semantics), filtered by the selectors, answered as JSON made of each entry's
 * cached JSON bytes, written as parts (no re-serialisation, no joined copy), or as a Table.
 * @module
 */
import { listChunk, planRead } from "@orch/list";
import type { APIResponse } from "../api-request.js";
import { EncodedJSONParts, type BodyParts } from "../responses.js";
import { collectionPrefix, presentBytes, presentJSON, presentObject, wireObject } from "../served-resource.js";
import { listKind, tableOf, type ResourceCall } from "./handler-context.js";
import { readParams, selection } from "./request-options.js";

const encoder = new TextEncoder();
const comma = encoder.encode(",");
const tail = encoder.encode("]}");

/**
 * `head`, the items separated by commas, then `tail`, as one flat string (for callers that read
 * a list body whole, such as in-process clients). A single `join` copies each character once;
 * `head + items.join(",") + tail` makes a string of parts that is copied again, whole, the first
 * time it is read.
 */
function joinItems(head: string, items: string[], tail: string): string {
  const last = items.length - 1;
  if (last < 0) return head + tail;
  items[0] = head + (items[0] as string);
  items[last] = (items[last] as string) + tail;
  return items.join(",");
}

/**
 * The body `head`, the items separated by commas, then `]}`, as parts: each item is its entry's
 * cached bytes (`bytesOf`), so answering makes no allocation the size of the body. Joining the
 * items' texts instead made one string of hundreds of KiB per LIST, which V8 puts in its
 * large-object space and frees only in a full collection: under a flood of LISTs that space grew
 * by hundreds of MB between collections, and encoding each string to UTF-8 again to write it cost
 * more CPU than the rest of the LIST. The parts array is made at its final length (growing it by
 * pushes allocated about three times its size per LIST).
 */
function listParts<E>(head: string, entries: readonly E[], bytesOf: (entry: E) => Uint8Array): BodyParts {
  const first = encoder.encode(head);
  const count = entries.length;
  const parts = new Array<Uint8Array>(count === 0 ? 2 : 2 * count + 1);
  parts[0] = first;
  let byteLength = first.byteLength + tail.byteLength + Math.max(0, count - 1) * comma.byteLength;
  let at = 1;
  for (let i = 0; i < count; i++) {
    const item = bytesOf(entries[i] as E);
    if (i > 0) parts[at++] = comma;
    parts[at++] = item;
    byteLength += item.byteLength;
  }
  parts[at] = tail;
  return { parts, byteLength };
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
  const parts = listParts(head, chunk.entries, (e) => presentBytes(served, e));
  const items = () => chunk.entries.map((e) => presentObject(served, wireObject(e)));
  return call.encode(
    200,
    new EncodedJSONParts(
      parts,
      () => ({ kind, apiVersion: served.apiVersion, metadata, items: items() }),
      () =>
        joinItems(
          head,
          chunk.entries.map((e) => presentJSON(served, e)),
          "]}",
        ),
    ),
  );
}
