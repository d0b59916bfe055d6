/**
 * `@orch/store-etcd/testing`: a real etcd for tests (Debian's `etcd-server`), single member or
 * a cluster on loopback ports.
 * @module
 */
export {
  etcdBinary,
  requireEtcd,
  startEtcd,
  startEtcdCluster,
  type EtcdCluster,
  type EtcdMember,
  type EtcdStartOptions,
} from "./etcd-server.js";
