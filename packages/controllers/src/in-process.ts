/**
 * {@link startInProcessControllers}: the control loops beside an embedded `APIServer`, talking
 * to it through the in-process transport of `@orch/client` as the controller manager's user.
 * What `orch-apiserver` does at start, for a program that embeds the server itself.
 * @module
 */
import { Client, inProcessTransport, type InProcessServer } from "@orch/client";
import { systemClock, type Clock } from "@orch/store";
import { builtinControllers } from "./builtin-controllers.js";
import type { ClusterSigning, ControllerDescriptor } from "./controller.js";
import { ControllerManager } from "./controller-manager.js";

/**
 * `system:<short>-controller-manager`, the user the controller manager acts as (the RBAC
 * bootstrap policy binds it), where `<short>` is `kube` under `k8s.io`, else the domain's
 * first label: `system:orch-controller-manager`.
 */
export function controllerManagerUser(domain: string): string {
  const short = domain === "k8s.io" ? "kube" : (domain.split(".")[0] ?? "orch");
  return `system:${short}-controller-manager`;
}

/** Options of {@link startInProcessControllers}. */
export interface InProcessControllersOptions {
  /** The `--controllers` selection; `*` (every default-on loop) by default. */
  selection?: string | readonly string[];
  /** The controllers to select from; {@link builtinControllers} by default. */
  controllers?: readonly ControllerDescriptor[];
  /** The server's product domain; the server's `domain` by default, else `orch.io`. */
  domain?: string;
  /** Time and timers of the loops; the server's `clock` by default, else the system clock. */
  clock?: Clock;
  /** Receives the loops' log lines. */
  log?(message: string): void;
  /** The cluster signing CA of the CSR signer; without it `csrsigning` signs nothing. */
  signing?: ClusterSigning;
}

/**
 * Starts a {@link ControllerManager} (no leader election: it is the only one) on an in-process
 * client of `server`, acting as {@link controllerManagerUser} in `system:masters`, and returns
 * it; `await manager.stop()` before the server shuts down. This is what makes a terminating
 * namespace go away, gives every namespace its `default` ServiceAccount, keeps quota usage and
 * aggregated ClusterRoles current and collects garbage in a program that embeds `APIServer`.
 *
 * @example
 * ```ts
 * const server = new APIServer();
 * await server.ready();
 * const controllers = startInProcessControllers(server);
 * // ...
 * await controllers.stop();
 * await server.shutdown();
 * ```
 */
export function startInProcessControllers(
  server: InProcessServer & { readonly domain?: string; readonly clock?: Clock },
  options: InProcessControllersOptions = {},
): ControllerManager {
  const domain = options.domain ?? server.domain ?? "orch.io";
  const user = { name: controllerManagerUser(domain), groups: ["system:masters"] };
  const client = new Client({ transport: inProcessTransport(server, { user }), domain, userAgent: "orch-controller-manager" });
  const manager = new ControllerManager({
    client,
    controllers: options.controllers ?? builtinControllers,
    selection: options.selection ?? "*",
    clock: options.clock ?? server.clock ?? systemClock,
    ...(options.log ? { log: options.log } : {}),
    ...(options.signing ? { signing: options.signing } : {}),
  });
  manager.start();
  return manager;
}
