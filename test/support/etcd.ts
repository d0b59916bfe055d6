/**
 * The etcd harness of the cross-package tests: Debian's `etcd` (package `etcd-server`) as a single
 * member or a 3-member cluster on free loopback ports (or chosen client ports), in temp data dirs,
 * over plain http or TLS, stopped and removed after. It lives in `@orch/store-etcd/testing` so the
 * package's own tests use the same one; a missing etcd fails the tests with the command that
 * installs it, never skips them.
 *
 * {@link createEtcdPKI} makes the certificates for etcd over TLS with the CA code of
 * `orch-apiserver` (`@orch/cli`), which the store package cannot import.
 * @module
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCertificateAuthority, type IssuedCertificate } from "@orch/cli";
import type { EtcdServerTLS } from "@orch/store-etcd/testing";

export {
  etcdBinary,
  requireEtcd,
  startEtcd,
  startEtcdCluster,
  type EtcdCluster,
  type EtcdMember,
  type EtcdServerTLS,
  type EtcdStartOptions,
} from "@orch/store-etcd/testing";

/** Certificates for etcd over TLS, as PEM and as files (for `--etcd-*file` flags). */
export interface EtcdPKI {
  /** The CA that signed the serving and the client certificate (PEM). */
  readonly ca: string;
  /** etcd's serving certificate: SAN IP `127.0.0.1` and DNS `localhost`, for server and client auth (etcd's gateway dials with it). */
  readonly server: IssuedCertificate;
  /** A client certificate (CN `orch-apiserver`) that etcd's `--client-cert-auth` accepts. */
  readonly client: IssuedCertificate;
  /** A CA that signed nothing here: the wrong `--etcd-cafile`. */
  readonly otherCA: string;
  /** The PEM above as files in a temp dir. */
  readonly files: { readonly ca: string; readonly clientCert: string; readonly clientKey: string; readonly otherCA: string };
  /** The `tls` option of `startEtcd`: this serving certificate, and client certificates required when `clientCertAuth`. */
  serverTLS(clientCertAuth: boolean): EtcdServerTLS;
  /** Removes the files. */
  remove(): Promise<void>;
}

/** Generates a CA, etcd's serving certificate, a client certificate and an unrelated CA, and writes them to a temp dir. */
export async function createEtcdPKI(): Promise<EtcdPKI> {
  const [ca, other] = await Promise.all([createCertificateAuthority(), createCertificateAuthority()]);
  const [server, client] = await Promise.all([
    ca.issue({ subject: "CN=etcd", dns: ["localhost"], ips: ["127.0.0.1"], usage: "server-and-client" }),
    ca.issue({ subject: "CN=orch-apiserver", usage: "client" }),
  ]);
  const dir = await mkdtemp(join(tmpdir(), "orch-etcd-pki-"));
  const files = { ca: join(dir, "ca.crt"), clientCert: join(dir, "client.crt"), clientKey: join(dir, "client.key"), otherCA: join(dir, "other-ca.crt") };
  await Promise.all([
    writeFile(files.ca, ca.certPem),
    writeFile(files.clientCert, client.certPem),
    writeFile(files.clientKey, client.keyPem, { mode: 0o600 }),
    writeFile(files.otherCA, other.certPem),
  ]);
  return {
    ca: ca.certPem,
    server,
    client,
    otherCA: other.certPem,
    files,
    serverTLS: (clientCertAuth) => ({ cert: server.certPem, key: server.keyPem, ...(clientCertAuth ? { clientCA: ca.certPem } : {}) }),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
