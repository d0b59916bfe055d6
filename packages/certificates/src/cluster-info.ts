/**
 * The signed `cluster-info` ConfigMap (the reference's signed cluster-info config map): the client
 * configuration a joining node reads without credentials from `<short>-public`, and the
 * detached JWS per bootstrap token that lets it trust the configuration (the reference's
 * bootstrap signer and `cluster-bootstrap/token/jws`).
 * @module
 */
import { parseBootstrapToken } from "@orch/authn";
import { CompactSign, compactVerify, base64url } from "jose";
import { base64OfText } from "./internal/base64.js";

/** The name of the ConfigMap: `cluster-info`. */
export const clusterInfoName = "cluster-info";
/** The key of the client configuration in the ConfigMap: `kubeconfig`. */
export const clusterInfoKubeconfigKey = "kubeconfig";
/** The prefix of the signature keys in the ConfigMap: `jws-kubeconfig-<token id>`. */
export const clusterInfoSignaturePrefix = "jws-kubeconfig-";

/** What {@link clusterInfoKubeconfig} writes. */
export interface ClusterInfo {
  /** The API server's URL, `https://host:port`. */
  server: string;
  /** The cluster CA bundle, PEM. */
  caPem: string;
}

/** A YAML scalar: plain when nothing in it needs quoting, JSON-quoted (valid YAML) otherwise. */
function scalar(text: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9+/=:._@%~-]*$/.test(text) && !text.includes(": ") ? text : JSON.stringify(text);
}

/**
 * The `kubeconfig` of `cluster-info`: a client configuration with one unnamed cluster holding
 * `server` and `certificate-authority-data` (base64 of the PEM), written as the reference's
 * `clientcmd` writes kubeadm's (keys sorted, empty sections `null`).
 */
export function clusterInfoKubeconfig(info: ClusterInfo): string {
  const caData = base64OfText(info.caPem);
  return [
    "apiVersion: v1",
    "clusters:",
    "- cluster:",
    `    certificate-authority-data: ${scalar(caData)}`,
    `    server: ${scalar(info.server)}`,
    '  name: ""',
    "contexts: null",
    'current-context: ""',
    "kind: Config",
    "preferences: {}",
    "users: null",
    "",
  ].join("\n");
}

/** The key of a token's signatures: the whole token's UTF-8 bytes. */
function keyOf(token: string): Uint8Array {
  return new TextEncoder().encode(token);
}

/** The id of `token`. @throws Error when it is not a bootstrap token. */
function tokenId(token: string): string {
  const parsed = parseBootstrapToken(token);
  if (!parsed) throw new Error("the token must match [a-z0-9]{6}.[a-z0-9]{16}");
  return parsed.id;
}

/**
 * The detached JWS of `kubeconfig` for `token`, `<header>..<signature>`: HS256 over the
 * payload with the whole token (`<id>.<secret>`) as the key, as the reference signs it, and the
 * token's id as `kid` in the protected header. Goes under key `jws-kubeconfig-<id>`.
 * @throws Error when `token` is not a bootstrap token.
 */
export async function signClusterInfo(kubeconfig: string, token: string): Promise<string> {
  const kid = tokenId(token);
  const jws = await new CompactSign(new TextEncoder().encode(kubeconfig)).setProtectedHeader({ alg: "HS256", kid }).sign(keyOf(token));
  const [header, , signature] = jws.split(".");
  return `${header}..${signature}`;
}

/**
 * Whether `jws` is a valid detached signature of `kubeconfig` for `token`: the payload,
 * base64url-encoded without padding, is put between the two periods and verified with HS256
 * (no other algorithm is accepted) and the whole token as the key; a `kid` in the header must
 * be the token's id. Never throws: anything malformed is `false`.
 */
export async function verifyClusterInfo(kubeconfig: string, jws: string, token: string): Promise<boolean> {
  const parsed = parseBootstrapToken(token);
  const parts = jws.split(".");
  if (!parsed || parts.length !== 3 || parts[1] !== "") return false;
  const full = `${parts[0]}.${base64url.encode(kubeconfig)}.${parts[2]}`;
  try {
    const { protectedHeader } = await compactVerify(full, keyOf(token), { algorithms: ["HS256"] });
    return protectedHeader.kid === undefined || protectedHeader.kid === parsed.id;
  } catch {
    return false;
  }
}
