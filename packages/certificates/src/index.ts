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
export {
  bootstrapTokenNamespace,
  bootstrapTokenSecret,
  bootstrapTokenSecretName,
  bootstrapTokenSecretType,
  generateBootstrapToken,
  signingToken,
  validateBootstrapTokenSecret,
  type BootstrapTokenSecretOptions,
} from "./bootstrap-token.js";
export { isBootstrapTokenExpired, parseBootstrapToken, type BootstrapToken } from "@orch/authn";
export {
  clusterInfoKubeconfig,
  clusterInfoKubeconfigKey,
  clusterInfoName,
  clusterInfoSignaturePrefix,
  signClusterInfo,
  verifyClusterInfo,
  type ClusterInfo,
} from "./cluster-info.js";
