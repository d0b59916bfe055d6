export type { Entry, GetOptions, ListOptions, ListResult, Store, StoreEvent, StoreEventType } from "./store.js";
export { systemClock, type Clock } from "./clock.js";
export { FakeClock } from "./fake-clock.js";
export { MemoryStore, type MemoryStoreOptions } from "./memory-store.js";
export { keyResource, type KeyResource } from "./key-resource.js";
export { deepFreeze } from "./deep-freeze.js";
export { Group, Watcher, WatchHub } from "./internal/watcher.js";
