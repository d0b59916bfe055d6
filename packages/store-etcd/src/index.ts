/**
 * `@orch/store-etcd`: the orch `Store` port over etcd v3.
 * @module
 */
export { EtcdStore, type EtcdStoreOptions, type EtcdTLSOptions } from "./etcd-store.js";
