/**
 * Server-side apply: PATCH with `application/apply-patch+yaml`. The YAML or JSON configuration
 * of `fieldManager` (required) is merged into the current object by `@orch/merge` (conflicts
 * with other managers are 409 unless `force=true`), or makes a new object when there is none
 * (not through a sub-resource), through `ObjectStore.guaranteedUpdate`.
 * @module
 */
import { badRequest, type APIObject } from "@orch/meta";
import { apply, type JSONObject } from "@orch/merge";
import { decodeUTF8, parseYAMLBody } from "../negotiation.js";
import { storedTypeInfo, type WriteOptions, type WriteResult } from "../object-store.js";
import { presentObject } from "../served-resource.js";
import { decodeBody } from "./decode.js";
import type { ResourceCall } from "./handler-context.js";
import { isTrue } from "./request-options.js";

/**
 * Applies the request's configuration to the object `info.name`; `opts` are the patch's (with
 * its field manager). Answers 200 with the stored object, 201 when it was created.
 * @throws StatusError 400 for a configuration that is not an object of the served kind and
 *   version with the URL's name and namespace, 409 for conflicts with other field managers, 404
 *   for a missing object of a sub-resource, 422 for an invalid result.
 */
export function serverSideApply(call: ResourceCall, opts: WriteOptions): Promise<WriteResult> {
  const { ctx, served, info, namespace } = call;
  const manager = opts.fieldManager ?? "";
  const force = isTrue(call.query.get("force"));
  const body = parseYAMLBody(decodeUTF8(call.request.body));
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest("the apply configuration must be an object");
  const config = body as Record<string, unknown>;
  if (config.apiVersion !== served.apiVersion) {
    throw badRequest(`the API version in the data (${String(config.apiVersion ?? "")}) does not match the expected API version (${served.apiVersion})`);
  }
  if (config.kind !== served.type.kind) {
    throw badRequest(`the kind in the data (${String(config.kind ?? "")}) does not match the expected kind (${served.type.kind})`);
  }
  const meta = (typeof config.metadata === "object" && config.metadata !== null ? config.metadata : {}) as Record<string, unknown>;
  if (meta.name !== undefined && meta.name !== info.name) {
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${info.name})`);
  }
  if (served.namespaced && meta.namespace !== undefined && meta.namespace !== namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  const applied = { ...config, metadata: { ...meta, name: info.name, ...(served.namespaced ? { namespace } : {}) } } as JSONObject;
  const applyOpts: WriteOptions = { ...opts, fieldManager: manager, applied: true };
  const run = (live: APIObject | undefined): unknown =>
    apply({
      live: live as JSONObject | undefined,
      applied,
      manager,
      force,
      apiVersion: served.apiVersion,
      now: ctx.clock.now(),
      typeInfo: storedTypeInfo(served),
      subresource: info.subresource || undefined,
    }).object;
  const objects = ctx.objects;
  return objects.guaranteedUpdate(served, namespace, info.name, { dryRun: opts.dryRun, mode: info.subresource ? "update" : "upsert" }, async (current) => {
    if (!current) return { kind: "create", object: await objects.prepareCreate(served, namespace, decodeBody(call, run(undefined), applyOpts), applyOpts) };
    const decoded = decodeBody(call, run(presentObject(served, current)), applyOpts);
    return { kind: "update", object: await objects.beforeUpdate(served, objects.prepareWrite(served, info.subresource, decoded, current), current, applyOpts) };
  });
}
