/**
 * ControllerRevisions of the `statefulset` and `daemonset` loops, as the reference's
 * `pkg/controller/history` keeps them: a revision holds the owner's pod template as a patch
 * (`{"spec":{"template":{..., "$patch":"replace"}}}`), is named `<owner>-<hash>` (FNV-1a 32 of
 * that data, plus the collision count, written with the reference's safe alphabet), numbered one
 * above the newest, and renumbered when an older one matches again (a rollback).
 * @module
 */
import { controllerRevisionsRef, type Client } from "@orch/client";
import { isAlreadyExists, isNotFound, jsonEqual, type APIObject, type OwnerReference } from "@orch/meta";
import { controlledBy } from "./controller-ref.js";
import { int, rec, specOf } from "./object-fields.js";
import { fnv32a, safeEncodeHash } from "./safe-hash.js";

/** The label of a workload Pod that names the revision of its template (`controller-revision-hash`). */
export const controllerRevisionHashLabel = "controller-revision-hash";

/** The hash of a revision's data and the owner's collision count (`collisionCount` bytes appended when set). */
export function revisionHash(data: unknown, collisionCount?: number): string {
  let text = JSON.stringify(data);
  if (collisionCount !== undefined) text += String(collisionCount);
  return safeEncodeHash(fnv32a(new TextEncoder().encode(text)));
}

/** The revision data of `owner`'s current pod template. */
export function templatePatch(owner: APIObject): Record<string, unknown> {
  return { spec: { template: { ...(rec(specOf(owner)["template"]) ?? {}), $patch: "replace" } } };
}

/** The pod template a revision holds. */
export function templateOfRevision(revision: APIObject): Record<string, unknown> {
  const template = { ...(rec(rec(rec(revision["data"])?.["spec"])?.["template"]) ?? {}) };
  delete template["$patch"];
  return template;
}

/** The revisions of `owner` (controlled by it), oldest first. */
export async function listRevisions(client: Client, owner: APIObject): Promise<APIObject[]> {
  const namespace = owner.metadata.namespace ?? "";
  const all = (await client.resource(controllerRevisionsRef).list({ namespace })).items;
  return all.filter((r) => controlledBy(r, owner.metadata.uid)).sort((a, b) => int(a["revision"]) - int(b["revision"]));
}

/**
 * The revision of `owner`'s current template among `revisions`: an equal one (renumbered to the
 * newest when it is not), or a new one created `<owner>-<hash>` with `ref` as controller. The
 * returned list holds it.
 */
export async function ensureRevision(
  client: Client,
  owner: APIObject,
  ref: OwnerReference,
  revisions: APIObject[],
): Promise<{ revision: APIObject; revisions: APIObject[] }> {
  const namespace = owner.metadata.namespace ?? "";
  const data = templatePatch(owner);
  const newest = revisions.reduce((n, r) => Math.max(n, int(r["revision"])), 0);
  const equal = revisions.filter((r) => jsonEqual(r["data"], data));
  const resource = client.resource(controllerRevisionsRef);
  const found = equal[equal.length - 1];
  if (found) {
    if (int(found["revision"]) === newest) return { revision: found, revisions };
    const updated = await resource.update({ ...found, revision: newest + 1 }, { namespace });
    return { revision: updated, revisions: [...revisions.filter((r) => r !== found), updated] };
  }
  const collisionCount = rec(owner["status"])?.["collisionCount"];
  const name = `${owner.metadata.name ?? ""}-${revisionHash(data, typeof collisionCount === "number" ? collisionCount : undefined)}`;
  const labels = (rec(rec(specOf(owner)["template"])?.["metadata"])?.["labels"] ?? {}) as Record<string, string>;
  const revision: APIObject = {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: { name, namespace, labels: { ...labels }, ownerReferences: [ref] },
    data,
    revision: newest + 1,
  };
  try {
    const created = await resource.create(revision, { namespace });
    return { revision: created, revisions: [...revisions, created] };
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    // Ours from a sync whose list missed it, or someone else's (a hash collision the next sync sees).
    const existing = await resource.get(name, { namespace });
    if (!controlledBy(existing, owner.metadata.uid) || !jsonEqual(existing["data"], data)) throw error;
    return { revision: existing, revisions: [...revisions, existing] };
  }
}

/** Deletes the oldest of `revisions` not in `live` beyond `limit` of them. */
export async function truncateHistory(client: Client, revisions: APIObject[], live: Set<string>, limit: number): Promise<void> {
  const old = revisions.filter((r) => !live.has(r.metadata.name ?? ""));
  for (const r of old.slice(0, Math.max(0, old.length - limit))) {
    try {
      await client.resource(controllerRevisionsRef).delete(r.metadata.name ?? "", { namespace: r.metadata.namespace ?? "" });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
