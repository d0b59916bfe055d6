/**
 * The flow-control stages, between impersonation and authorization as in the reference:
 * API Priority and Fairness ({@link withPriorityAndFairness}) or, with it off, the plain
 * max-in-flight limit ({@link withMaxInFlightLimit}).
 * @module
 */
import { extensionPrefix, tooManyRequests } from "@orch/meta";
import type { APIResponse } from "../api-request.js";
import type { FlowAdmission, FlowControl } from "../flowcontrol/flow-control.js";
import type { Classification, RequestDigest } from "../flowcontrol/classifier.js";
import { LoopTurns } from "../flowcontrol/loop-turns.js";
import { objectsPerSeat, type WorkDigest } from "../flowcontrol/work-estimator.js";
import { errorResponse } from "../responses.js";
import { attempt, userOf, type Handler, type ServerRequest, type Stage } from "./stage.js";

/** The message of a 429 of flow control, as the reference's. */
export const tooManyRequestsMessage = "Too many requests, please try again later.";
/** The `Retry-After` of a 429 of flow control, in seconds, as the reference's. */
export const flowControlRetryAfterSeconds = 1;

function tooMany(): APIResponse {
  return errorResponse(tooManyRequests(tooManyRequestsMessage, flowControlRetryAfterSeconds));
}

/** What the classifier reads of a request. */
function digestOf(request: ServerRequest): RequestDigest {
  const info = request.info;
  if (!info) throw new TypeError("the request info stage must run before flow control");
  const user = userOf(request);
  if (!info.isResourceRequest) return { user, isResourceRequest: false, verb: info.verb, path: info.path };
  return {
    user,
    isResourceRequest: true,
    verb: info.verb,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
  };
}

/** What the work estimate reads of a request. */
function workOf(request: ServerRequest): WorkDigest {
  const info = request.info;
  if (!info?.isResourceRequest) return { verb: info?.verb ?? "", isResourceRequest: false };
  return { verb: info.verb, isResourceRequest: true, group: info.group, resource: info.resource, name: info.name, query: info.parsed.query };
}

/**
 * API Priority and Fairness: classifies each request by the FlowSchemas into a priority level,
 * estimates its width in seats (one per 100 objects for a LIST, see `work-estimator.ts`; one
 * for most requests), and lets it run when its level has that many free seats (an `Exempt`
 * level always has), else queues it or refuses it 429 `TooManyRequests` (`Retry-After: 1`).
 * Every response, the 429s included, carries `X-<Prefix>-PF-FlowSchema-UID` and
 * `X-<Prefix>-PF-PriorityLevel-UID` (`Kubernetes` under `k8s.io`, `Orch` otherwise). A watch
 * holds its seats until its response starts (the handler returns the stream); any other request
 * until the handler's answer, so a streamed body other than a watch's also gives its seats back
 * when its response starts.
 *
 * A request that goes through more than one seat's worth of objects (more than 100), once let
 * through, starts on a turn of the event loop of its own (`turns`, one at a time, in order),
 * holding its seats meanwhile but charged (in its level's fair order) only for the time it runs
 * from that turn on: the requests that arrive while it waits are read, classified and, when
 * their level has room, answered first, and the wide ones behind it see its seats taken and
 * queue by the fair order of their level. On one event loop this is what keeps a flood of
 * LISTs, each of which holds the loop until its answer is written, from making every other
 * request wait for all of them.
 */
