/**
 * The entries of a client configuration file (a kubeconfig: `apiVersion: v1`, `kind: Config`)
 * as {@link parseClientConfig} reads them and {@link mergeClientConfigs} merges them: each field
 * as the file writes it (paths already resolved against the file's directory, `*-data` decoded),
 * not yet checked for consistency; {@link resolveClientConfig} does that for the selected context.
 * @module
 */

/** An `extensions` item of a cluster: a name and whatever object the file holds. */
export interface NamedExtension {
  /** The extension's name, e.g. `client.authentication.k8s.io/exec`. */
  name: string;
  /** Its value, as parsed (usually a mapping with `apiVersion` and `kind`). */
  extension: unknown;
}

/** What every entry carries: its name and the file it came from. */
export interface EntryOrigin {
  /** The entry's name in its list. */
  name: string;
  /** The configuration file that defined it (the path the caller gave). */
  source: string;
}

/** A `clusters` entry: how to reach and trust one API server. */
export interface ClusterEntry extends EntryOrigin {
  /** `server`: the API server's URL. */
  server?: string;
  /** `certificate-authority`: a CA file, resolved against the entry's file's directory. */
  certificateAuthority?: string;
  /** `certificate-authority-data`, decoded: the CA bundle, PEM. */
  certificateAuthorityData?: string;
  /** `insecure-skip-tls-verify`: do not verify the server's certificate. */
  insecureSkipTLSVerify: boolean;
  /** `tls-server-name`: the name the server's certificate must carry. */
  tlsServerName?: string;
  /** `proxy-url`: the proxy requests go through. */
  proxyURL?: string;
  /** `extensions`. */
  extensions: NamedExtension[];
}

/** The `exec` entry of a user as written; {@link resolveClientConfig} checks it into an `ExecConfig`. */
export interface ExecEntry {
  /** `command`; a relative path with a `/` is resolved against the entry's file's directory. */
  command?: string;
  /** `args`. */
  args: string[];
  /** `env`: name/value pairs (a missing name is an empty string, refused at resolution). */
  env: { name: string; value: string }[];
  /** `apiVersion` of the ExecCredential the plugin prints. */
  apiVersion?: string;
  /** `installHint`. */
  installHint?: string;
  /** `provideClusterInfo`. */
  provideClusterInfo: boolean;
  /** `interactiveMode` as written (checked at resolution). */
  interactiveMode?: string;
}

/** A `users` entry: the credentials of one identity. */
export interface UserEntry extends EntryOrigin {
  /** `token`: a bearer token. */
  token?: string;
  /** `tokenFile`: a file holding the bearer token, resolved against the entry's file's directory. */
  tokenFile?: string;
  /** `username` of basic authentication. */
  username?: string;
  /** `password` of basic authentication. */
  password?: string;
  /** `client-certificate`: a PEM file, resolved. */
  clientCertificate?: string;
  /** `client-certificate-data`, decoded PEM. */
  clientCertificateData?: string;
  /** `client-key`: a PEM file, resolved. */
  clientKey?: string;
  /** `client-key-data`, decoded PEM. */
  clientKeyData?: string;
  /** `exec`: a credential plugin. */
  exec?: ExecEntry;
  /** `auth-provider`: `name` and its `config` strings. */
  authProvider?: { name: string; config: Record<string, string> };
}

/** A `contexts` entry: a cluster, a user and a default namespace. */
export interface ContextEntry extends EntryOrigin {
  /** `cluster`: the name of a cluster entry. */
  cluster?: string;
  /** `user`: the name of a user entry; absent for anonymous requests. */
  user?: string;
  /** `namespace`: the namespace requests default to. */
  namespace?: string;
}

/**
 * One configuration file, or several merged: named entries (one per name) and the
 * `current-context`, each remembering its file.
 */
export interface ClientConfig {
  /** The files read, in precedence order (the first wins). */
  files: readonly string[];
  /** Clusters by name. */
  clusters: ReadonlyMap<string, ClusterEntry>;
  /** Users by name. */
  users: ReadonlyMap<string, UserEntry>;
  /** Contexts by name. */
  contexts: ReadonlyMap<string, ContextEntry>;
  /** `current-context` and the file that set it. */
  currentContext?: { name: string; source: string };
}
