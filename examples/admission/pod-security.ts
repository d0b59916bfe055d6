/**
 * PodSecurity: a namespace labelled `pod-security.orch.io/enforce: restricted` refuses a Pod
 * that runs privileged, naming every rule it breaks; a Pod that follows the restricted profile
 * is created.
 * @module
 */
import { Client, inProcessTransport, namespacesRef } from "@orch/client";
import { APIServer } from "@orch/server";
import { pods, refusal } from "./kinds.js";
import { startInProcessControllers } from "@orch/controllers";

/** What the example saw. */
export interface PodSecurityResult {
  privileged: string;
  restricted: string;
}

/** Creates a privileged and a restricted Pod in a restricted namespace. */
export async function podSecurity(log: (line: string) => void = console.log): Promise<PodSecurityResult> {
  const server = new APIServer();
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  try {
    const client = new Client({ transport: inProcessTransport(server) });
    await client.resource(namespacesRef).create({ metadata: { name: "locked", labels: { "pod-security.orch.io/enforce": "restricted" } } });
    const privileged = await client
      .resource(pods)
      .create(
        { metadata: { name: "root" }, spec: { containers: [{ name: "app", image: "registry.example/app:1.0", securityContext: { privileged: true } }] } },
        { namespace: "locked" },
      )
      .then(() => "created", refusal);
    log(`root: ${privileged}`);
    const restricted = await client
      .resource(pods)
      .create(
        {
          metadata: { name: "calm" },
          spec: {
            securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
            containers: [
              { name: "app", image: "registry.example/app:1.0", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } },
            ],
          },
        },
        { namespace: "locked" },
      )
      .then(() => "created", refusal);
    log(`calm: ${restricted}`);
    return { privileged, restricted };
  } finally {
    await controllers.stop();
    await server.shutdown();
  }
}
