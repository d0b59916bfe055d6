export {
  planRead,
  type AnyPlan,
  type ContinueLatestPlan,
  type ContinuePlan,
  type ExactPlan,
  type GetPlan,
  type ListPlan,
  type MostRecentPlan,
  type NotOlderThanPlan,
  type PlanReadOptions,
  type ReadParams,
  type ReadPlan,
  type ReadVerb,
  type StartAnyPlan,
  type StartExactPlan,
  type StartMostRecentPlan,
  type WatchPlan,
} from "./read-plan.js";
export { decodeContinueToken, encodeContinueToken, type ContinueToken, type ContinueTokenOptions } from "./continue-token.js";
export { expiredListMessage, inconsistentContinueMessage, listChunk, type ListChunk, type ListChunkOptions } from "./list-chunk.js";
export { readOne, type ReadOneOptions } from "./read-one.js";
export { defaultBookmarkIntervalMs, openWatch, type OpenWatchOptions, type WatchStreamEvent } from "./watch-stream.js";
export { hasCachedReads, WatchCache, type CachedReads, type WatchCacheOptions } from "./watch-cache.js";
