/**
 * `@orch/store-sqlite`: the orch `Store` port over an embedded SQLite file, durable on one machine.
 * @module
 */
export { SqliteStore, openSqliteStore, SQLITE_SCHEMA_VERSION, type SqliteStoreOptions } from "./sqlite-store.js";
