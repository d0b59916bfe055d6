/**
 * The `CredentialSource` port: where the credentials of a request come from (a static token, a
 * token file re-read when it changes, a credential plugin, an OIDC provider), and the shapes of
 * the `exec` and `auth-provider` entries of a client configuration file that configure the last
 * two.
 * @module
 */

/** A client certificate and its key, PEM. */
export interface ClientCertificate {
  /** The certificate (chain), PEM. */
  certificate: string;
  /** Its private key, PEM. */
  key: string;
}

/** What one request carries to prove who sends it; every field is optional and they combine. */
export interface Credentials {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sent as `Authorization: Basic ...` when there is no token. */
  basic?: { username: string; password: string };
  /** Presented in the TLS handshake; a different one needs a new connection. */
  clientCertificate?: ClientCertificate;
}

/**
 * Where credentials come from. The transport asks before every request (a source caches as its
 * rules say) and tells the source when the server answered 401 to what it carried.
 */
export interface CredentialSource {
  /**
   * The credentials for the next request. Concurrent calls share one refresh (one plugin run).
   * Rejects, with an error that names the configuration file, the user entry and the cause,
   * when no credentials can be had: the request is then not sent.
   */
  credentials(): Promise<Credentials>;
  /**
   * The server answered 401 to a request that carried `used`. Resolves true when the source
   * dropped them and fresh ones may differ: the transport then asks again and retries the
   * request once. Absent, or false, and the 401 is the answer.
   */
  unauthorized?(used: Credentials): Promise<boolean>;
}

/** A name/value pair of {@link ExecConfig.env}. */
export interface ExecEnvVar {
  /** The variable's name. */
  name: string;
  /** Its value. */
  value: string;
}

/** How a credential plugin may use standard input. */
export type ExecInteractiveMode = "Never" | "IfAvailable" | "Always";

/** The `exec` entry of a user in a client configuration file: a credential plugin. */
export interface ExecConfig {
  /** The executable; a relative path with a `/` is resolved against the configuration file's directory. */
  command: string;
  /** Arguments. */
  args: string[];
  /** Variables added to the plugin's environment. */
  env: ExecEnvVar[];
  /** `client.authentication.<domain>/v1` or `v1beta1`: the version of ExecCredential the plugin must print. */
  apiVersion: string;
  /** Shown when the executable is missing. */
  installHint?: string;
  /** Hand the cluster's server, CA and `client.authentication.<domain>/exec` extension to the plugin. */
  provideClusterInfo: boolean;
  /** Required in `v1`; `IfAvailable` in `v1beta1` when absent. */
  interactiveMode?: ExecInteractiveMode;
}

/** The `auth-provider` entry of a user in a client configuration file (`oidc` is the one supported). */
export interface AuthProviderConfig {
  /** The provider: `oidc`. */
  name: string;
  /** Its settings: `idp-issuer-url`, `client-id`, `client-secret`, `refresh-token`, `id-token`, `idp-certificate-authority`, `idp-certificate-authority-data`. */
  config: Record<string, string>;
}
