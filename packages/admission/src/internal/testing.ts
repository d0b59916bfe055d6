/**
 * Test helpers of the plugin tests: in-memory {@link AdmissionServices}, an attributes
 * builder and the StatusError a call is refused with. Not exported from the package.
 * @module
 */
import { conflict, alreadyExists, StatusError, type APIObject } from "@orch/meta";
import { resolveGroup, type AccessAttributes, type AccessDecision, type RequestUser, type ResourceType } from "@orch/resources";
import type { AdmissionAttributes, Operation } from "../attributes.js";
import type { AdmissionServices, LiveList } from "../services.js";

/** In-memory services: objects by key, every write counted, every log line kept. */
export interface FakeServices extends AdmissionServices {
  /** Puts an object (as if stored), giving it a resourceVersion. */
  put(group: string, resource: string, object: APIObject): APIObject;
  /** The log lines written. */
  logged: string[];
  /** The authorization questions asked. */
  asked: AccessAttributes[];
  /** Writes made through `create`/`update`. */
  writes: { verb: "create" | "update"; group: string; resource: string; object: APIObject }[];
}

const keyOf = (group: string, resource: string, namespace: string, name: string) => `${group}/${resource}/${namespace}/${name}`;

/**
 * Fake services over a map. `authorize` answers with `decide` (allow everything by default);
 * `now` is fixed unless `clock` is given.
 */
export function fakeServices(options: { domain?: string; decide?: (a: AccessAttributes) => AccessDecision; now?: () => number } = {}): FakeServices {
  const objects = new Map<string, APIObject>();
  let revision = 1;
  let generation = 0;
  const services: FakeServices = {
    domain: options.domain ?? "orch.io",
    now: options.now ?? (() => Date.parse("2026-01-01T00:00:00Z")),
    logged: [],
    asked: [],
    writes: [],
    put(group, resource, object) {
      const stored = structuredClone(object);
      stored.metadata.resourceVersion = String(++revision);
      objects.set(keyOf(group, resource, stored.metadata.namespace ?? "", stored.metadata.name ?? ""), stored);
      generation++;
      return stored;
    },
    async get(group, resource, namespace, name) {
      const found = objects.get(keyOf(group, resource, namespace, name)) ?? objects.get(keyOf(group, resource, "", name));
      return found ? structuredClone(found) : undefined;
    },
    async list(group, resource, namespace) {
      const prefix = `${group}/${resource}/`;
      const items = [...objects.entries()]
        .filter(([k, o]) => k.startsWith(prefix) && (!namespace || o.metadata.namespace === namespace))
        .map(([, o]) => structuredClone(o));
      return { items, resourceVersion: String(revision) };
    },
    async create(group, resource, namespace, object) {
      const key = keyOf(group, resource, namespace, object.metadata.name ?? "");
      if (objects.has(key)) throw alreadyExists({ group, resource }, object.metadata.name ?? "");
      const stored = services.put(group, resource, { ...object, metadata: { ...object.metadata, ...(namespace ? { namespace } : {}) } });
      services.writes.push({ verb: "create", group, resource, object: stored });
      return stored;
    },
    async update(group, resource, namespace, object) {
      const key = keyOf(group, resource, namespace, object.metadata.name ?? "");
      const current = objects.get(key);
      if (!current || current.metadata.resourceVersion !== object.metadata.resourceVersion) throw conflict({ group, resource }, object.metadata.name ?? "");
      const stored = services.put(group, resource, object);
      services.writes.push({ verb: "update", group, resource, object: stored });
      return stored;
    },
    async authorize(attributes) {
      services.asked.push(attributes);
      return options.decide ? options.decide(attributes) : { decision: "allow", reason: "" };
    },
    watchList(group, resource): LiveList {
      const prefix = `${group}/${resource}/`;
      return {
        items: () => [...objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([, o]) => o),
        generation: () => generation,
        ready: async () => {},
      };
    },
    log(message) {
      services.logged.push(message);
    },
  };
  return services;
}

/** What {@link attributesFor} needs; the rest is derived from `type`. */
export interface AttributesInput {
  operation: Operation;
  type: ResourceType;
  object?: APIObject;
  oldObject?: APIObject;
  namespace?: string;
  name?: string;
  subresource?: string;
  /** The kind of `object` when it is not `type`'s (a sub-resource action's). */
  kind?: { group: string; version: string; kind: string };
  user?: Partial<RequestUser>;
  dryRun?: boolean;
  options?: Record<string, unknown>;
  domain?: string;
}

/** Admission attributes for a write of `input.type` (groups resolved with `orch.io` unless `domain`). */
export function attributesFor(input: AttributesInput): AdmissionAttributes {
  const group = resolveGroup(input.type.group, input.domain ?? "orch.io");
  const version = input.type.versions.find((v) => v.storage)?.name ?? "v1";
  const object = input.object ? structuredClone(input.object) : undefined;
  const oldObject = input.oldObject ? structuredClone(input.oldObject) : undefined;
  const kind = input.kind ?? { group, version, kind: input.type.kind };
  const resource = { group, version, resource: input.type.resource };
  return {
    operation: input.operation,
    kind,
    resource,
    subresource: input.subresource ?? "",
    requestKind: kind,
    requestResource: resource,
    name: input.name ?? object?.metadata.name ?? oldObject?.metadata.name ?? "",
    namespace: input.namespace ?? object?.metadata.namespace ?? oldObject?.metadata.namespace ?? "",
    type: input.type,
    object,
    oldObject,
    options: input.options,
    dryRun: input.dryRun ?? false,
    user: { name: "alice", groups: ["system:authenticated"], ...input.user },
    warnings: [],
    auditAnnotations: {},
    reinvocation: { isReinvoke: false, shouldReinvoke: false, data: new Map() },
  };
}

/**
 * The StatusError an admission call refuses with: `run` makes the call (`plugin.validate?.(attrs)`)
 * and may throw or return a promise that rejects; `undefined` when it succeeds.
 * @throws what the call throws when that is not a StatusError.
 */
export async function statusErrorOf(run: () => unknown): Promise<StatusError | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
}
