/**
 * How the commands read one `--controllers` selection with `selectControllers` of
 * `@orch/controllers`: `orch-apiserver` splits it between the loops the API server runs itself
 * and those of its in-process controller manager; `orch-controller-manager` refuses the
 * server's. Also the cluster signing CA both hand to the manager, and the names derived from
 * the domain.
 * @module
 */
import { readFile } from "node:fs/promises";
import { selectControllers, type ClusterSigning, type ControllerDescriptor } from "@orch/controllers";
import { builtinNamespaces } from "@orch/server";
import type { ControllersFlags } from "./controllers-flags.js";
import { FlagError } from "./flags.js";

/** A selection split by {@link splitControllers}. */
export interface ControllerSplit<S extends string> {
  /** The server's loops the selection turns off, each `false` (empty when all run), for `APIServerOptions.controllers`. */
  server: Partial<Record<S, boolean>>;
  /** The names the controller manager runs. */
  manager: string[];
}

/** `selectControllers` with its `TypeError` (an unknown name) as a {@link FlagError}. */
function select(selection: readonly string[], descriptors: readonly Pick<ControllerDescriptor, "name" | "enabledByDefault">[]): string[] {
  try {
    return selectControllers(selection, descriptors);
  } catch (error) {
    if (error instanceof TypeError) throw new FlagError(`invalid --controllers: ${error.message}`, { cause: error });
    throw error;
  }
}

/**
 * Splits `selection` (`*`, `name`, `-name`) between `serverNames`, the loops the API server runs
 * itself (on by default, as `*` has them), and the `manager` controllers.
 * @throws FlagError naming a controller that is in neither list
 * @example
 * ```ts
 * splitControllers(["*", "-namespace"], builtinControllers, serverControllerNames);
 * // { server: { namespace: false }, manager: ["garbagecollector", ...] }
 * ```
 */
export function splitControllers<S extends string>(selection: readonly string[], manager: readonly ControllerDescriptor[], serverNames: readonly S[]): ControllerSplit<S> {
  const enabled = new Set(select(selection, [...manager, ...serverNames.map((name) => ({ name, enabledByDefault: true }))]));
  const server: Partial<Record<S, boolean>> = {};
  for (const name of serverNames) if (!enabled.has(name)) server[name] = false;
  return { server, manager: manager.filter((d) => enabled.has(d.name)).map((d) => d.name) };
}

/**
 * The `manager` controllers `selection` enables in a separate controller manager, which cannot
 * run `serverNames` (the API server runs them): `*` leaves them out, and `-name` of one is
 * accepted and changes nothing.
 * @throws FlagError naming a controller that is in neither list, or naming one of `serverNames`
 */
export function managerControllers(selection: readonly string[], manager: readonly ControllerDescriptor[], serverNames: readonly string[]): string[] {
  const enabled = select(selection, [...manager, ...serverNames.map((name) => ({ name, enabledByDefault: false }))]);
  const hosted = enabled.filter((name) => serverNames.includes(name));
  if (hosted.length > 0) {
    throw new FlagError(`invalid --controllers: ${hosted.join(", ")} ${hosted.length === 1 ? "runs" : "run"} inside orch-apiserver and cannot run in orch-controller-manager`);
  }
  return enabled;
}

/**
 * The cluster signing CA of the flags: the PEM files `--cluster-signing-cert-file` and
 * `--cluster-signing-key-file` name, else `fallback` (the CA `orch-apiserver` generated), with
 * `--cluster-signing-duration`. `undefined` when neither is there.
 * @throws Error naming a file that cannot be read
 */
export async function loadClusterSigning(
  flags: ControllersFlags,
  fallback: () => Promise<{ caCertPem: string; caKeyPem: string } | undefined>,
): Promise<ClusterSigning | undefined> {
  const durationMs = flags.clusterSigningDurationMs;
  if (flags.clusterSigningCertFile === undefined || flags.clusterSigningKeyFile === undefined) {
    const ca = await fallback();
    return ca && { ...ca, durationMs };
  }
  const read = async (flag: string, path: string) => {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      throw new Error(`--${flag} ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  };
  const [caCertPem, caKeyPem] = await Promise.all([
    read("cluster-signing-cert-file", flags.clusterSigningCertFile),
    read("cluster-signing-key-file", flags.clusterSigningKeyFile),
  ]);
  return { caCertPem, caKeyPem, durationMs };
}

/** The names of the controller manager's parts for a product domain. */
export interface ComponentNames {
  /** `<short>-system`: where the leader Lease lives by default. */
  systemNamespace: string;
  /** `<short>-public`: where `cluster-info` lives. */
  publicNamespace: string;
  /** `<short>-controller-manager`: the leader Lease (`kube-controller-manager` under `k8s.io`). */
  controllerManager: string;
  /** `system:<short>-controller-manager`: the user the in-process controller manager acts as, as the RBAC bootstrap policy names it. */
  controllerManagerUser: string;
}

/** The {@link ComponentNames} of `domain`, where `<short>` is `kube` for `k8s.io`, else the domain's first label. */
export function componentNames(domain: string): ComponentNames {
  const [, systemNamespace = "orch-system", publicNamespace = "orch-public"] = builtinNamespaces(domain);
  const controllerManager = `${systemNamespace.replace(/-system$/, "")}-controller-manager`;
  return { systemNamespace, publicNamespace, controllerManager, controllerManagerUser: `system:${controllerManager}` };
}
