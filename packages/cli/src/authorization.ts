/**
 * Turns the authorization flags into the `authorization` option of an `APIServer`: the modes in
 * order, with the SubjectAccessReview webhook built from its configuration file.
 * @module
 */
import { webhookAuthorizer, type Authorizer } from "@orch/authz";
import { loadWebhookConfig } from "@orch/node";
import type { AuthorizationMode } from "@orch/server";
import type { AuthorizationFlags } from "./authorization-flags.js";

/**
 * The `authorization` option for `flags`: each built-in mode by name, `Webhook` as the webhook
 * authorizer over the configuration file's server and TLS.
 * @throws Error naming the flag when the webhook configuration cannot be read or parsed.
 */
export async function loadAuthorization(
  flags: AuthorizationFlags,
  options: { domain: string; log: (message: string) => void },
): Promise<(AuthorizationMode | Authorizer)[]> {
  const modes: (AuthorizationMode | Authorizer)[] = [];
  for (const mode of flags.modes) {
    if (mode !== "Webhook") {
      modes.push(mode);
      continue;
    }
    const webhook = flags.webhook;
    if (!webhook) throw new Error("--authorization-mode Webhook needs --authorization-webhook-config-file");
    let config;
    try {
      config = await loadWebhookConfig(webhook.configFile);
    } catch (error) {
      throw new Error(`--authorization-webhook-config-file: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    modes.push(
      webhookAuthorizer({
        server: config.server,
        http: config.http,
        domain: options.domain,
        version: webhook.version,
        authorizedTTLMs: webhook.authorizedTTLMs,
        unauthorizedTTLMs: webhook.unauthorizedTTLMs,
        log: options.log,
        ...(config.bearerToken !== undefined ? { bearerToken: config.bearerToken } : {}),
      }),
    );
  }
  return modes;
}
