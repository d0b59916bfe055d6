/**
 * OpenAPI v3 documents generated from the zod schemas: the `/openapi/v3` index and one document
 * per group version, with the reference's component names (`io.orch.api.core.v1.ConfigMap` for
 * the built-in groups, the reversed group for an embedder's own, `com.example.v1.Widget`), its
 * vendor extensions (`x-orch-group-version-kind`, merge markers; `x-kubernetes-*` for domain
 * `k8s.io`) and every operation with its query parameters. kubectl reads these to locate a kind's
 * schema (`kubectl explain`, client-side `apply`) and to learn that the server supports
 * `fieldValidation`, by the exact keys `x-kubernetes-group-version-kind`,
 * `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key`: so that it can under any
 * domain, operations and schemas carry those keys too.
 * @module
 */
import { extensionPrefix, mergeMarkerExtensions, mergeMarkersRegistry } from "@orch/meta";
import { z } from "zod";
import type { ResourceType, Verb } from "./resource-type.js";
import { actionKindOf, builtinResources, resolveGroup, type RegisteredVersion, type ResourceRegistry } from "./registry.js";
import { scaleGVK, scaleV1Schema } from "./horizontal-pod-autoscaler.js";
import { componentNameOf } from "./schema/fields.js";
import { listSchema } from "./schema/object-meta.js";
import { deleteOptionsSchema, patchSchema, statusSchema, watchEventSchema } from "./schema/shared-kinds.js";

/** A JSON value of an OpenAPI document. */
export type OpenAPINode = Record<string, unknown>;

/** The `/openapi/v3` index: one entry per group version (`api/v1`, `apis/coordination.orch.io/v1`). */
export interface OpenAPIIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

/** One OpenAPI v3 document (`/openapi/v3/api/v1`). Shared and cached: do not mutate. */
export interface OpenAPIDocument {
  openapi: "3.0.0";
  info: { title: string; version: string };
  paths: Record<string, OpenAPINode>;
  components: { schemas: Record<string, OpenAPINode>; securitySchemes?: Record<string, OpenAPINode> };
}

/** `io.orch` for domain `orch.io`, `io.k8s` for `k8s.io`: the prefix of component names. */
export function componentPrefix(domain: string): string {
  return domain.split(".").reverse().join(".");
}

/** The index key and URL path of a group version: `api/v1`, `apis/coordination.orch.io/v1`. */
export function openAPIPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

// The short package name of a group: `core`, `coordination` (of coordination.orch.io), `apps`.
function packageOf(group: string, domain: string): string {
  if (group === "") return "core";
  const stripped = group.endsWith(`.${domain}`) ? group.slice(0, -domain.length - 1) : group;
  return stripped.split(".")[0] ?? stripped;
}

