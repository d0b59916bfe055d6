/**
 * The {@link ResourceRef}s of the kinds every orch server serves, for {@link Client.resource}
 * and the typed accessors of {@link Client}.
 * @module
 */
import type { ResourceRef } from "./resource-ref.js";

/** `configmaps` in the core group, `v1`. */
export const configMapsRef: ResourceRef = { group: "", version: "v1", resource: "configmaps", kind: "ConfigMap", namespaced: true };
/** `secrets` in the core group, `v1`. */
export const secretsRef: ResourceRef = { group: "", version: "v1", resource: "secrets", kind: "Secret", namespaced: true };
/** `namespaces` in the core group, `v1` (cluster-scoped). */
export const namespacesRef: ResourceRef = { group: "", version: "v1", resource: "namespaces", kind: "Namespace", namespaced: false };
/** `events` in the core group, `v1`. */
export const eventsRef: ResourceRef = { group: "", version: "v1", resource: "events", kind: "Event", namespaced: true };
/** `leases` in `coordination.{domain}`, `v1`. */
export const leasesRef: ResourceRef = { group: "coordination.{domain}", version: "v1", resource: "leases", kind: "Lease", namespaced: true };
