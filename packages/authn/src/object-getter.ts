/**
 * How authenticators read objects of the server they run in (bootstrap-token Secrets, the
 * ServiceAccount, Pod, Secret or Node a token is bound to), without depending on the server.
 * @module
 */
import type { APIObject } from "@orch/meta";

/**
 * Reads one stored object: `group` is `""` for the core group, `namespace` is `""` for
 * cluster-scoped resources. Resolves with `undefined` when there is no such object; rejects only
 * when the store cannot answer.
 */
export type ObjectGetter = (group: string, resource: string, namespace: string, name: string) => Promise<APIObject | undefined>;
