/**
 * The authentication flags of `orch-apiserver`, as the reference names them: client
 * certificates, static and bootstrap tokens, service-account tokens, OpenID Connect, the token
 * webhook, the authenticating proxy and anonymous requests.
 * @module
 */

/** The parsed authentication flags (file paths as given; reading them is the start-up's job). */
export interface AuthenticationFlags {
  /** `--anonymous-auth` (true): requests with no credential are served as `system:anonymous`. */
  anonymous: boolean;
  /** `--client-ca-file`: CA bundle of client certificates; unset, the server's generated CA. */
  clientCAFile?: string;
  /** `--token-auth-file`: the static token CSV. */
  tokenAuthFile?: string;
  /** `--enable-bootstrap-token-auth` (false). */
  bootstrapTokenAuth: boolean;
  /** `--service-account-key-file` (repeatable): PEM keys that verify service-account tokens. */
  serviceAccountKeyFiles: string[];
  /** `--service-account-signing-key-file`: the PEM private key that signs them. */
  serviceAccountSigningKeyFile?: string;
  /** `--service-account-lookup` (true): tokens of deleted service accounts are refused. */
  serviceAccountLookup: boolean;
  /** `--api-audiences`: the audiences the server accepts tokens for; unset, the issuer. */
  apiAudiences?: string[];
  /** The `--oidc-*` flags, when `--oidc-issuer-url` is given. */
  oidc?: OIDCFlags;
  /** The token webhook flags, when `--authentication-token-webhook-config-file` is given. */
  tokenWebhook?: TokenWebhookFlags;
  /** The `--requestheader-*` flags, when `--requestheader-client-ca-file` is given. */
  requestHeader?: RequestHeaderFlags;
}

/** `--oidc-*`. */
export interface OIDCFlags {
  /** `--oidc-issuer-url` (https). */
  issuerURL: string;
  /** `--oidc-client-id`. */
  clientID: string;
  /** `--oidc-username-claim` (`sub`). */
  usernameClaim: string;
  /** `--oidc-username-prefix`. */
  usernamePrefix?: string;
  /** `--oidc-groups-claim`. */
  groupsClaim?: string;
  /** `--oidc-groups-prefix`. */
  groupsPrefix?: string;
  /** `--oidc-required-claim` (repeatable `key=value`). */
  requiredClaims: Record<string, string>;
  /** `--oidc-ca-file`. */
  caFile?: string;
  /** `--oidc-signing-algs` (`RS256`). */
  signingAlgorithms: string[];
}

/** `--authentication-token-webhook-*`. */
export interface TokenWebhookFlags {
  /** `--authentication-token-webhook-config-file`. */
  configFile: string;
  /** `--authentication-token-webhook-version` (`v1beta1`). */
  version: "v1" | "v1beta1";
  /** `--authentication-token-webhook-cache-ttl` in milliseconds (2m). */
  cacheTTLMs: number;
}

/** `--requestheader-*`. */
export interface RequestHeaderFlags {
  /** `--requestheader-client-ca-file`. */
  clientCAFile: string;
  /** `--requestheader-allowed-names`. */
  allowedNames: string[];
  /** `--requestheader-username-headers`. */
  usernameHeaders: string[];
  /** `--requestheader-uid-headers`. */
  uidHeaders: string[];
  /** `--requestheader-group-headers`. */
  groupHeaders: string[];
  /** `--requestheader-extra-headers-prefix`. */
  extraHeaderPrefixes: string[];
}

/** The `parseArgs` options of the authentication flags. */
export const authenticationOptions = {
  "anonymous-auth": { type: "boolean" },
  "client-ca-file": { type: "string" },
  "token-auth-file": { type: "string" },
  "enable-bootstrap-token-auth": { type: "boolean" },
  "service-account-key-file": { type: "string", multiple: true },
  "service-account-signing-key-file": { type: "string" },
  "service-account-lookup": { type: "boolean" },
  "api-audiences": { type: "string" },
  "oidc-issuer-url": { type: "string" },
  "oidc-client-id": { type: "string" },
  "oidc-username-claim": { type: "string" },
  "oidc-username-prefix": { type: "string" },
  "oidc-groups-claim": { type: "string" },
  "oidc-groups-prefix": { type: "string" },
  "oidc-required-claim": { type: "string", multiple: true },
  "oidc-ca-file": { type: "string" },
  "oidc-signing-algs": { type: "string" },
  "authentication-token-webhook-config-file": { type: "string" },
  "authentication-token-webhook-version": { type: "string" },
  "authentication-token-webhook-cache-ttl": { type: "string" },
  "requestheader-client-ca-file": { type: "string" },
  "requestheader-allowed-names": { type: "string" },
  "requestheader-username-headers": { type: "string" },
  "requestheader-uid-headers": { type: "string" },
  "requestheader-group-headers": { type: "string" },
  "requestheader-extra-headers-prefix": { type: "string" },
} as const;

