/**
 * The command line of `orch-controller-manager`, parsed as `orch-apiserver`'s is.
 * @module
 */
import { controllersOptions, controllersUsage, parseControllersFlags, type ControllersFlags } from "./controllers-flags.js";
import { isDNS1123Label } from "@orch/meta";
import { booleanValues, failFlag, FlagError, parseDomain, parseOptions, stringValue, durationValue } from "./flags.js";

/** The parsed command line of `orch-controller-manager`. */
export interface ControllerManagerFlags {
  /** `--help`: print {@link controllerManagerUsage} and exit 0. */
  help: boolean;
  /** `--kubeconfig`: how to reach the API server (its URL, CA and credentials); required. */
  kubeconfig: string;
  /** `--domain`: the product domain of the server (`orch.io`). */
  domain: string;
  /** `--leader-elect` (`true`): run the controllers only while holding the leader Lease. */
  leaderElect: boolean;
  /** `--leader-elect-lease-namespace`: the Lease's namespace; unset, `<short>-system` of the domain. */
  leaderElectLeaseNamespace?: string;
  /** The controller flags: which loops run, and the cluster signing CA. */
  controllers: ControllersFlags;
}

/** The text `orch-controller-manager --help` prints. */
export const controllerManagerUsage = `Usage: orch-controller-manager --kubeconfig <file> [flags]

Runs the orch control loops against an API server, while holding the leader Lease <short>-controller-manager.
Start that server with an empty --controllers= so that only this process acts.

Flags:
      --kubeconfig string                 kubeconfig file of the API server to run against (required)
      --domain string                     product domain of the server's groups (default "orch.io")
      --leader-elect                      run the loops only while holding the leader Lease (default true)
      --leader-elect-lease-namespace string
                                          namespace of the leader Lease (default "<short>-system": orch-system,
                                          kube-system with --domain k8s.io)
  -h, --help                              print this help
${controllersUsage}`;

/**
 * Parses the arguments of `orch-controller-manager` (without the node and script paths).
 * @throws FlagError on an unknown flag, a missing value or `--kubeconfig`, or a bad value
 * @example
 * ```ts
 * parseControllerManagerFlags(["--kubeconfig", "admin.conf", "--leader-elect=false"]).leaderElect; // false
 * ```
 */
export function parseControllerManagerFlags(argv: readonly string[]): ControllerManagerFlags {
  const args = argv[0] === "--" ? argv.slice(1) : argv;
  const booleans = booleanValues(args, ["leader-elect"]);
  const values = parseOptions(booleans.args, {
    help: { type: "boolean", short: "h" },
    kubeconfig: { type: "string" },
    domain: { type: "string" },
    "leader-elect": { type: "boolean" },
    "leader-elect-lease-namespace": { type: "string" },
    ...controllersOptions,
  });
  const str = stringValue(values);
  const help = values["help"] === true;
  const kubeconfig = str("kubeconfig") ?? "";
  if (kubeconfig === "" && !help) throw new FlagError("--kubeconfig is required");
  const flags: ControllerManagerFlags = {
    help,
    kubeconfig,
    domain: parseDomain(str("domain")),
    leaderElect: !booleans.explicitFalse.has("leader-elect"),
    controllers: parseControllersFlags(values, durationValue(str), failFlag),
  };
  const namespace = str("leader-elect-lease-namespace");
  if (namespace !== undefined) {
    if (!isDNS1123Label(namespace)) throw new FlagError(`invalid --leader-elect-lease-namespace "${namespace}": want a namespace name`);
    flags.leaderElectLeaseNamespace = namespace;
  }
  return flags;
}
