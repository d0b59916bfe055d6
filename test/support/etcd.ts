/**
 * The etcd harness of the cross-package tests: Debian's `etcd` (package `etcd-server`) as a single
 * member or a 3-member cluster on free loopback ports, in temp data dirs, stopped and removed
 * after. It lives in `@orch/store-etcd/testing` so the package's own tests use the same one; a
 * missing etcd fails the tests with the command that installs it, never skips them.
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
} from "@orch/store-etcd/testing";
