/**
 * The MutatingAdmissionWebhook dispatch: matching webhooks called one after the other, each on
 * the object as the previous one's JSON patch left it, with the reference's reinvocation. A
 * webhook that changes the object asks for a second pass of the mutating plugins; in that pass
 * only the `reinvocationPolicy: IfNeeded` webhooks called before a later change (a later
 * webhook's patch, or a change by the in-tree plugins since this plugin's first pass) are
 * called again, once.
 * @module
 */
import { jsonEqual, type APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import type { AdmissionServices } from "../services.js";
import { callWebhook, type CallContext } from "./call.js";
import { failedCallingWebhook, patchWithoutObject, WebhookCallError } from "./errors.js";
import { isExemptFromWebhooks, namespaceLabelsOf, shouldCallHook, type Invocation } from "./matching.js";
import { applyJSONPatch, fromVersion, parseJSONPatch, patchedObjectProblem, resourceVersionOf, toVersion } from "./versioned.js";
import type { WebhookSource } from "./webhooks.js";

/** The name of the mutating webhook plugin (and the key of its reinvocation state). */
export const mutatingWebhookPluginName = "MutatingAdmissionWebhook";

/** What the plugin keeps across the two passes of one write (the reference's `webhookReinvokeContext`). */
export interface MutatingReinvocationState {
  /** The object as this plugin's last pass left it. */
  lastOutput: APIObject | undefined;
  /** `IfNeeded` webhooks called since the object last changed. */
  previouslyInvoked: Set<string>;
  /** `IfNeeded` webhooks to call again in the reinvocation pass. */
  reinvoke: Set<string>;
}

/** The reinvocation state of `attrs`, created on the first pass. */
export function reinvocationStateOf(attrs: AdmissionAttributes): MutatingReinvocationState {
  const found = attrs.reinvocation.data.get(mutatingWebhookPluginName) as MutatingReinvocationState | undefined;
  if (found) return found;
  const state: MutatingReinvocationState = { lastOutput: undefined, previouslyInvoked: new Set(), reinvoke: new Set() };
  attrs.reinvocation.data.set(mutatingWebhookPluginName, state);
  return state;
}

/** The object changed after the webhooks in `previouslyInvoked` saw it: they are due once more. */
function requireReinvoking(state: MutatingReinvocationState): void {
  for (const uid of state.previouslyInvoked) state.reinvoke.add(uid);
  state.previouslyInvoked.clear();
}

/**
 * Calls one mutating webhook and applies its patch to `attrs.object` (in the matched version,
 * then back in the storage version); true when the object changed.
 * @throws WebhookCallError for an unusable patch (not JSON, not `JSONPatch`, not applicable, or
 *   leaving the schema or changing the object's identity); StatusError as {@link callWebhook}.
 */
async function callMutating(context: CallContext, invocation: Invocation, attrs: AdmissionAttributes): Promise<boolean> {
  const name = invocation.webhook.name;
  const version = resourceVersionOf(attrs, invocation.kind.version);
  const { group, version: versionName } = invocation.kind;
  const apiVersion = group ? `${group}/${versionName}` : versionName;
  const served = { apiVersion, domain: context.domain };
  const object = toVersion(attrs.object, version, served);
  const answer = await callWebhook(context, invocation, attrs, { object, oldObject: toVersion(attrs.oldObject, version, served) }, true);
  if (answer.patch === undefined) return false;
  if (answer.patchType !== "JSONPatch") throw new WebhookCallError(name, `unsupported patch type ${JSON.stringify(answer.patchType)}`);
  let operations: unknown[];
  try {
    operations = parseJSONPatch(answer.patch);
  } catch (error) {
    throw new WebhookCallError(name, `received undecodable patch in webhook response: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (operations.length === 0) return false;
  if (!object) throw patchWithoutObject(name);
  let patched: APIObject;
  try {
    patched = applyJSONPatch(object, operations);
  } catch (error) {
    throw new WebhookCallError(name, error instanceof Error ? error.message : String(error), { cause: error });
  }
  const problem = patchedObjectProblem(object, patched, version);
  if (problem) throw new WebhookCallError(name, problem);
  if (jsonEqual(object, patched)) return false;
  attrs.object = fromVersion(patched, version);
  return true;
}

/** The audit annotations of one mutating call (the reference's `mutation.webhook.admission.<domain>/round_<r>_index_<i>`). */
function annotationKey(domain: string, prefix: string, round: number, index: number): string {
  return `${prefix}mutation.webhook.admission.${domain}/round_${round}_index_${index}`;
}

/**
 * The mutating step of the plugin over `source`'s webhooks.
 * @throws StatusError the first denial, dry-run refusal or (`failurePolicy: Fail`) 500 of a failed call.
 */
export async function admitWithWebhooks(source: WebhookSource, services: AdmissionServices, context: CallContext, attrs: AdmissionAttributes): Promise<void> {
  if (isExemptFromWebhooks(attrs, context.domain)) return;
  const hooks = source.webhooks();
  if (hooks.length === 0) return;
  const reinvocation = attrs.reinvocation;
  const state = reinvocationStateOf(attrs);
  const round = reinvocation.isReinvoke ? 1 : 0;
  if (reinvocation.isReinvoke && !jsonEqual(state.lastOutput, attrs.object)) requireReinvoking(state);
  try {
    const namespaceLabels = namespaceLabelsOf(attrs, services);
    for (const [index, hook] of hooks.entries()) {
      const invocation = await shouldCallHook(hook, attrs, namespaceLabels);
      // A reinvocation never calls a webhook for the first time.
      if (!invocation || (reinvocation.isReinvoke && !state.reinvoke.has(hook.uid))) continue;
      let changed = false;
      let failure: unknown;
      try {
        changed = await callMutating(context, invocation, attrs);
      } catch (error) {
        failure = error;
      }
      attrs.auditAnnotations[annotationKey(context.domain, "", round, index)] = JSON.stringify({
        configuration: hook.configuration,
        webhook: hook.name,
        mutated: changed,
      });
      if (changed) {
        requireReinvoking(state);
        reinvocation.shouldReinvoke = true;
      }
      if (hook.reinvokeIfNeeded) state.previouslyInvoked.add(hook.uid);
      if (failure === undefined) continue;
      if (!(failure instanceof WebhookCallError)) throw failure;
      if (!hook.ignoreFailures) throw failedCallingWebhook(failure);
      services.log(`failed calling webhook ${JSON.stringify(hook.name)}, failing open: ${failure.reason}`);
      attrs.auditAnnotations[annotationKey(context.domain, "failed-open.", round, index)] = hook.name;
    }
  } finally {
    state.lastOutput = attrs.object === undefined ? undefined : structuredClone(attrs.object);
  }
}
