/**
 * How the commands read one `--controllers` selection with `selectControllers` of
 * `@orch/controllers`, the cluster signing CA both hand to the controller manager, and the
 * names derived from the domain.
 * @module
 */
import { readFile } from "node:fs/promises";
import { controllerManagerUser, selectControllers, type ClusterSigning, type ControllerDescriptor } from "@orch/controllers";
import { builtinNamespaces } from "@orch/server";
import type { ControllersFlags } from "./controllers-flags.js";
import { FlagError } from "./flags.js";

/**
 * The names `selection` (`*`, `name`, `-name`) enables among `descriptors`: `selectControllers`
 * of `@orch/controllers` with its `TypeError` (an unknown name) as a {@link FlagError}.
 * @throws FlagError naming a controller that is not in `descriptors`
 * @example
 * ```ts
 * selectedControllers(["*", "-namespace"], builtinControllers); // ["garbagecollector", ...]
 * ```
 */
export function selectedControllers(selection: readonly string[], descriptors: readonly Pick<ControllerDescriptor, "name" | "enabledByDefault">[]): string[] {
  try {
    return selectControllers(selection, descriptors);
  } catch (error) {
    if (error instanceof TypeError) throw new FlagError(`invalid --controllers: ${error.message}`, { cause: error });
    throw error;
  }
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
  return { systemNamespace, publicNamespace, controllerManager, controllerManagerUser: controllerManagerUser(domain) };
}
