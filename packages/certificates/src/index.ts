export { builtInSignerNames, type BuiltInSignerNames } from "@orch/resources";
export { parseCertificateRequest, verifyCertificateRequest, type CertificateRequest } from "./certificate-request.js";
export { signerPolicy, signerRestrictionProblems, type SignerPolicy, type SubjectAltNameType } from "./signers.js";
export {
  certificateLifetimeMs,
  defaultClusterSigningDurationMs,
  signCertificate,
  signingBackdateMs,
  SigningError,
  type SignCertificateOptions,
  type SigningCA,
} from "./sign-certificate.js";
export { csrExpiry, decidedCSRExpirationMs, pendingCSRExpirationMs, type CSRExpiry } from "./csr-expiry.js";
export { bootstrapTokenSecret, generateBootstrapToken, signingToken, type BootstrapTokenSecretOptions } from "./bootstrap-token.js";
// The token Secret's format and rules live with the Secret kind, which validates with them; re-exported for callers of this package.
export {
  bootstrapTokenNamespace,
  bootstrapTokenSecretName,
  bootstrapTokenSecretType,
  isBootstrapTokenExpired,
  validateBootstrapTokenSecret,
} from "@orch/resources";
export { parseBootstrapToken, type BootstrapToken } from "@orch/authn";
export {
  clusterInfoKubeconfig,
  clusterInfoKubeconfigKey,
  clusterInfoName,
  clusterInfoSignaturePrefix,
  signClusterInfo,
  verifyClusterInfo,
  type ClusterInfo,
} from "./cluster-info.js";