export function withPriorityAndFairness(
  flowControl: Pick<FlowControl, "classify" | "acquire" | "estimate"> & Partial<Pick<FlowControl, "admitNow">>,
  domain: string,
  turns: LoopTurns = new LoopTurns(),
): Stage {
  const prefix = extensionPrefix(domain) === "kubernetes" ? "X-Kubernetes" : "X-Orch";
  // Lower-case, as a `Headers` keeps (and hands out) names: set so, they are not lower-cased again for every response.
  const flowSchemaHeader = `${prefix}-PF-FlowSchema-UID`.toLowerCase();
  const priorityLevelHeader = `${prefix}-PF-PriorityLevel-UID`.toLowerCase();
  const mark = (response: APIResponse, classification: Classification): APIResponse => {
    response.headers.set(flowSchemaHeader, classification.flowSchema.metadata.uid ?? "");
    response.headers.set(priorityLevelHeader, classification.priorityLevel.metadata.uid ?? "");
    return response;
  };
  /** Runs the rest of the pipeline for an admitted request (on a turn of its own when `takesTurn`), then gives its seats back. */
  const run = (
    request: ServerRequest,
    next: Handler,
    classification: Classification,
    admission: FlowAdmission,
    takesTurn: boolean,
  ): Promise<APIResponse> | APIResponse => {
    if (!admission.ok) return mark(tooMany(), classification);
    const ran = takesTurn
      ? turns.take().then(() => {
          admission.begin();
          return next(request);
        })
      : attempt(next, request);
    return ran.then(
      (response) => {
        // A large answer is written over several turns of the loop: its seats stay taken until
        // it is out, when the adapter can say so (the reference's handler holds them while it
        // writes), so the seats bound the large bodies being written at once.
        if (request.whenWritten !== undefined && isLarge(response)) request.whenWritten(() => admission.release());
        else admission.release();
        return mark(response, classification);
      },
      (error: unknown) => {
        admission.release();
        return mark(errorResponse(error), classification);
      },
    );
  };
  // No async frame: an admitted request costs one reaction to its admission and one to its answer.
  return (request, next) => {
    try {
      const classification = flowControl.classify(digestOf(request));
      if (!classification) return next(request);
      const work = flowControl.estimate(classification, workOf(request));
      // A request that goes through more objects than one seat's worth holds the loop long enough to take a turn of its own.
      const takesTurn = work.objects > objectsPerSeat;
      const asked = { width: work.seats, startsLater: takesTurn };
      // Most requests find their seats free: admitted at once, they wait for no promise of it.
      const admitted = flowControl.admitNow?.(classification, asked);
      if (admitted) return Promise.resolve(run(request, next, classification, admitted, takesTurn));
      return flowControl.acquire(classification, () => request.signal, asked).then((admission) => run(request, next, classification, admission, takesTurn));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  };
}

/** The size of an answer from which {@link withPriorityAndFairness} holds its seats until it is written (bytes or UTF-16 units). */
const largeBody = 64 * 1024;

/** Whether `response` has a body of parts (a LIST) or a body of at least {@link largeBody}. */
function isLarge(response: APIResponse): boolean {
  if (response.bodyParts !== undefined) return true;
  const body = response.body;
  return body !== undefined && (typeof body === "string" ? body.length : body.byteLength) >= largeBody;
}

/** The limits of {@link withMaxInFlightLimit}; 0 is no limit. */
export interface MaxInFlightLimits {
  /** Reads at once (`get`, `list`; watches are long-running and not counted). */
  readOnly: number;
  /** Writes at once. */
  mutating: number;
}

const readOnlyVerbs = new Set(["get", "list", "watch"]);

/**
 * The max-in-flight limit (flow control with API Priority and Fairness off): at most
 * `limits.readOnly` reads and `limits.mutating` writes at once; past that a request is
 * answered 429 `TooManyRequests` at once. Watches are long-running and not counted; members of
 * `system:masters` are never limited.
 */
export function withMaxInFlightLimit(limits: MaxInFlightLimits): Stage {
  let readOnly = 0;
  let mutating = 0;
  return async (request, next) => {
    const info = request.info;
    if (!info || info.verb === "watch" || (request.user?.groups ?? []).includes("system:masters")) return next(request);
    const isRead = readOnlyVerbs.has(info.verb);
    const limit = isRead ? limits.readOnly : limits.mutating;
    if (limit <= 0) return next(request);
    if ((isRead ? readOnly : mutating) >= limit) return tooMany();
    if (isRead) readOnly++;
    else mutating++;
    try {
      return await next(request);
    } finally {
      if (isRead) readOnly--;
      else mutating--;
    }
  };
}
