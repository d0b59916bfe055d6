/**
 * Helpers of this package's tests.
 * @module
 */
import type { APIServer } from "../api-server.js";

/**
 * Creates the `default` ServiceAccount of `namespace`, as the `serviceaccount` controller of
 * `@orch/controllers` would: a test server runs no controllers, and the ServiceAccount
 * admission plugin refuses a Pod whose account is missing.
 * @throws Error when the server does not answer 201
 */
export async function createDefaultServiceAccount(server: APIServer, namespace = "default"): Promise<void> {
  const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default" } };
  const res = await server.handle({
    method: "POST",
    url: `/api/v1/namespaces/${namespace}/serviceaccounts`,
    headers: new Headers({ "content-type": "application/json" }),
    body: new TextEncoder().encode(JSON.stringify(account)),
  });
  if (res.status !== 201) throw new Error(`creating serviceaccount ${namespace}/default: ${res.status} ${String(res.body)}`);
}
