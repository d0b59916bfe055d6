/**
 * The `scale` sub-resource of a kind whose strategy declares one (`ResourceStrategy.scale`:
 * Deployment, ReplicaSet, StatefulSet): GET answers an `autoscaling/v1` Scale built from the
 * parent; PUT and PATCH (JSON, merge or strategic merge patch of the Scale) change only the
 * parent's spec replicas, through the parent's update path (admission, validation, generation,
 * `managedFields` with the `scale` sub-resource). A Scale's `metadata.resourceVersion`, when set,
 * is a precondition (409 when stale).
 * @module
 */
import {
  FieldPath,
  badRequest,
  conflict,
  invalid,
  invalidField,
  labelSelectorFromObject,
  notFound,
  type APIObject,
  type FieldError,
  type LabelSelectorObject,
} from "@orch/meta";
import { planRead, readOne } from "@orch/list";
import { scaleGVK, scaleV1Schema, type ScaleSubresource } from "@orch/resources";
import type { APIResponse } from "../api-request.js";
import type { WriteResult } from "../object-store.js";
import { applyPatch } from "../patch.js";
import { mutableCopy, objectKey, presentObject, wireObject, type ServedResource } from "../served-resource.js";
import { readRequestBody } from "./decode.js";
import type { Handler, ResourceCall } from "./handler-context.js";
import { readParams, writeOptions } from "./request-options.js";

/** The group, version and kind of every scale sub-resource's body and answer. */
export const scaleKind = scaleGVK;

const scaleQualifiedKind = { group: scaleKind.group, kind: scaleKind.kind };

