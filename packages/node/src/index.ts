export { peerCertificateChain } from "./client-certificate.js";
export { createRequestListener, type RequestHandler, type RequestListener } from "./request-listener.js";
export { serve, type ServedServer, type ServeOptions, type ServeTLSOptions } from "./serve.js";
export { httpsClient, type HTTPSClientOptions } from "./https-client.js";
export { httpsFetch, type HTTPSFetch, type HTTPSFetchOptions } from "./https-fetch.js";
export { loadWebhookConfig, type LoadedWebhookConfig, type LoadWebhookConfigOptions } from "./webhook-client.js";
export { execCredentialSource, type ExecCredentialSourceOptions } from "./credentials/exec-plugin.js";
export { oidcCredentialSource, type OIDCCredentialSourceOptions } from "./credentials/oidc-provider.js";
export { tokenFileCredentialSource, type TokenFileCredentialSourceOptions } from "./client-config/token-file-source.js";
export { readPEM } from "./client-config/read-pem.js";
export { clientConfigPaths, loadClientConfig, type LoadClientConfigOptions, type LoadedClientConfig } from "./client-config/load-client-config.js";
export { inClusterConfig, serviceAccountDirectories, type InClusterConfigOptions } from "./client-config/in-cluster-config.js";
export {
  clientFromConfig,
  transportFromConfig,
  type ClientFromConfigOptions,
  type ConfiguredClient,
  type ConfiguredTransport,
  type CredentialSourceFor,
  type TransportFromConfigOptions,
} from "./client-config/client-from-config.js";
export { persistAuthProviderConfig } from "./client-config/persist-auth-provider-config.js";
export { prometheusMetrics, type PrometheusMetrics, type PrometheusMetricsOptions } from "./prometheus-metrics.js";
