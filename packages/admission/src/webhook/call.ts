/**
 * One call of one webhook, what both plugins share: the dry-run guard, the AdmissionReview in
 * the webhook's version, the POST, the checks of the answer, its warnings and audit
 * annotations, and a denial turned into the client's Status.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import type { AdmissionObservation } from "../chain.js";
import { admissionReviewRequest, UndecodablePatchError, verifyAdmissionReview, type AdmissionReviewAnswer } from "./admission-review.js";
import type { WebhookPost } from "./caller.js";
import { dryRunUnsupported, WebhookCallError, webhookDenial } from "./errors.js";
import type { Invocation } from "./matching.js";

/** What a call needs besides the invocation. */
export interface CallContext {
  /** The product domain (the AdmissionReview's group is `admission.<domain>`). */
  domain: string;
  /** POSTs a review and answers with the parsed body. */
  post: WebhookPost;
  /** Makes the request's uid (`crypto.randomUUID` by default). */
  uid?: () => string;
  /** Receives the duration of each call and whether the webhook refused (or failed). */
  observe?: (observation: AdmissionObservation) => void;
}

/**
 * Calls `invocation`'s webhook about `attrs` with the objects in the matched version, and
 * answers with its (allowing) answer; its warnings and audit annotations (`<webhook>/<key>`) are
 * added to `attrs` on the way.
 * @throws StatusError 400 for a dry-run request and a webhook with side effects (the webhook is
 *   not called), or the webhook's denial.
 * @throws WebhookCallError when the call fails or the answer is unusable (`failurePolicy` decides).
 */
export async function callWebhook(
  context: CallContext,
  invocation: Invocation,
  attrs: AdmissionAttributes,
  objects: { object: APIObject | undefined; oldObject: APIObject | undefined },
  mutating: boolean,
): Promise<AdmissionReviewAnswer> {
  const observe = context.observe;
  if (!observe) return callOnce(context, invocation, attrs, objects, mutating);
  const started = performance.now();
  const report = (rejected: boolean) =>
    observe({
      kind: "webhook",
      name: invocation.webhook.name,
      type: mutating ? "admit" : "validate",
      operation: attrs.operation,
      rejected,
      seconds: Math.max(0, performance.now() - started) / 1000,
    });
  try {
    const answer = await callOnce(context, invocation, attrs, objects, mutating);
    report(false);
    return answer;
  } catch (error) {
    report(true);
    throw error;
  }
}

async function callOnce(
  context: CallContext,
  invocation: Invocation,
  attrs: AdmissionAttributes,
  objects: { object: APIObject | undefined; oldObject: APIObject | undefined },
  mutating: boolean,
): Promise<AdmissionReviewAnswer> {
  const hook = invocation.webhook;
  if (attrs.dryRun && !hook.dryRunSafe) throw dryRunUnsupported(hook.name);
  const version = hook.reviewVersion;
  if (!version)
    throw new WebhookCallError(hook.name, "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)");
  const uid = (context.uid ?? (() => crypto.randomUUID()))();
  const review = admissionReviewRequest(context.domain, version, uid, attrs, { ...invocation, ...objects });
  const body = await context.post(hook, review);
  let answer: AdmissionReviewAnswer;
  try {
    answer = verifyAdmissionReview(body, { domain: context.domain, version, uid, mutating });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const reason =
      error instanceof UndecodablePatchError ? `received undecodable patch in webhook response: ${message}` : `received invalid webhook response: ${message}`;
    throw new WebhookCallError(hook.name, reason, { cause: error });
  }
  for (const [key, value] of Object.entries(answer.auditAnnotations)) attrs.auditAnnotations[`${hook.name}/${key}`] = value;
  attrs.warnings.push(...answer.warnings);
  if (!answer.allowed) throw webhookDenial(hook.name, answer.status, attrs);
  return answer;
}