// `CoordinationV1`, `CoreV1`, `FlowcontrolApiserverV1beta2`.
function operationGroup(group: string, version: string, domain: string): string {
  const stripped = group === "" ? "core" : group.endsWith(`.${domain}`) ? group.slice(0, -domain.length - 1) : group;
  const words = stripped.split(/[.-]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return `${words.join("")}${version.charAt(0).toUpperCase()}${version.slice(1)}`;
}

const builtinGroupsByDomain = new Map<string, ReadonlySet<string>>();

// The groups of the built-in catalog under `domain`, with those of the action bodies (`policy`).
function builtinGroups(domain: string): ReadonlySet<string> {
  let groups = builtinGroupsByDomain.get(domain);
  if (!groups) {
    const found = new Set<string>();
    for (const type of builtinResources) {
      found.add(resolveGroup(type.group, domain));
      for (const action of Object.values(type.strategy?.actions ?? {})) found.add(actionKindOf(action, domain).group);
    }
    groups = found;
    builtinGroupsByDomain.set(domain, groups);
  }
  return groups;
}

/**
 * The component name of a kind. A group of the built-in catalog is named as the reference names
 * its own types (`io.orch.api.core.v1.ConfigMap`, `io.k8s.api.coordination.v1.Lease`); any other
 * group, an embedder's own, as the reference names a custom resource: the group reversed, then
 * the version and kind (`com.example.v1.Widget` for group `example.com`).
 */
export function kindComponentName(domain: string, group: string, version: string, kind: string): string {
  if (!builtinGroups(domain).has(group)) return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
  return `${componentPrefix(domain)}.api.${packageOf(group, domain)}.${version}.${kind}`;
}

function metaComponent(domain: string, name: string): string {
  return `${componentPrefix(domain)}.apimachinery.pkg.apis.meta.v1.${name}`;
}

// Every named sub-schema reachable from `schema`.
function collectNamed(schema: z.core.$ZodType, out: Map<z.core.$ZodType, string>, seen: Set<unknown>): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const name = componentNameOf(schema);
  if (name !== undefined) out.set(schema, name);
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const visit = (value: unknown) => {
    if (value && typeof value === "object" && "_zod" in value) collectNamed(value as z.core.$ZodType, out, seen);
  };
  switch (def["type"]) {
    case "object":
      for (const child of Object.values(def["shape"] as Record<string, unknown>)) visit(child);
      visit(def["catchall"]);
      break;
    case "array":
      visit(def["element"]);
      break;
    case "record":
    case "map":
      visit(def["keyType"]);
      visit(def["valueType"]);
      break;
    case "union":
      for (const o of def["options"] as unknown[]) visit(o);
      break;
    case "intersection":
      visit(def["left"]);
      visit(def["right"]);
      break;
    case "pipe":
      visit(def["in"]);
      visit(def["out"]);
      break;
    case "lazy":
      visit((def["getter"] as () => unknown)());
      break;
    default:
      visit(def["innerType"]);
  }
}

const int32Bound = 2147483647;

function cleanSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleanSchema);
  if (!node || typeof node !== "object") return node;
  const out: OpenAPINode = {};
  for (const [k, v] of Object.entries(node as OpenAPINode)) {
    if (k === "$id" || k === "$schema") continue;
    out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as OpenAPINode).map(([p, s]) => [p, cleanSchema(s)])) : cleanSchema(v);
  }
  if (out["type"] === "integer") {
    const bounded = out["format"] === "int32" ? int32Bound : Number.MAX_SAFE_INTEGER;
    if (Math.abs(Number(out["maximum"])) === bounded) delete out["maximum"];
    if (Math.abs(Number(out["minimum"])) === bounded || Math.abs(Number(out["minimum"])) === bounded + 1) delete out["minimum"];
  }
  return out;
}

function ref(name: string): OpenAPINode {
  return { $ref: `#/components/schemas/${name}` };
}

interface Param {
  name: string;
  in: "query" | "path";
  description: string;
  schema: OpenAPINode;
  required?: boolean;
}

const queryParams: Record<string, Omit<Param, "name" | "in">> = {
  allowWatchBookmarks: { description: "Requests watch events with type BOOKMARK.", schema: { type: "boolean" } },
  continue: { description: "The continue option should be set when retrieving more results from the server.", schema: { type: "string" } },
  dryRun: { description: "When present, modifications are not persisted. The only valid value is All.", schema: { type: "string" } },
  fieldManager: { description: "A name associated with the actor or entity that is making these changes.", schema: { type: "string" } },
  fieldSelector: { description: "A selector to restrict the list of returned objects by their fields.", schema: { type: "string" } },
  fieldValidation: {
    description: "How the server handles unknown or duplicate fields in the request: Ignore, Warn (default) or Strict.",
    schema: { type: "string" },
  },
  force: { description: 'Force is going to "force" Apply requests: it re-acquires conflicting fields owned by other people.', schema: { type: "boolean" } },
  gracePeriodSeconds: { description: "The duration in seconds before the object should be deleted.", schema: { type: "integer" } },
  ignoreStoreReadErrorWithClusterBreakingPotential: { description: "Deletes corrupt objects that cannot be read.", schema: { type: "boolean" } },
  labelSelector: { description: "A selector to restrict the list of returned objects by their labels.", schema: { type: "string" } },
  limit: { description: "The maximum number of responses to return for a list call.", schema: { type: "integer" } },
  orphanDependents: { description: "Deprecated: please use the PropagationPolicy.", schema: { type: "boolean" } },
  pretty: { description: "If 'true', then the output is pretty printed.", schema: { type: "string" } },
  propagationPolicy: { description: "Whether and how garbage collection will be performed: Orphan, Background or Foreground.", schema: { type: "string" } },
  resourceVersion: { description: "Constrains which resource versions a request may be served from.", schema: { type: "string" } },
  resourceVersionMatch: { description: "How resourceVersion is applied to list calls: Exact or NotOlderThan.", schema: { type: "string" } },
  sendInitialEvents: { description: "Requests synthetic events for the current state before the watch stream.", schema: { type: "boolean" } },
  timeoutSeconds: { description: "Timeout for the list/watch call.", schema: { type: "integer" } },
  watch: {
    description: "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.",
    schema: { type: "boolean" },
  },
};

