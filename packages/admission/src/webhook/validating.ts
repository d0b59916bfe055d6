/**
 * The ValidatingAdmissionWebhook dispatch: the matching webhooks are called in parallel on the
 * final object; the first refusal in webhook order (a denial, a dry-run refusal, or a failed
 * call under `failurePolicy: Fail`) is the answer.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import type { AdmissionServices } from "../services.js";
import { callWebhook, type CallContext } from "./call.js";
import { failedCallingWebhook, WebhookCallError } from "./errors.js";
import { isExemptFromWebhooks, namespaceLabelsOf, shouldCallHook, type Invocation } from "./matching.js";
import { resourceVersionOf, toVersion } from "./versioned.js";
import type { WebhookSource } from "./webhooks.js";

type Objects = { object: APIObject | undefined; oldObject: APIObject | undefined };

/** The objects of `attrs` in each version webhooks matched in, converted once per version. */
function objectsByVersion(attrs: AdmissionAttributes, domain: string): (version: string) => Objects {
  const cache = new Map<string, Objects>();
  return (name) => {
    let objects = cache.get(name);
    if (!objects) {
      const version = resourceVersionOf(attrs, name);
      const apiVersion = attrs.resource.group ? `${attrs.resource.group}/${name}` : name;
      const served = { apiVersion, domain };
      objects = { object: toVersion(attrs.object, version, served), oldObject: toVersion(attrs.oldObject, version, served) };
      cache.set(name, objects);
    }
    return objects;
  };
}

/**
 * The validating step of the plugin over `source`'s webhooks.
 * @throws StatusError the first refusal in webhook order.
 */
export async function validateWithWebhooks(
  source: WebhookSource,
  services: AdmissionServices,
  context: CallContext,
  attrs: AdmissionAttributes,
): Promise<void> {
  if (isExemptFromWebhooks(attrs, context.domain)) return;
  const hooks = source.webhooks();
  if (hooks.length === 0) return;
  const namespaceLabels = namespaceLabelsOf(attrs, services);
  const invocations: [number, Invocation][] = [];
  for (const [index, hook] of hooks.entries()) {
    const invocation = await shouldCallHook(hook, attrs, namespaceLabels);
    if (invocation) invocations.push([index, invocation]);
  }
  if (invocations.length === 0) return;
  const objects = objectsByVersion(attrs, context.domain);
  const refusals = await Promise.all(
    invocations.map(async ([index, invocation]): Promise<unknown> => {
      const hook = invocation.webhook;
      try {
        await callWebhook(context, invocation, attrs, objects(invocation.kind.version), false);
        return undefined;
      } catch (error) {
        if (!(error instanceof WebhookCallError)) return error;
        if (!hook.ignoreFailures) return failedCallingWebhook(error);
        services.log(`failed calling webhook ${JSON.stringify(hook.name)}, failing open: ${error.reason}`);
        attrs.auditAnnotations[`failed-open.validating.webhook.admission.${context.domain}/round_0_index_${index}`] = hook.name;
        return undefined;
      }
    }),
  );
  const first = refusals.find((r) => r !== undefined);
  if (first !== undefined) throw first;
}
