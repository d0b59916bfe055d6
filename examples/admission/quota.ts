/**
 * A ResourceQuota: at most two Pods in `team-a`. The third create is refused with the quota's
 * figures; the quota's `status.used` follows creates at once and deletes within moments.
 * @module
 */
import { Client, inProcessTransport, namespacesRef } from "@orch/client";
import { APIServer } from "@orch/server";
import { pod, pods, refusal, resourceQuotas } from "./kinds.js";
import { startInProcessControllers } from "@orch/controllers";

/** What the example saw. */
export interface QuotaResult {
  third: string;
  usedAfterCreates: unknown;
  usedAfterDelete: unknown;
}

/** Fills the quota, goes over it, then frees one place. */
export async function podQuota(log: (line: string) => void = console.log): Promise<QuotaResult> {
  const server = new APIServer();
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  try {
    const client = new Client({ transport: inProcessTransport(server) });
    await client.resource(namespacesRef).create({ metadata: { name: "team-a" } });
    await client.resource(resourceQuotas).create({ metadata: { name: "pods" }, spec: { hard: { pods: "2" } } }, { namespace: "team-a" });
    const statusOf = async () =>
      ((await client.resource(resourceQuotas).get("pods", { namespace: "team-a" })) as { status?: { hard?: unknown; used?: unknown } }).status;
    const usedOf = async () => (await statusOf())?.used;
    // The quota controller fills in status.hard within moments (a quota constrains nothing before).
    for (let i = 0; i < 100 && !(await statusOf())?.hard; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    // The default ServiceAccount of a new namespace comes moments after it: the first create may wait for it.
    for (const name of ["web-0", "web-1"]) await client.resource(pods).create(pod(name), { namespace: "team-a" });
    const third = await client
      .resource(pods)
      .create(pod("web-2"), { namespace: "team-a" })
      .then(() => "created", refusal);
    log(`web-2: ${third}`);
    const usedAfterCreates = await usedOf();
    log(`used after two creates: ${JSON.stringify(usedAfterCreates)}`);
    await client.resource(pods).delete("web-0", { namespace: "team-a" });
    let usedAfterDelete = await usedOf();
    for (let i = 0; i < 100 && JSON.stringify(usedAfterDelete) === JSON.stringify(usedAfterCreates); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      usedAfterDelete = await usedOf();
    }
    log(`used after a delete: ${JSON.stringify(usedAfterDelete)}`);
    return { third, usedAfterCreates, usedAfterDelete };
  } finally {
    await controllers.stop();
    await server.shutdown();
  }
}
