/**
 * The server's authentication: the union the pipeline's authentication stage runs, made of the
 * embedder's authenticators and the server's own token authenticators (service-account tokens
 * it signs, bootstrap tokens in its Secrets), and the token review that TokenReview answers with.
 * @module
 */
import {
  authenticateToken,
  AuthenticationError,
  bearerTokenAuthenticator,
  bootstrapTokenAuthenticator,
  serviceAccountTokenAuthenticator,
  unionAuthenticator,
  withAuthenticatedGroup,
  type Authenticator,
  type ObjectGetter,
  type TokenAuthenticator,
} from "@orch/authn";
import { bootstrapTokenNamespace, bootstrapTokenSecretType, serviceAccountClaimKey, type TokenReviewResult } from "@orch/resources";
import type { Clock } from "@orch/store";
import type { ServiceAccountTokenSigner } from "./service-account-tokens.js";

/** What {@link serverAuthentication} builds the server's authentication from. */
export interface ServerAuthenticationInput {
  /** The embedder's authenticators: request authenticators and token authenticators, in order. */
  authenticators: readonly (Authenticator | TokenAuthenticator)[];
  /** The product domain: it names the service-account claim, the system namespace, the Secret type. */
  domain: string;
  /** Signs the server's service-account tokens; its key verifies them. */
  signer: ServiceAccountTokenSigner;
  /** More keys that verify service-account tokens (`--service-account-key-file`). */
  verificationKeys: readonly CryptoKey[];
  /** Refuse tokens of service accounts that no longer exist (default true). */
  lookup: boolean;
  /** Accept bootstrap tokens. */
  bootstrapTokens: boolean;
  /** Reads the server's own objects. */
  getter: ObjectGetter;
  /** The server's clock. */
  clock: Clock;
  /** Receives authenticators' log lines. */
  log: (message: string) => void;
}

/** The server's authentication, as {@link serverAuthentication} builds it. */
export interface ServerAuthentication {
  /** The union of every authenticator, for the pipeline's authentication stage. */
  authenticator: Authenticator;
  /** The token authenticators a bearer token goes through, in order. */
  tokens: readonly TokenAuthenticator[];
  /** Reviews a token for a TokenReview, against `audiences` (the server's own when empty). */
  reviewToken(token: string, audiences: readonly string[]): Promise<TokenReviewResult>;
}

function isTokenAuthenticator(a: Authenticator | TokenAuthenticator): a is TokenAuthenticator {
  return typeof (a as Partial<TokenAuthenticator>).authenticateToken === "function";
}

/**
 * The server's authentication: the embedder's request authenticators in their order (an
 * authenticating proxy and client certificates, typically), then the bearer token through the
 * server's service-account and bootstrap token authenticators and the embedder's token
 * authenticators (static tokens, OIDC, the webhook), the union adding `system:authenticated`.
 */
export function serverAuthentication(input: ServerAuthenticationInput): ServerAuthentication {
  const requestAuthenticators = input.authenticators.filter((a): a is Authenticator => !isTokenAuthenticator(a));
  const embedderTokens = input.authenticators.filter(isTokenAuthenticator);
  const signer = input.signer;
  const serviceAccounts = serviceAccountTokenAuthenticator({
    issuers: [signer.issuer],
    keys: async () => {
      // The signer's own key verifies its tokens; a key it cannot show (not extractable) does not.
      const own = await signer.verificationKey().then(
        (k) => [k.key],
        () => [],
      );
      return [...own, ...input.verificationKeys];
    },
    audiences: signer.audiences,
    claimKey: serviceAccountClaimKey(input.domain),
    extraPrefix: `authentication.${serviceAccountClaimKey(input.domain)}/`,
    getter: input.getter,
    lookup: input.lookup,
    clock: input.clock,
  });
  const tokens: TokenAuthenticator[] = [serviceAccounts];
  if (input.bootstrapTokens) {
    tokens.push(
      bootstrapTokenAuthenticator({
        getter: input.getter,
        namespace: bootstrapTokenNamespace(input.domain),
        secretType: bootstrapTokenSecretType(input.domain),
        clock: input.clock,
        log: input.log,
      }),
    );
  }
  tokens.push(...embedderTokens);
  const authenticator = unionAuthenticator([...requestAuthenticators, bearerTokenAuthenticator(tokens, { audiences: signer.audiences })]);
  return {
    authenticator,
    tokens,
    async reviewToken(token, audiences) {
      const wanted = audiences.length > 0 ? audiences : signer.audiences;
      try {
        const result = await authenticateToken(tokens, token, wanted);
        if (!result) return { authenticated: false };
        const user = withAuthenticatedGroup(result.user);
        const answer: TokenReviewResult = {
          authenticated: true,
          user: {
            username: user.name,
            ...(user.uid ? { uid: user.uid } : {}),
            groups: [...user.groups],
            ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
          },
        };
        // An authenticator that knows no audiences (static tokens, OIDC, the webhook) vouches for
        // the server's own only, as the reference's audience-agnostic wrapper does.
        const valid = result.audiences ?? wanted.filter((a) => signer.audiences.includes(a));
        if (valid.length === 0) return { authenticated: false, error: "token audiences are invalid for the target audiences" };
        if (audiences.length > 0) answer.audiences = [...valid];
        return answer;
      } catch (error) {
        if (!(error instanceof AuthenticationError)) throw error;
        return { authenticated: false, error: error.message };
      }
    },
  };
}