function query(...names: string[]): Param[] {
  return names.map((name) => ({ name, in: "query", ...(queryParams[name] as Omit<Param, "name" | "in">) }));
}

const listParams = [
  "pretty",
  "allowWatchBookmarks",
  "continue",
  "fieldSelector",
  "labelSelector",
  "limit",
  "resourceVersion",
  "resourceVersionMatch",
  "sendInitialEvents",
  "timeoutSeconds",
  "watch",
];
const writeParams = ["pretty", "dryRun", "fieldManager", "fieldValidation"];
const deleteParams = ["pretty", "dryRun", "gracePeriodSeconds", "ignoreStoreReadErrorWithClusterBreakingPotential", "orphanDependents", "propagationPolicy"];
const deleteCollectionParams = [
  "pretty",
  "continue",
  "dryRun",
  "fieldSelector",
  "gracePeriodSeconds",
  "ignoreStoreReadErrorWithClusterBreakingPotential",
  "labelSelector",
  "limit",
  "orphanDependents",
  "propagationPolicy",
  "resourceVersion",
  "resourceVersionMatch",
  "sendInitialEvents",
  "timeoutSeconds",
];

const pathName: Param = { name: "name", in: "path", required: true, description: "name of the resource", schema: { type: "string" } };
const pathNamespace: Param = {
  name: "namespace",
  in: "path",
  required: true,
  description: "object name and auth scope, such as for teams and projects",
  schema: { type: "string" },
};

const allVerbs: readonly Verb[] = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];

function content(schema: OpenAPINode, watch = false): OpenAPINode {
  const types = watch ? ["application/json", "application/yaml", "application/json;stream=watch"] : ["application/json", "application/yaml"];
  return Object.fromEntries(types.map((t) => [t, { schema }]));
}

function responses(codes: readonly number[], schema: OpenAPINode, watch = false): OpenAPINode {
  const words: Record<number, string> = { 200: "OK", 201: "Created", 202: "Accepted" };
  const out: OpenAPINode = {};
  for (const code of codes) out[String(code)] = { description: words[code] ?? "OK", content: content(schema, watch) };
  out["401"] = { description: "Unauthorized" };
  return out;
}

class DocumentBuilder {
  readonly paths: Record<string, OpenAPINode> = {};
  private readonly prefix: string;

  constructor(
    private readonly domain: string,
    private readonly group: string,
    private readonly version: string,
  ) {
    this.prefix = extensionPrefix(domain);
  }

  private op(path: string, method: string, operation: OpenAPINode): void {
    const item = (this.paths[path] ??= {});
    item[method] = operation;
  }

  private operation(
    id: string,
    action: string,
    kind: string,
    description: string,
    params: Param[],
    resp: OpenAPINode,
    requestBody?: OpenAPINode,
    gv: { group: string; version: string } = { group: this.group, version: this.version },
  ): OpenAPINode {
    const tag = `${packageOf(this.group, this.domain)}_${this.version}`;
    const out: OpenAPINode = { tags: [tag], description, operationId: id, parameters: params };
    if (requestBody) out["requestBody"] = requestBody;
    out["responses"] = resp;
    out[`x-${this.prefix}-action`] = action;
    const gvk = { group: gv.group, kind, version: gv.version };
    out[`x-${this.prefix}-group-version-kind`] = gvk;
    // kubectl finds a kind's PATCH operation by this exact key to learn that the server takes
    // `fieldValidation`; without it, `create -f` and `replace -f` fail under any other domain.
    if (this.prefix !== "kubernetes") out["x-kubernetes-group-version-kind"] = gvk;
    return out;
  }

