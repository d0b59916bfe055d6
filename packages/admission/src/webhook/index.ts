/**
 * The dynamic admission webhook plugins: MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook. Their webhooks come from the MutatingWebhookConfiguration and
 * ValidatingWebhookConfiguration objects (a watch-kept view, compiled again only when it
 * changes); their configuration gives the credentials presented to each webhook host; they call
 * webhooks through the context's transport.
 * @module
 */
import { operations } from "../attributes.js";
import type { AdmissionPlugin, PluginContext, PluginFactory } from "../plugin.js";
import type { CallContext } from "./call.js";
import { webhookPoster } from "./caller.js";
import { webhookCredentials } from "./credentials.js";
import { admitWithWebhooks, mutatingWebhookPluginName } from "./mutating.js";
import { validateWithWebhooks } from "./validating.js";
import { webhookSource, type WebhookSource } from "./webhooks.js";

export { webhookCredentials, type WebhookCredential, type WebhookCredentials, type WebhookCredentialsConfiguration } from "./credentials.js";

interface Parts {
  source: WebhookSource;
  context: CallContext;
}

function parts(ctx: PluginContext, plugin: string, resource: string): Parts {
  const domain = ctx.services.domain;
  const credentials = webhookCredentials(plugin, ctx.configuration, domain, ctx.readFile?.bind(ctx));
  const context: CallContext = { domain, post: webhookPoster(ctx.transport, credentials) };
  const observe = ctx.services.observeWebhook?.bind(ctx.services);
  if (observe) context.observe = observe;
  return { source: webhookSource(ctx.services, resource), context };
}

/**
 * MutatingAdmissionWebhook: calls the matching webhooks of the MutatingWebhookConfigurations in
 * order (configurations by name), applying each one's JSON patch before the next is called, and
 * calls `reinvocationPolicy: IfNeeded` webhooks once more when a later change touched the object.
 * Its configuration is a WebhookAdmissionConfiguration (`kubeConfigFile`, read with
 * `ctx.readFile`) or `{ credentials: [...] }`.
 * @throws Error at construction for a configuration it cannot use.
 */
export const mutatingAdmissionWebhook: PluginFactory = (ctx): AdmissionPlugin => {
  const { source, context } = parts(ctx, mutatingWebhookPluginName, "mutatingwebhookconfigurations");
  return {
    name: mutatingWebhookPluginName,
    operations,
    // Without webhooks (the common case) the step answers at once, so the chain need not await it.
    admit: (attrs) => (source.webhooks().length === 0 ? undefined : admitWithWebhooks(source, ctx.services, context, attrs)),
    ready: () => source.ready(),
  };
};

/**
 * ValidatingAdmissionWebhook: calls the matching webhooks of the ValidatingWebhookConfigurations
 * in parallel; the first refusal in webhook order is the answer. Configured as
 * {@link mutatingAdmissionWebhook}.
 * @throws Error at construction for a configuration it cannot use.
 */
export const validatingAdmissionWebhook: PluginFactory = (ctx): AdmissionPlugin => {
  const { source, context } = parts(ctx, "ValidatingAdmissionWebhook", "validatingwebhookconfigurations");
  return {
    name: "ValidatingAdmissionWebhook",
    operations,
    validate: (attrs) => (source.webhooks().length === 0 ? undefined : validateWithWebhooks(source, ctx.services, context, attrs)),
    ready: () => source.ready(),
  };
};
