/**
 * `@orch/store-etcd/testing`: a real etcd for tests (Debian's `etcd-server`), single member or
 * a cluster on loopback ports, over plain http or TLS.
 * @module
 */
export {
  etcdBinary,
  requireEtcd,
  startEtcd,
  startEtcdCluster,
  type EtcdCluster,
  type EtcdMember,
  type EtcdServerTLS,
  type EtcdStartOptions,
} from "./etcd-server.js";