  addResource(entry: RegisteredVersion): void {
    const { type } = entry;
    const kind = type.kind;
    const verbs = new Set(type.verbs ?? allVerbs);
    const base = `/${openAPIPath(this.group, this.version)}`;
    const namespaced = type.scope === "Namespaced";
    const ns = namespaced ? "Namespaced" : "";
    const g = operationGroup(this.group, this.version, this.domain);
    const collection = namespaced ? `${base}/namespaces/{namespace}/${type.resource}` : `${base}/${type.resource}`;
    const item = `${collection}/{name}`;
    const scopeParams = namespaced ? [pathNamespace] : [];
    const kindRef = ref(kindComponentName(this.domain, this.group, this.version, kind));
    const listRef = ref(kindComponentName(this.domain, this.group, this.version, `${kind}List`));
    const statusRef = ref(metaComponent(this.domain, "Status"));
    const body = (schema: OpenAPINode): OpenAPINode => ({ content: { "*/*": { schema } }, required: true });
    const deleteBody: OpenAPINode = { content: { "*/*": { schema: ref(metaComponent(this.domain, "DeleteOptions")) } } };
    const patchBody: OpenAPINode = {
      content: Object.fromEntries(
        ["application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"].map((t) => [
          t,
          { schema: ref(metaComponent(this.domain, "Patch")) },
        ]),
      ),
      required: true,
    };
    const plural = type.resource;

    if (verbs.has("list")) {
      this.op(
        collection,
        "get",
        this.operation(
          `list${g}${ns}${kind}`,
          "list",
          kind,
          `list or watch objects of kind ${kind}`,
          [...scopeParams, ...query(...listParams)],
          responses([200], listRef, true),
        ),
      );
    }
    if (verbs.has("create")) {
      this.op(
        collection,
        "post",
        this.operation(
          `create${g}${ns}${kind}`,
          "post",
          kind,
          `create a ${kind}`,
          [...scopeParams, ...query(...writeParams)],
          responses([200, 201, 202], kindRef),
          body(kindRef),
        ),
      );
    }
    if (verbs.has("deletecollection")) {
      this.op(
        collection,
        "delete",
        this.operation(
          `delete${g}Collection${ns}${kind}`,
          "deletecollection",
          kind,
          `delete collection of ${kind}`,
          [...scopeParams, ...query(...deleteCollectionParams)],
          responses([200], statusRef),
          deleteBody,
        ),
      );
    }
    if (verbs.has("get")) {
      this.op(
        item,
        "get",
        this.operation(
          `read${g}${ns}${kind}`,
          "get",
          kind,
          `read the specified ${kind}`,
          [pathName, ...scopeParams, ...query("pretty")],
          responses([200], kindRef),
        ),
      );
    }
    if (verbs.has("update")) {
      this.op(
        item,
        "put",
        this.operation(
          `replace${g}${ns}${kind}`,
          "put",
          kind,
          `replace the specified ${kind}`,
          [pathName, ...scopeParams, ...query(...writeParams)],
          responses([200, 201], kindRef),
          body(kindRef),
        ),
      );
    }
    if (verbs.has("patch")) {
      this.op(
        item,
        "patch",
        this.operation(
          `patch${g}${ns}${kind}`,
          "patch",
          kind,
          `partially update the specified ${kind}`,
          [pathName, ...scopeParams, ...query(...writeParams, "force")],
          responses([200, 201], kindRef),
          patchBody,
        ),
      );
    }
    if (verbs.has("delete")) {
      const deleted = type.strategy?.deleteReturnsObject ? kindRef : statusRef;
      this.op(
        item,
        "delete",
        this.operation(
          `delete${g}${ns}${kind}`,
          "delete",
          kind,
          `delete a ${kind}`,
          [pathName, ...scopeParams, ...query(...deleteParams)],
          responses([200, 202], deleted),
          deleteBody,
        ),
      );
    }
    if (namespaced && verbs.has("list")) {
      this.op(
        `${base}/${plural}`,
        "get",
        this.operation(
          `list${g}${kind}ForAllNamespaces`,
          "list",
          kind,
          `list or watch objects of kind ${kind}`,
          query(...listParams),
          responses([200], listRef, true),
        ),
      );
    }
    if (verbs.has("watch")) {
      const watchRef = ref(metaComponent(this.domain, "WatchEvent"));
      const watchBase = namespaced ? `${base}/watch/namespaces/{namespace}/${plural}` : `${base}/watch/${plural}`;
      const deprecated = "deprecated: use the 'watch' parameter with a list operation instead";
      this.op(
        watchBase,
        "get",
        this.operation(
          `watch${g}${ns}${kind}List`,
          "watchlist",
          kind,
          `watch individual changes to a list of ${kind}. ${deprecated}.`,
          [...scopeParams, ...query(...listParams)],
          responses([200], watchRef, true),
        ),
      );
      this.op(
        `${watchBase}/{name}`,
        "get",
        this.operation(
          `watch${g}${ns}${kind}`,
          "watch",
          kind,
          `watch changes to an object of kind ${kind}. ${deprecated}, filtered to a single item with the 'fieldSelector' parameter.`,
          [pathName, ...scopeParams, ...query(...listParams)],
          responses([200], watchRef, true),
        ),
      );
      if (namespaced) {
        this.op(
          `${base}/watch/${plural}`,
          "get",
          this.operation(
            `watch${g}${kind}ListForAllNamespaces`,
            "watchlist",
            kind,
            `watch individual changes to a list of ${kind}. ${deprecated}.`,
            query(...listParams),
            responses([200], watchRef, true),
          ),
        );
      }
    }
    for (const sub of type.subresources ?? []) {
      const subPath = `${item}/${sub}`;
      const Sub = sub.charAt(0).toUpperCase() + sub.slice(1);
      const params = [pathName, ...scopeParams];
      const action = type.strategy?.actions?.[sub];
      if (action) {
        // An action takes a POST of its own kind and answers with it (or a Status), as the
        // reference's `createCoreV1NamespacedServiceAccountToken` and `...PodEviction` do.
        const gvk = actionKindOf(action, this.domain);
        const actionRef = ref(kindComponentName(this.domain, gvk.group, gvk.version, gvk.kind));
        this.op(
          subPath,
          "post",
          this.operation(
            `create${g}${ns}${kind}${Sub}`,
            "post",
            gvk.kind,
            `create ${sub} of a ${kind}`,
            [...params, ...query(...writeParams)],
            responses([200, 201, 202], actionRef),
            body(actionRef),
            gvk,
          ),
        );
        continue;
      }
      // A declared `scale` takes and answers an autoscaling/v1 Scale, as the reference's
      // `readAppsV1NamespacedDeploymentScale` does; other sub-resources the parent's kind.
      const scale = sub === "scale" && type.strategy?.scale !== undefined;
      const subRef = scale ? ref(kindComponentName(this.domain, scaleGVK.group, scaleGVK.version, scaleGVK.kind)) : kindRef;
      const subGV = scale ? scaleGVK : undefined;
      if (sub === "status" || scale) {
        this.op(
          subPath,
          "get",
          this.operation(
            `read${g}${ns}${kind}${Sub}`,
            "get",
            scale ? scaleGVK.kind : kind,
            `read ${sub} of the specified ${kind}`,
            [...params, ...query("pretty")],
            responses([200], subRef),
            undefined,
            subGV,
          ),
        );
        this.op(
          subPath,
          "patch",
          this.operation(
            `patch${g}${ns}${kind}${Sub}`,
            "patch",
            scale ? scaleGVK.kind : kind,
            `partially update ${sub} of the specified ${kind}`,
            [...params, ...query(...writeParams, "force")],
            responses([200, 201], subRef),
            patchBody,
            subGV,
          ),
        );
      }
      this.op(
        subPath,
        "put",
        this.operation(
          `replace${g}${ns}${kind}${Sub}`,
          "put",
          scale ? scaleGVK.kind : kind,
          `replace ${sub} of the specified ${kind}`,
          [...params, ...query(...writeParams)],
          responses([200, 201], subRef),
          body(subRef),
          subGV,
        ),
      );
    }
  }
}

