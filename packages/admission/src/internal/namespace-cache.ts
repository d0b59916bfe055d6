/**
 * Reads of the objects the namespace and service-account plugins decide from, as the
 * reference's informer listers and client lookups: a watch-kept view first (the reference's
 * lister), a live read when the view does not know the object (it may have just been created).
 * Not exported from the package.
 * @module
 */
import type { APIObject } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import type { AdmissionServices, LiveList } from "../services.js";

/** The namespaces resource (`""`, `namespaces`) as `StatusError` factories take it. */
export const namespacesResource = { group: "", resource: "namespaces" } as const;

/** A collection read from a watch-kept view, with a live read on a miss. */
export class CachedLookup {
  readonly #view: LiveList;
  #byKey = new Map<string, APIObject>();
  #generation = -1;

  /**
   * @param services the server's services
   * @param group the resolved group (`""` for core)
   * @param resource the resource (`namespaces`, `serviceaccounts`)
   */
  constructor(
    private readonly services: AdmissionServices,
    private readonly group: string,
    private readonly resource: string,
  ) {
    this.#view = services.watchList(group, resource);
  }

  /** Resolves once the view holds its first list. */
  ready(): Promise<void> {
    return this.#view.ready();
  }

  /** The object as the view knows it (possibly stale); `undefined` when the view does not. */
  cached(namespace: string, name: string): APIObject | undefined {
    if (this.#view.generation() !== this.#generation) {
      this.#generation = this.#view.generation();
      this.#byKey = new Map(this.#view.items().map((o) => [`${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`, o]));
    }
    return this.#byKey.get(`${namespace}/${name}`);
  }

  /** The object as stored now; `undefined` when missing. */
  live(namespace: string, name: string): Promise<APIObject | undefined> {
    return this.services.get(this.group, this.resource, namespace, name);
  }

  /** The cached object, else the stored one; `undefined` when neither exists. */
  async find(namespace: string, name: string): Promise<APIObject | undefined> {
    return this.cached(namespace, name) ?? (await this.live(namespace, name));
  }
}

/** True when `namespace` is being deleted (phase `Terminating`, or a deletion timestamp). */
export function isTerminating(namespace: APIObject): boolean {
  const status = namespace["status"] as { phase?: unknown } | undefined;
  return status?.phase === "Terminating" || Boolean(namespace.metadata.deletionTimestamp);
}

/** True when `attrs` writes the Namespace resource itself (or one of its sub-resources). */
export function writesNamespace(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === "" && attrs.resource.resource === "namespaces";
}

/**
 * True when the namespace plugins leave `attrs` alone: cluster-scoped writes (no namespace)
 * and writes of Namespace objects.
 */
export function outsideNamespaces(attrs: AdmissionAttributes): boolean {
  return attrs.namespace === "" || writesNamespace(attrs);
}
