export {
  adminUser,
  createCertificateAuthority,
  ensureCertificates,
  servingHosts,
  type CertificateAuthority,
  type CertificateRequest,
  type CertificateSet,
  type EnsureCertificatesOptions,
  type IssuedCertificate,
} from "./certificates.js";
export { FlagError, parseDuration, parseFlags, parseRuntimeConfig, usage, type Flags } from "./flags.js";
export { kubeconfig, writeKubeconfig, type KubeconfigInput } from "./kubeconfig.js";
export { main, runAPIServer, type Output, type RunOptions, type ServerLike } from "./main.js";
export { importServiceAccountKey } from "./service-account-key.js";
export { controllerManagerMain, runControllerManager, type ControllerManagerRunOptions } from "./controller-manager.js";
export { controllerManagerUsage, parseControllerManagerFlags, type ControllerManagerFlags } from "./controller-manager-flags.js";
export { controllersUsage, defaultClusterSigningDurationMs, parseControllersFlags, type ControllersFlags } from "./controllers-flags.js";
export { componentNames, loadClusterSigning, selectedControllers, type ComponentNames } from "./controllers.js";
export { publishClusterInfo } from "./cluster-info.js";
