/**
 * NamespaceLifecycle: no writes into a namespace that does not exist (404), no new objects in a
 * namespace being deleted (403), and no deletion of the namespaces the server keeps (`default`,
 * `<short>-system`, `<short>-public`). As the reference, it reads the namespace from a
 * watch-kept view and reads it live when the view does not know it, or when this server just
 * deleted it and the view may not show that yet.
 * @module
 */
import { forbidden, notFound, type StatusError } from "@orch/meta";
import { builtinNamespaces } from "@orch/resources";
import type { AdmissionAttributes } from "../attributes.js";
import { CachedLookup, isTerminating, namespacesResource, outsideNamespaces, writesNamespace } from "../internal/namespace-cache.js";
import { admissionForbidden, passedAtOnce, type AdmissionPlugin, type PluginFactory } from "../plugin.js";
import type { AdmissionServices } from "../services.js";

/** How long after a namespace's DELETE its lookups skip the view (the reference's `forceLiveLookupTTL`). */
const forceLiveLookupMs = 30_000;

/** The resource of access reviews (in the group `authorization.<domain>`). */
const accessReviewResource = "localsubjectaccessreviews";

/** The reason of the cause a refusal in a terminating namespace carries (the reference's `NamespaceTerminatingCause`). */
const namespaceTerminatingCause = "NamespaceTerminating";

/** The refusal of a create in a terminating namespace, with the reference's cause. */
function terminatingError(attrs: AdmissionAttributes): StatusError {
  const error = forbidden(
    { group: attrs.resource.group, resource: attrs.resource.resource },
    attrs.name,
    `unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
  );
  const details = (error.status.details ??= {});
  details.causes = [
    ...(details.causes ?? []),
    { reason: namespaceTerminatingCause, message: `namespace ${attrs.namespace} is being terminated`, field: "metadata.namespace" },
  ];
  return error;
}

class NamespaceLifecycle implements AdmissionPlugin {
  readonly name = "NamespaceLifecycle";
  readonly operations = ["CREATE", "UPDATE", "DELETE"] as const;
  readonly #services: AdmissionServices;
  readonly #namespaces: CachedLookup;
  readonly #immortal: ReadonlySet<string>;
  /** The group of access reviews: answering 404 for them would tell which namespaces exist. */
  readonly #accessReviewGroup: string;
  /** Namespaces deleted lately through this server, with when their forced live reads end. */
  readonly #forceLive = new Map<string, number>();

  constructor(services: AdmissionServices) {
    this.#services = services;
    this.#namespaces = new CachedLookup(services, "", "namespaces");
    this.#immortal = new Set(builtinNamespaces(services.domain));
    this.#accessReviewGroup = `authorization.${services.domain}`;
  }

  ready(): Promise<void> {
    return this.#namespaces.ready();
  }

  /**
   * Answers with the shared {@link passedAtOnce} on the common path (the namespace is in the
   * watch-kept view and not forced live), which the chain does not await; a refusal is a rejected
   * promise, as from an `async` step.
   */
  admit(attrs: AdmissionAttributes): Promise<void> {
    try {
      if (attrs.operation === "DELETE" && writesNamespace(attrs) && this.#immortal.has(attrs.name)) {
        throw admissionForbidden(attrs, "this namespace may not be deleted");
      }
      if (outsideNamespaces(attrs)) {
        if (attrs.operation === "DELETE" && writesNamespace(attrs)) this.#markDeleted(attrs.name);
        return passedAtOnce;
      }
      if (attrs.operation === "DELETE") return passedAtOnce;
      if (attrs.resource.resource === accessReviewResource && attrs.resource.group === this.#accessReviewGroup) return passedAtOnce;
      const namespace = this.#namespaces.cached("", attrs.namespace);
      if (!namespace || (!isTerminating(namespace) && this.#forcedLive(attrs.namespace))) return this.#admitLive(attrs);
      if (attrs.operation === "CREATE" && isTerminating(namespace)) throw terminatingError(attrs);
      return passedAtOnce;
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The end of {@link admit} when the namespace has to be read live. */
  async #admitLive(attrs: AdmissionAttributes): Promise<void> {
    const namespace = await this.#namespaces.live("", attrs.namespace);
    if (!namespace) throw notFound(namespacesResource, attrs.namespace);
    if (attrs.operation === "CREATE" && isTerminating(namespace)) throw terminatingError(attrs);
  }

  #markDeleted(name: string): void {
    const now = this.#services.now();
    for (const [ns, until] of this.#forceLive) if (until <= now) this.#forceLive.delete(ns);
    this.#forceLive.set(name, now + forceLiveLookupMs);
  }

  #forcedLive(name: string): boolean {
    const until = this.#forceLive.get(name);
    return until !== undefined && until > this.#services.now();
  }
}

/**
 * The NamespaceLifecycle plugin (mutating phase; CREATE, UPDATE, DELETE):
 * - DELETE of `default`, `<short>-system` or `<short>-public`: 403
 *   `namespaces "default" is forbidden: this namespace may not be deleted`;
 * - CREATE or UPDATE of a namespaced object in a missing namespace: 404 `namespaces "x" not found`;
 * - CREATE in a terminating namespace: 403 `<resource> "<name>" is forbidden: unable to create new
 *   content in namespace x because it is being terminated` (cause `NamespaceTerminating`).
 * Deletes of namespaced objects, Namespace objects, cluster-scoped objects and
 * LocalSubjectAccessReviews pass.
 */
export const namespaceLifecycle: PluginFactory = ({ services }) => new NamespaceLifecycle(services);
