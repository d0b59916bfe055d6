export { adminUser, ensureCertificates, servingHosts, type CertificateSet, type EnsureCertificatesOptions } from "./certificates.js";
export { FlagError, parseDuration, parseFlags, usage, type Flags } from "./flags.js";
export { kubeconfig, writeKubeconfig, type KubeconfigInput } from "./kubeconfig.js";
export { main, runAPIServer, type Output, type RunOptions, type ServerLike } from "./main.js";
