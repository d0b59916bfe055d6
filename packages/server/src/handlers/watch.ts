/**
 * WATCH of a collection (or of one object, by name): a stream of newline-delimited events
 * through `@orch/list`, with bookmarks on request, a timeout (`timeoutSeconds`, else a random
 * duration from the server's minimum request timeout to twice that, 30 to 60 minutes by
 * default), plain events written from each entry's cached JSON, or Table events.
 * @module
 */
import type { APIObject, WatchEvent } from "@orch/meta";
import { openWatch, planRead, type WatchStreamEvent } from "@orch/list";
import type { APIResponse } from "../api-request.js";
import { addWarnings } from "../responses.js";
import { collectionPrefix, presentJSON, presentObject, wireObject } from "../served-resource.js";
import { tableOf, type ResourceCall } from "./handler-context.js";
import { isTrue, parseNonNegativeInt, readParams, selection } from "./request-options.js";

/** The server's minimum request timeout when it sets none (`--min-request-timeout`): 30 minutes. */
export const defaultMinRequestTimeoutSeconds = 1800;

/**
 * Timeout of a watch that gives no `timeoutSeconds`: a random duration from the minimum request
 * timeout up to twice that, as the reference spreads reconnects.
 */
function defaultWatchTimeoutMs(minRequestTimeoutSeconds: number): number {
  return Math.floor(minRequestTimeoutSeconds * 1000 * (1 + Math.random()));
}

/**
 * Serves `watch`: the response streams until the timeout, the request's abort signal, or the
 * end of the store's watch (then an ERROR event).
 * @throws StatusError 400 for bad read parameters or selectors, 410 for a resourceVersion too old.
 */
export async function watch(call: ResourceCall): Promise<APIResponse> {
  const { ctx, served, info, query, negotiated } = call;
  const plan = planRead("watch", readParams(query), { domain: ctx.domain });
  let predicate = selection(served, query).predicate;
  if (info.name) {
    // A watch on one object: `/.../configmaps/<name>?watch=1` (the older form) or a name selector.
    const name = info.name;
    const inner = predicate;
    predicate = (entry) => wireObject(entry).metadata.name === name && (inner ? inner(entry) : true);
  }
  const timeoutSeconds = parseNonNegativeInt(query, "timeoutSeconds");
  const controller = new AbortController();
  const signal = call.request.signal ? AbortSignal.any([call.request.signal, controller.signal]) : controller.signal;
  const events = openWatch(ctx.store, collectionPrefix(served, call.namespace), plan, {
    ...(predicate ? { predicate } : {}),
    allowBookmarks: isTrue(query.get("allowWatchBookmarks")),
    timeoutMs:
      timeoutSeconds !== undefined && timeoutSeconds > 0
        ? timeoutSeconds * 1000
        : defaultWatchTimeoutMs(ctx.minRequestTimeoutSeconds ?? defaultMinRequestTimeoutSeconds),
    clock: ctx.clock,
    signal,
  });
  const table = negotiated.representation === "table";
  const render = (event: WatchStreamEvent): WatchEvent => {
    switch (event.type) {
      case "ERROR":
        return { type: "ERROR", object: event.status };
      case "BOOKMARK":
        return { type: "BOOKMARK", object: { kind: served.type.kind, apiVersion: served.apiVersion, metadata: { resourceVersion: String(event.revision) } } };
      default: {
        const object = presentObject(served, wireObject(event.entry));
        if (!table) return { type: event.type, object };
        return { type: event.type, object: tableOf(call, [object], { resourceVersion: object.metadata.resourceVersion ?? "" }) as unknown as APIObject };
      }
    }
  };
  async function* stream(): AsyncGenerator<string> {
    try {
      for await (const event of events) {
        if (!table && event.type !== "ERROR" && event.type !== "BOOKMARK") yield `{"type":"${event.type}","object":${presentJSON(served, event.entry)}}\n`;
        else yield `${JSON.stringify(render(event))}\n`;
      }
    } finally {
      controller.abort();
    }
  }
  const headers = new Headers({ "Content-Type": table ? negotiated.contentType : "application/json", "Cache-Control": "no-cache, private" });
  addWarnings(headers, []);
  return { status: 200, headers, stream: stream() };
}