/** The boolean authentication flags (for `--name=false`). */
export const authenticationBooleans = ["anonymous-auth", "enable-bootstrap-token-auth", "service-account-lookup"] as const;

/** The usage lines of the authentication flags. */
export const authenticationUsage = `
Authentication:
      --anonymous-auth                    serve requests with no credential as system:anonymous (default true)
      --client-ca-file string             CA bundle of client certificates (CN is the user, O the groups)
                                          (default: the server's generated CA)
      --token-auth-file string            static tokens: CSV of token,user,uid,"group1,group2"
      --enable-bootstrap-token-auth       accept bootstrap tokens (Secrets of type bootstrap.<domain>/token)
      --service-account-key-file strings  PEM keys (public or private, repeatable) that verify service account
                                          tokens; the first private key signs them when no signing key file is
                                          given (default: the key of the serving certificate)
      --service-account-signing-key-file string
                                          PEM private key (RSA or ECDSA) that signs service account tokens
      --service-account-lookup            refuse tokens of deleted service accounts (default true)
      --api-audiences strings             audiences tokens must be valid for (default: the issuer)
      --oidc-issuer-url string            https URL of the OpenID Connect issuer (enables OIDC tokens)
      --oidc-client-id string             client id every OIDC token must be issued for (its audience)
      --oidc-username-claim string        claim naming the user (default "sub")
      --oidc-username-prefix string       prefix of user names; "-" for none (default: "<issuer>#" unless the
                                          claim is email)
      --oidc-groups-claim string          claim listing the user's groups
      --oidc-groups-prefix string         prefix of group names
      --oidc-required-claim key=value     a claim every token must carry with that value (repeatable)
      --oidc-ca-file string               CA bundle that verifies the issuer (default: the system's roots)
      --oidc-signing-algs strings         accepted signing algorithms (default "RS256")
      --authentication-token-webhook-config-file string
                                          kubeconfig-format file of the token review webhook
      --authentication-token-webhook-version string
                                          TokenReview version sent to the webhook: v1beta1 or v1 (default "v1beta1")
      --authentication-token-webhook-cache-ttl duration
                                          how long webhook decisions are cached (default 2m0s)
      --requestheader-client-ca-file string
                                          CA bundle of the authenticating proxy's client certificate (enables
                                          the request-header authenticator)
      --requestheader-allowed-names strings
                                          common names the proxy's certificate may have (default: any)
      --requestheader-username-headers strings
                                          headers naming the user, first non-empty wins (e.g. X-Remote-User)
      --requestheader-uid-headers strings headers carrying the user's uid
      --requestheader-group-headers strings
                                          headers naming the user's groups (e.g. X-Remote-Group)
      --requestheader-extra-headers-prefix strings
                                          prefixes of headers carrying extra attributes (e.g. X-Remote-Extra-)
`;

/** A bad authentication flag: thrown as the command's `FlagError` by the caller. */
export type FlagFailure = (message: string) => never;

/** The entries of a comma-separated flag value, trimmed, empty ones left out. */
export function commaList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * Parses the authentication flags from `parseArgs` values. `explicitFalse` holds the booleans
 * given as `--name=false`; `duration` parses a Go duration to milliseconds.
 */
