/**
 * `orch-controller-manager`: the orch control loops in a process of their own, against the API
 * server a kubeconfig names, while holding the leader Lease; stopped gracefully on SIGTERM or
 * SIGINT.
 * @module
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import process from "node:process";
import { ControllerManager, builtinControllers, type ControllerDescriptor, type ControllerManagerOptions } from "@orch/controllers";
import { clientFromConfig } from "@orch/node";
import { parseControllerManagerFlags, controllerManagerUsage } from "./controller-manager-flags.js";
import { componentNames, loadClusterSigning, selectedControllers } from "./controllers.js";
import { FlagError } from "./flags.js";
import { exitWhenStopped, untilStopped } from "./internal/until-stopped.js";
import type { Output } from "./main.js";

/** Options of {@link runControllerManager}. */
export interface ControllerManagerRunOptions {
  /** Receives the one ready line (and `--help`). */
  stdout: Output;
  /** Receives errors and the controllers' log lines. */
  stderr: Output;
  /** Stops the manager when aborted. Without it, SIGTERM and SIGINT do. */
  signal?: AbortSignal;
  /** The controllers `--controllers` selects from; `builtinControllers` of `@orch/controllers` by default. */
  controllers?: readonly ControllerDescriptor[];
}

/** The CA `orch-apiserver` generates under its default data directory, when it is there. */
async function defaultSigningCA(): Promise<{ caCertPem: string; caKeyPem: string } | undefined> {
  try {
    const [caCertPem, caKeyPem] = await Promise.all([readFile(".orch/ca.crt", "utf8"), readFile(".orch/ca.key", "utf8")]);
    return { caCertPem, caKeyPem };
  } catch {
    return undefined;
  }
}

/**
 * Runs `orch-controller-manager` with `argv` (the arguments after the command name) and
 * resolves with the exit code once it has stopped: 0 after a graceful stop or `--help`, 2 for a
 * bad command line (an unknown controller included), 1 when the kubeconfig or
 * a signing file cannot be read.
 *
 * The client reaches the server of the kubeconfig's current context over HTTPS with its CA,
 * client certificate and key or token. With `--leader-elect` (the default) the controllers run
 * only while this process holds Lease `<short>-controller-manager` (`kube-controller-manager`
 * under `k8s.io`) in `--leader-elect-lease-namespace`; stopping releases it. The CSR signer
 * signs with `--cluster-signing-cert-file`/`--cluster-signing-key-file`, by default
 * `.orch/ca.crt` and `.orch/ca.key` (what `orch-apiserver` generates with its default data
 * directory) when they exist.
 *
 * Once campaigning (or, without leader election, running), it prints exactly one line to
 * `stdout`: `orch-controller-manager ready`.
 */
export async function runControllerManager(argv: readonly string[], options: ControllerManagerRunOptions): Promise<number> {
  let flags;
  let selection: string[];
  try {
    flags = parseControllerManagerFlags(argv);
    selection = flags.help ? [] : selectedControllers(flags.controllers.controllers, options.controllers ?? builtinControllers);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    options.stderr.write(`orch-controller-manager: ${error.message}\nRun 'orch-controller-manager --help' for usage.\n`);
    return 2;
  }
  if (flags.help) {
    options.stdout.write(controllerManagerUsage);
    return 0;
  }
  const log = (message: string) => options.stderr.write(`orch-controller-manager: ${message}\n`);
  const stop = untilStopped(options.signal);
  let manager: ControllerManager | undefined;
  let closeClient = (): void => undefined;
  try {
    const configured = await clientFromConfig({ kubeconfig: flags.kubeconfig, client: { domain: flags.domain, userAgent: "orch-controller-manager" } });
    closeClient = configured.close;
    const client = configured.client;
    const signing = await loadClusterSigning(flags.controllers, defaultSigningCA);
    const names = componentNames(flags.domain);
    const managerOptions: ControllerManagerOptions = { client, controllers: options.controllers ?? builtinControllers, selection, log };
    if (signing) managerOptions.signing = signing;
    if (flags.leaderElect) {
      managerOptions.leaderElection = {
        namespace: flags.leaderElectLeaseNamespace ?? names.systemNamespace,
        name: names.controllerManager,
        identity: `${hostname()}_${randomUUID()}`,
      };
    }
    manager = new ControllerManager(managerOptions);
    manager.start();
    options.stdout.write("orch-controller-manager ready\n");
    await stop.stopped;
    await manager.stop();
    return 0;
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    await manager?.stop();
    return 1;
  } finally {
    closeClient();
    stop.dispose();
  }
}

/**
 * The process entry of the `orch-controller-manager` bin: runs {@link runControllerManager} on
 * `process.argv` with the process's stdout and stderr, and exits with its code.
 */
export async function controllerManagerMain(): Promise<never> {
  return exitWhenStopped((signal) => runControllerManager(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, signal }));
}