/** The value at the dotted `path` of `object`. */
function valueAt(object: unknown, path: string): unknown {
  let at = object;
  for (const key of path.split(".")) {
    if (typeof at !== "object" || at === null || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** Sets the dotted `path` of `object` to `value`, creating the objects on the way. */
function setValueAt(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop() as string;
  let at = object;
  for (const key of keys) {
    const next = at[key];
    if (typeof next === "object" && next !== null && !Array.isArray(next)) at = next as Record<string, unknown>;
    else {
      const fresh: Record<string, unknown> = {};
      at[key] = fresh;
      at = fresh;
    }
  }
  at[last] = value;
}

/** The selector at `path` as a string: a LabelSelector object or a label map formatted, a string as is. */
function selectorString(object: APIObject, path: string | undefined): string | undefined {
  if (!path) return undefined;
  const value = valueAt(object, path);
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null) return undefined;
  // A map selector (ReplicationController's `spec.selector`) selects its labels exactly.
  const fields = Object.keys(value);
  const isMap = fields.some((k) => k !== "matchLabels" && k !== "matchExpressions");
  const parsed = labelSelectorFromObject((isMap ? { matchLabels: value } : value) as LabelSelectorObject);
  return parsed.ok ? parsed.selector.toString() : undefined;
}

/** The `autoscaling/v1` Scale of `object` (in the served version) as `scale` declares it. */
export function scaleOf(scale: ScaleSubresource, object: APIObject): APIObject {
  const meta = object.metadata;
  const count = (path: string) => {
    const v = valueAt(object, path);
    return typeof v === "number" ? v : 0;
  };
  const selector = selectorString(object, scale.labelSelectorPath);
  return {
    apiVersion: `${scaleKind.group}/${scaleKind.version}`,
    kind: scaleKind.kind,
    metadata: {
      ...(meta.name !== undefined ? { name: meta.name } : {}),
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(meta.uid !== undefined ? { uid: meta.uid } : {}),
      ...(meta.resourceVersion !== undefined ? { resourceVersion: meta.resourceVersion } : {}),
      ...(meta.creationTimestamp !== undefined ? { creationTimestamp: meta.creationTimestamp } : {}),
    },
    spec: { replicas: count(scale.specReplicasPath) },
    status: { replicas: count(scale.statusReplicasPath), ...(selector !== undefined ? { selector } : {}) },
  };
}

function scaleOfServed(served: ServedResource): ScaleSubresource {
  const scale = served.type.strategy?.scale;
  if (!scale) throw notFound(served.qualifiedResource, "");
  return scale;
}

/**
 * Checks `body` as a Scale for the parent `name`: an object of kind Scale (either `apiVersion`
 * and `kind` may be left out), the name of the URL, and `spec.replicas` a non-negative integer.
 * Answers the replicas and the resourceVersion precondition, if any.
 * @throws StatusError 400 for a body that is not a Scale or names another object, 422 (on
 *   `Scale.autoscaling`) for bad replicas.
 */
function readScale(body: unknown, name: string): { replicas: number; resourceVersion: string | undefined } {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("the body of a scale request must be a Scale object");
  const scale = body as Record<string, unknown>;
  if (scale["kind"] !== undefined && scale["kind"] !== scaleKind.kind)
    throw badRequest(`the body of a scale request must be a Scale, not ${String(scale["kind"])}`);
  const meta = (typeof scale["metadata"] === "object" && scale["metadata"] !== null ? scale["metadata"] : {}) as Record<string, unknown>;
  if (meta["name"] !== undefined && meta["name"] !== name) {
    throw badRequest(`the name of the object (${String(meta["name"])}) does not match the name on the URL (${name})`);
  }
  const replicas = valueAt(scale, "spec.replicas") ?? 0;
  const errors: FieldError[] = [];
  const at = FieldPath.root("spec").child("replicas");
  if (typeof replicas !== "number" || !Number.isInteger(replicas)) errors.push(invalidField(at, replicas, "must be an integer"));
  else if (replicas < 0) errors.push(invalidField(at, replicas, "must be greater than or equal to 0"));
  if (errors.length) throw invalid(scaleQualifiedKind, name, errors);
  const rv = meta["resourceVersion"];
  return { replicas: replicas as number, resourceVersion: typeof rv === "string" && rv !== "" ? rv : undefined };
}

/** GET `<resource>/<name>/scale`. */
const getScale: Handler = async (call) => {
  const { ctx, served, info } = call;
  const scale = scaleOfServed(served);
  const plan = planRead("get", readParams(call.query), { domain: ctx.domain });
  const entry = await readOne(ctx.store, objectKey(served, call.namespace, info.name), plan, { clock: ctx.clock });
  if (!entry) throw notFound(served.qualifiedResource, info.name);
  return call.encode(200, scaleOf(scale, presentObject(served, wireObject(entry))));
};

/**
 * Writes the replicas of the Scale that `toScale` makes of the current parent's Scale (the body
 * of a PUT, or the result of a PATCH) into the parent's spec.
 */
async function writeScale(call: ResourceCall, toScale: (current: APIObject) => unknown): Promise<APIResponse> {
  const { ctx, served, info } = call;
  const scale = scaleOfServed(served);
  const opts = writeOptions(call);
  opts.subresource = info.subresource;
  const result: WriteResult = await ctx.objects.guaranteedUpdate(served, call.namespace, info.name, { dryRun: opts.dryRun }, async (current) => {
    const { replicas, resourceVersion } = readScale(toScale(scaleOf(scale, presentObject(served, current))), info.name);
    if (resourceVersion !== undefined && resourceVersion !== current.metadata.resourceVersion) throw conflict(served.qualifiedResource, info.name);
    const next = mutableCopy(current);
    setValueAt(next, scale.specReplicasPath, replicas);
    return { kind: "update", object: await ctx.objects.beforeUpdate(served, next, current, opts) };
  });
  const body = result.body.kind === "Status" ? result.body : scaleOf(scale, presentObject(served, result.body as APIObject));
  return call.encode(result.code, body, opts.warnings);
}

/** PUT `<resource>/<name>/scale`: the body is a Scale. */
const updateScale: Handler = (call) => {
  const body = readRequestBody(call);
  return writeScale(call, () => body);
};

/** PATCH `<resource>/<name>/scale`: a JSON, merge or strategic merge patch of the Scale. */
const patchScale: Handler = (call) => {
  const contentType = call.request.headers.get("content-type");
  return writeScale(call, (current) => applyPatch(contentType, call.request.body, current, scaleV1Schema));
};

/** The handlers of the `scale` sub-resource, by verb (the sub-resource answers no others). */
export const scaleHandlers: Readonly<Partial<Record<string, Handler>>> = { get: getScale, update: updateScale, patch: patchScale };
