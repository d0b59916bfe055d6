/**
 * The width of a request in seats, as the reference's work estimator gives it: one seat for
 * most requests; for a LIST (and a WATCH that asks for its initial events) one seat per 100
 * objects the request will go through, at least one and at most the level's maximum. The number
 * of objects comes from the count of the resource's stored objects (all namespaces), the limit
 * and how the list is served: from the cache it goes through every stored object once; from
 * storage twice the page (no selector) or every stored object and the page (a selector narrows
 * what it keeps, not what it reads). A list that names one object (`metadata.name=` field
 * selector) goes through one. A resource whose count is not known yet is one seat wide, as the
 * reference's is (it may be served by another server).
 * @module
 */

/** The fewest seats a request occupies. */
export const minimumSeats = 1;

/** The most seats a LIST occupies, whatever its level (the reference's `maximumListSeatsLimit` when lists are costed by object count). */
export const maximumListSeats = 10;

/** How many objects a LIST goes through per seat it occupies. */
export const objectsPerSeat = 100;

/** The share of a level's seats one request may occupy at most (before the hand-size bound). */
const maxSeatsShare = 0.15;

/**
 * The most seats one request may occupy in a level of `concurrencyLimit` seats whose flows are
 * dealt `handSize` queues: `max(1, min(ceil(0.15 * limit), floor(limit / handSize)))`, so that
 * a wide request never takes more than a small part of its level; 0 (no bound of the level's
 * own) for a level without queues.
 */
export function levelMaxSeats(concurrencyLimit: number, handSize: number | undefined): number {
  if (handSize === undefined || handSize <= 0) return 0;
  return Math.max(1, Math.min(Math.ceil(concurrencyLimit * maxSeatsShare), Math.floor(concurrencyLimit / handSize)));
}

/** What the estimate reads of a request. */
export interface WorkDigest {
  /** The resource verb (`list`, `watch`, `get`...), or the lower-cased method of a non-resource request. */
  verb: string;
  /** True for a request on a resource (the estimate reads the rest only then). */
  isResourceRequest: boolean;
  /** The API group (`""` for core); resource requests only. */
  group?: string;
  /** The resource; resource requests only. */
  resource?: string;
  /** The name in the path (`""` for a collection). */
  name?: string;
  /** The query of the request (`limit`, `resourceVersion`, `resourceVersionMatch`, `continue`, selectors, `sendInitialEvents`). */
  query?: URLSearchParams;
}

/**
 * True when a list with `query` is served from the watch cache rather than read from storage:
 * everything but an exact resource version (`resourceVersionMatch=Exact`, or a `limit` with a
 * resource version other than `0` and no match) and a continue token, which read storage.
 */
export function listedFromCache(query: URLSearchParams): boolean {
  const resourceVersion = query.get("resourceVersion") ?? "";
  const match = query.get("resourceVersionMatch") ?? "";
  if (match === "Exact") return false;
  if (match === "NotOlderThan") return true;
  const limit = Number(query.get("limit") ?? "0");
  if (limit > 0 && resourceVersion !== "" && resourceVersion !== "0") return false;
  return (query.get("continue") ?? "") === "";
}

/** True when a field selector names one object by `metadata.name` (such a list reads as a get). */
function namesOne(query: URLSearchParams): boolean {
  const fieldSelector = query.get("fieldSelector") ?? "";
  return fieldSelector.split(",").some((term) => /^\s*metadata\.name\s*==?\s*[^\s=]/.test(term));
}

/**
 * How many objects `request` goes through: for a LIST (or a WATCH asking for its initial
 * events) of a resource of `objectCount` stored objects, as the module says; 0 for any other
 * request and for a resource whose count is not known.
 */
export function estimateObjects(request: WorkDigest, objectCount: number | undefined): number {
  if (!request.isResourceRequest || objectCount === undefined) return 0;
  const query = request.query ?? new URLSearchParams();
  if (request.verb === "watch") {
    if (query.get("sendInitialEvents") !== "true") return 0;
  } else if (request.verb !== "list") return 0;
  const limitParam = Number(query.get("limit") ?? "0");
  const page = Number.isFinite(limitParam) && limitParam > 0 && limitParam < objectCount ? limitParam : objectCount;
  if ((request.name ?? "") !== "" || namesOne(query)) return 1;
  if (request.verb === "watch" || listedFromCache(query)) return objectCount;
  if ((query.get("fieldSelector") ?? "") !== "" || (query.get("labelSelector") ?? "") !== "") return objectCount + page;
  return 2 * page;
}

/**
 * The seats a request that goes through `objects` objects ({@link estimateObjects}) occupies
 * while it executes: one per {@link objectsPerSeat}, at least {@link minimumSeats}, at most
 * `levelMax` ({@link levelMaxSeats}; 0 for none), itself bounded by {@link maximumListSeats}.
 * @example
 * seatsForObjects(503, 8) // 6
 */
export function seatsForObjects(objects: number, levelMax: number): number {
  const maxSeats = levelMax <= 0 || levelMax > maximumListSeats ? maximumListSeats : levelMax;
  return Math.min(maxSeats, Math.max(minimumSeats, Math.ceil(objects / objectsPerSeat)));
}

/** The seats `request` occupies while it executes: {@link seatsForObjects} the objects it goes through ({@link estimateObjects}). */
export function estimateSeats(request: WorkDigest, objectCount: number | undefined, levelMax: number): number {
  return seatsForObjects(estimateObjects(request, objectCount), levelMax);
}