// The GVK list of a schema under the domain's key, and under the reference's, which
// `kubectl explain` and client-side `apply` look for whatever the domain.
function gvkExtension(prefix: string, entries: { group: string; kind: string; version: string }[]): OpenAPINode {
  return { [`x-${prefix}-group-version-kind`]: entries, "x-kubernetes-group-version-kind": entries };
}

function buildDocument(registry: ResourceRegistry, group: string, version: string): OpenAPIDocument | undefined {
  const members = registry.resourcesIn(group, version);
  if (members.length === 0) return undefined;
  const domain = registry.domain;
  const prefix = extensionPrefix(domain);
  const rev = componentPrefix(domain);
  const ids = z.registry<{ id: string }>();
  const extensions = new Map<string, OpenAPINode>();
  const named = new Map<z.core.$ZodType, string>();
  const seen = new Set<unknown>();

  const gvks = (kind: string) => {
    const list = [{ group: "", kind, version: "v1" }];
    if (group !== "" || version !== "v1") list.push({ group, kind, version });
    return list;
  };
  const shared: [z.core.$ZodType, string][] = [
    [statusSchema, "Status"],
    [deleteOptionsSchema, "DeleteOptions"],
    [watchEventSchema, "WatchEvent"],
    [patchSchema, "Patch"],
  ];
  for (const [schema, kind] of shared) {
    const id = metaComponent(domain, kind);
    ids.add(schema, { id });
    if (kind !== "Patch") extensions.set(id, gvkExtension(prefix, kind === "Status" ? [{ group: "", kind, version: "v1" }] : gvks(kind)));
    seen.add(schema);
    collectNamed(schema, named, new Set());
  }
  const builder = new DocumentBuilder(domain, group, version);
  for (const entry of members) {
    const { type } = entry;
    const kindId = kindComponentName(domain, group, version, type.kind);
    ids.add(entry.version.schema, { id: kindId });
    extensions.set(kindId, gvkExtension(prefix, [{ group, kind: type.kind, version }]));
    const listId = kindComponentName(domain, group, version, `${type.kind}List`);
    ids.add(listSchema(entry.version.schema, `${type.kind}List is a list of ${type.kind} objects.`), { id: listId });
    extensions.set(listId, gvkExtension(prefix, [{ group, kind: `${type.kind}List`, version }]));
    collectNamed(entry.version.schema, named, seen);
    builder.addResource(entry);
  }
  // The bodies of action sub-resources (TokenRequest, Eviction) are components of their own group.
  for (const { type } of members) {
    for (const sub of type.subresources ?? []) {
      const action = type.strategy?.actions?.[sub];
      if (!action || ids.has(action.schema)) continue;
      const gvk = actionKindOf(action, domain);
      const id = kindComponentName(domain, gvk.group, gvk.version, gvk.kind);
      ids.add(action.schema, { id });
      extensions.set(id, gvkExtension(prefix, [gvk]));
      collectNamed(action.schema, named, seen);
    }
  }
  // The Scale of `scale` sub-resources (Deployment, ReplicaSet, StatefulSet) is a component too.
  if (members.some(({ type }) => type.strategy?.scale !== undefined) && !ids.has(scaleV1Schema)) {
    const id = kindComponentName(domain, scaleGVK.group, scaleGVK.version, scaleGVK.kind);
    ids.add(scaleV1Schema, { id });
    extensions.set(id, gvkExtension(prefix, [{ ...scaleGVK }]));
    collectNamed(scaleV1Schema, named, seen);
  }
  for (const [schema, name] of named) if (!ids.has(schema)) ids.add(schema, { id: `${rev}.${name}` });

  const generated = z.toJSONSchema(ids, {
    target: "openapi-3.0",
    io: "input",
    unrepresentable: "any",
    reused: "inline",
    cycles: "ref",
    uri: (id) => `#/components/schemas/${id}`,
    override: (ctx) => {
      const markers = mergeMarkersRegistry.get(ctx.zodSchema);
      if (!markers) return;
      // A described copy of a named, marked schema refers to its component, which carries the
      // markers: repeat only the patch markers there, as the reference does.
      const json = ctx.jsonSchema as OpenAPINode;
      const refers = json["allOf"] !== undefined || json["$ref"] !== undefined;
      const shown = refers ? { patchStrategy: markers.patchStrategy, patchMergeKey: markers.patchMergeKey } : markers;
      const plain = JSON.parse(JSON.stringify(shown)) as typeof markers;
      Object.assign(json, mergeMarkerExtensions(plain, prefix));
      // Once kubectl finds a kind's schema by its GVK it computes a client-side apply's
      // strategic merge patch from these two keys alone: without them it would replace whole
      // lists the server merges by key, and could never delete an item.
      if (prefix !== "kubernetes") {
        if (plain.patchStrategy) json["x-kubernetes-patch-strategy"] = plain.patchStrategy;
        if (plain.patchMergeKey) json["x-kubernetes-patch-merge-key"] = plain.patchMergeKey;
      }
    },
  }) as { schemas: Record<string, unknown> };

  const schemas: Record<string, OpenAPINode> = {};
  for (const id of Object.keys(generated.schemas).sort()) {
    const schema = cleanSchema(generated.schemas[id]) as OpenAPINode;
    schemas[id] = { ...schema, ...(extensions.get(id) ?? {}) };
  }
  const sortedPaths = Object.fromEntries(Object.entries(builder.paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    openapi: "3.0.0",
    info: { title: domain === "k8s.io" ? "Kubernetes" : "orch", version: "unversioned" },
    paths: sortedPaths,
    components: {
      schemas,
      securitySchemes: { BearerToken: { type: "apiKey", description: "Bearer Token authentication", name: "authorization", in: "header" } },
    },
  };
}

// A fast, deterministic 64-bit hash (two 32-bit FNV-1a lanes), printed as 16 upper-case hex digits.
function hashText(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
  }
  const hex = (n: number) => (n >>> 0).toString(16).padStart(8, "0");
  return (hex(h1) + hex(h2)).toUpperCase();
}