export function parseAuthenticationFlags(
  values: Record<string, string | boolean | string[] | boolean[] | undefined>,
  explicitFalse: ReadonlySet<string>,
  duration: (name: string, fallback: number) => number,
  fail: FlagFailure,
): AuthenticationFlags {
  const str = (name: string): string | undefined => {
    const v = values[name];
    if (v === "") fail(`invalid --${name}: empty`);
    return typeof v === "string" ? v : undefined;
  };
  const list = (name: string): string[] | undefined => {
    const v = str(name);
    return v === undefined ? undefined : commaList(v);
  };
  const flag = (name: string, fallback: boolean): boolean => (explicitFalse.has(name) ? false : values[name] === true ? true : fallback);
  const flags: AuthenticationFlags = {
    anonymous: flag("anonymous-auth", true),
    bootstrapTokenAuth: flag("enable-bootstrap-token-auth", false),
    serviceAccountKeyFiles: (values["service-account-key-file"] as string[] | undefined) ?? [],
    serviceAccountLookup: flag("service-account-lookup", true),
  };
  if (flags.serviceAccountKeyFiles.includes("")) fail("invalid --service-account-key-file: empty");
  const set = <K extends keyof AuthenticationFlags>(key: K, value: AuthenticationFlags[K] | undefined) => {
    if (value !== undefined) flags[key] = value;
  };
  set("clientCAFile", str("client-ca-file"));
  set("tokenAuthFile", str("token-auth-file"));
  set("serviceAccountSigningKeyFile", str("service-account-signing-key-file"));
  set("apiAudiences", list("api-audiences"));
  set("oidc", parseOIDC(str, list, values, fail));
  const webhookFile = str("authentication-token-webhook-config-file");
  const version = str("authentication-token-webhook-version") ?? "v1beta1";
  if (version !== "v1" && version !== "v1beta1") fail(`invalid --authentication-token-webhook-version "${version}": want v1beta1 or v1`);
  if (webhookFile !== undefined) {
    flags.tokenWebhook = { configFile: webhookFile, version, cacheTTLMs: duration("authentication-token-webhook-cache-ttl", 2 * 60_000) };
  } else {
    for (const name of ["authentication-token-webhook-version", "authentication-token-webhook-cache-ttl"]) {
      if (values[name] !== undefined) fail(`--${name} needs --authentication-token-webhook-config-file`);
    }
  }
  const proxyCA = str("requestheader-client-ca-file");
  const proxyFlags = [
    "requestheader-allowed-names",
    "requestheader-username-headers",
    "requestheader-uid-headers",
    "requestheader-group-headers",
    "requestheader-extra-headers-prefix",
  ];
  if (proxyCA !== undefined) {
    const usernameHeaders = list("requestheader-username-headers") ?? [];
    if (usernameHeaders.length === 0) fail("--requestheader-client-ca-file needs --requestheader-username-headers");
    flags.requestHeader = {
      clientCAFile: proxyCA,
      allowedNames: list("requestheader-allowed-names") ?? [],
      usernameHeaders,
      uidHeaders: list("requestheader-uid-headers") ?? [],
      groupHeaders: list("requestheader-group-headers") ?? [],
      extraHeaderPrefixes: list("requestheader-extra-headers-prefix") ?? [],
    };
  } else {
    const stray = proxyFlags.find((n) => values[n] !== undefined);
    if (stray) fail(`--${stray} needs --requestheader-client-ca-file`);
  }
  return flags;
}

function parseOIDC(
  str: (name: string) => string | undefined,
  list: (name: string) => string[] | undefined,
  values: Record<string, unknown>,
  fail: FlagFailure,
): OIDCFlags | undefined {
  const issuerURL = str("oidc-issuer-url");
  const names = Object.keys(authenticationOptions).filter((n) => n.startsWith("oidc-") && n !== "oidc-issuer-url");
  if (issuerURL === undefined) {
    const stray = names.find((n) => values[n] !== undefined);
    if (stray) fail(`--${stray} needs --oidc-issuer-url`);
    return undefined;
  }
  let url: URL | undefined;
  try {
    url = new URL(issuerURL);
  } catch {
    url = undefined;
  }
  if (!url || url.protocol !== "https:") fail(`invalid --oidc-issuer-url "${issuerURL}": want an https URL`);
  const clientID = str("oidc-client-id");
  if (clientID === undefined) fail("--oidc-issuer-url needs --oidc-client-id");
  const requiredClaims: Record<string, string> = {};
  for (const pair of (values["oidc-required-claim"] as string[] | undefined) ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) fail(`invalid --oidc-required-claim "${pair}": want key=value`);
    requiredClaims[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const oidc: OIDCFlags = {
    issuerURL,
    clientID,
    usernameClaim: str("oidc-username-claim") ?? "sub",
    requiredClaims,
    signingAlgorithms: list("oidc-signing-algs") ?? ["RS256"],
  };
  const usernamePrefix = str("oidc-username-prefix");
  if (usernamePrefix !== undefined) oidc.usernamePrefix = usernamePrefix;
  const groupsClaim = str("oidc-groups-claim");
  if (groupsClaim !== undefined) oidc.groupsClaim = groupsClaim;
  const groupsPrefix = str("oidc-groups-prefix");
  if (groupsPrefix !== undefined) oidc.groupsPrefix = groupsPrefix;
  const caFile = str("oidc-ca-file");
  if (caFile !== undefined) oidc.caFile = caFile;
  return oidc;
}
