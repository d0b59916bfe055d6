export { peerCertificateChain } from "./client-certificate.js";
export { createRequestListener, type RequestHandler, type RequestListener } from "./request-listener.js";
export { serve, type ServedServer, type ServeOptions, type ServeTLSOptions } from "./serve.js";
export { httpsClient, type HTTPSClientOptions } from "./https-client.js";
export { httpsFetch } from "./https-fetch.js";
export { loadWebhookConfig, type LoadedWebhookConfig, type LoadWebhookConfigOptions } from "./webhook-client.js";