interface CacheEntry {
  documents: Map<string, OpenAPIDocument | undefined>;
  hashes: Map<string, string>;
}

const cache = new WeakMap<ResourceRegistry, CacheEntry>();

function entryOf(registry: ResourceRegistry): CacheEntry {
  let entry = cache.get(registry);
  if (!entry) {
    entry = { documents: new Map(), hashes: new Map() };
    cache.set(registry, entry);
  }
  return entry;
}

/**
 * The OpenAPI v3 document of one group version (`""`/`v1` for `/openapi/v3/api/v1`), or
 * `undefined` when the registry serves nothing there. Computed once per registry and shared:
 * callers must not mutate it.
 */
export function openAPIDocument(registry: ResourceRegistry, group: string, version: string): OpenAPIDocument | undefined {
  const entry = entryOf(registry);
  const key = `${group}/${version}`;
  if (!entry.documents.has(key)) entry.documents.set(key, buildDocument(registry, group, version));
  return entry.documents.get(key);
}

/** The hash the index puts in each `serverRelativeURL` (changes whenever the document does). */
export function openAPIDocumentHash(registry: ResourceRegistry, group: string, version: string): string | undefined {
  const entry = entryOf(registry);
  const key = `${group}/${version}`;
  let hash = entry.hashes.get(key);
  if (hash === undefined) {
    const doc = openAPIDocument(registry, group, version);
    if (!doc) return undefined;
    hash = hashText(JSON.stringify(doc));
    entry.hashes.set(key, hash);
  }
  return hash;
}

/**
 * The `/openapi/v3` index: `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=<hex>"}, ...}}`,
 * one entry per served group version, in discovery order.
 */
export function openAPIIndex(registry: ResourceRegistry): OpenAPIIndex {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const { group, version } of registry.groupVersions()) {
    const hash = openAPIDocumentHash(registry, group, version);
    if (hash === undefined) continue;
    const path = openAPIPath(group, version);
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}

/** The kinds a document describes (for callers that need the GVK list of one group version). */
export function openAPIKinds(registry: ResourceRegistry, group: string, version: string): readonly ResourceType[] {
  return registry.resourcesIn(group, version).map((r) => r.type);
}
