/**
 * Turns the authentication flags into the authenticators and options of an `APIServer`: reads
 * the CA bundles, token file, keys and webhook configuration the flags name. A file that cannot
 * be read or parsed stops the start with a message naming it.
 * @module
 */
import { readFile } from "node:fs/promises";
import {
  oidcAuthenticator,
  parseTokenFile,
  publicKeysFromPEM,
  requestHeaderAuthenticator,
  tokenWebhookAuthenticator,
  x509Authenticator,
  type Authenticator,
  type TokenAuthenticator,
} from "@orch/authn";
import { httpsClient, loadWebhookConfig } from "@orch/node";
import type { AuthenticationFlags } from "./authentication-flags.js";
import { importServiceAccountKey } from "./service-account-key.js";

/** What {@link loadAuthentication} gives the server and the TLS listener. */
export interface LoadedAuthentication {
  /** The authenticators, in the reference's order: proxy, client certificates, then tokens. */
  authenticators: (Authenticator | TokenAuthenticator)[];
  /** The CA bundle the TLS listener names to clients: the client CA and the proxy's CA. */
  tlsClientCA: string;
  /** Keys from `--service-account-key-file` that verify service-account tokens. */
  verificationKeys: CryptoKey[];
  /** The private key that signs service-account tokens, when the flags name one. */
  signingKey?: CryptoKey;
}

async function read(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new Error(`--${flag} ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function named<T>(flag: string, file: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw new Error(`--${flag} ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * Reads what the authentication flags name and builds the authenticators. `generatedCA` (PEM)
 * is the client CA when `--client-ca-file` is not given, so the admin kubeconfig's certificate
 * authenticates. `log` receives the authenticators' log lines.
 * @throws Error naming the flag and file that could not be read or parsed.
 */
export async function loadAuthentication(
  flags: AuthenticationFlags,
  options: { generatedCA: string; domain: string; log: (message: string) => void },
): Promise<LoadedAuthentication> {
  const authenticators: (Authenticator | TokenAuthenticator)[] = [];
  const caBundles: string[] = [];
  const proxy = flags.requestHeader;
  if (proxy) {
    const clientCA = await read(proxy.clientCAFile, "requestheader-client-ca-file");
    caBundles.push(clientCA);
    authenticators.push(
      named("requestheader-client-ca-file", proxy.clientCAFile, () =>
        requestHeaderAuthenticator({
          clientCA,
          allowedNames: proxy.allowedNames,
          usernameHeaders: proxy.usernameHeaders,
          uidHeaders: proxy.uidHeaders,
          groupHeaders: proxy.groupHeaders,
          extraHeaderPrefixes: proxy.extraHeaderPrefixes,
        }),
      ),
    );
  }
  const clientCA = flags.clientCAFile === undefined ? options.generatedCA : await read(flags.clientCAFile, "client-ca-file");
  caBundles.unshift(clientCA);
  authenticators.push(named("client-ca-file", flags.clientCAFile ?? "(generated)", () => x509Authenticator({ clientCA })));
  if (flags.tokenAuthFile !== undefined) {
    const file = flags.tokenAuthFile;
    const text = await read(file, "token-auth-file");
    const tokens = named("token-auth-file", file, () => parseTokenFile(text));
    for (const warning of tokens.warnings) options.log(`--token-auth-file ${file}: ${warning}`);
    authenticators.push(tokens);
  }
  if (flags.oidc) {
    const oidc = flags.oidc;
    const ca = oidc.caFile === undefined ? undefined : await read(oidc.caFile, "oidc-ca-file");
    authenticators.push(
      oidcAuthenticator({
        issuerURL: oidc.issuerURL,
        clientID: oidc.clientID,
        usernameClaim: oidc.usernameClaim,
        ...(oidc.usernamePrefix !== undefined ? { usernamePrefix: oidc.usernamePrefix } : {}),
        ...(oidc.groupsClaim !== undefined ? { groupsClaim: oidc.groupsClaim } : {}),
        ...(oidc.groupsPrefix !== undefined ? { groupsPrefix: oidc.groupsPrefix } : {}),
        requiredClaims: oidc.requiredClaims,
        signingAlgorithms: oidc.signingAlgorithms,
        http: httpsClient(ca === undefined ? {} : { ca }),
        log: options.log,
      }),
    );
  }
  if (flags.tokenWebhook) {
    const webhook = flags.tokenWebhook;
    let config;
    try {
      config = await loadWebhookConfig(webhook.configFile);
    } catch (error) {
      throw new Error(`--authentication-token-webhook-config-file: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    authenticators.push(
      tokenWebhookAuthenticator({
        server: config.server,
        http: config.http,
        domain: options.domain,
        version: webhook.version,
        cacheTTLMs: webhook.cacheTTLMs,
        log: options.log,
        ...(config.bearerToken !== undefined ? { bearerToken: config.bearerToken } : {}),
      }),
    );
  }
  const verificationKeys: CryptoKey[] = [];
  let signingKey: CryptoKey | undefined;
  for (const file of flags.serviceAccountKeyFiles) {
    const pem = await read(file, "service-account-key-file");
    try {
      verificationKeys.push(...(await publicKeysFromPEM(pem)));
    } catch (error) {
      throw new Error(`--service-account-key-file ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    // Without a signing key file, the first private key among the key files signs (orch's
    // `--service-account-key-file` has always named the signing key).
    if (signingKey === undefined && flags.serviceAccountSigningKeyFile === undefined && /PRIVATE KEY-----/.test(pem)) {
      signingKey = await importServiceAccountKey(pem, file);
    }
  }
  if (flags.serviceAccountSigningKeyFile !== undefined) {
    const file = flags.serviceAccountSigningKeyFile;
    signingKey = await importServiceAccountKey(await read(file, "service-account-signing-key-file"), file);
  }
  const loaded: LoadedAuthentication = { authenticators, tlsClientCA: caBundles.join("\n"), verificationKeys };
  if (signingKey) loaded.signingKey = signingKey;
  return loaded;
}
