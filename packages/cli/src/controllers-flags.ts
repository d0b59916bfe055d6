/**
 * The controller flags `orch-apiserver` and `orch-controller-manager` share, as the reference's
 * `kube-controller-manager` names them: `--controllers` and the cluster signing CA.
 * @module
 */
import { commaList, type FlagFailure } from "./authentication-flags.js";

/** The parsed controller flags. */
export interface ControllersFlags {
  /**
   * `--controllers` (`*`): the selection's entries as given (`*`, `name`, `-name`); which names
   * exist is checked against the controllers the command can run, once they are loaded.
   */
  controllers: string[];
  /** `--cluster-signing-cert-file`: the CA certificate that signs CSRs; unset, the CA `orch-apiserver` generates. */
  clusterSigningCertFile?: string;
  /** `--cluster-signing-key-file`: that CA's key; goes with `--cluster-signing-cert-file`. */
  clusterSigningKeyFile?: string;
  /** `--cluster-signing-duration` in milliseconds (`8760h`, one year): the longest lifetime of a signed certificate. */
  clusterSigningDurationMs: number;
}

/** The `parseArgs` options of the controller flags. */
export const controllersOptions = {
  controllers: { type: "string", multiple: true },
  "cluster-signing-cert-file": { type: "string" },
  "cluster-signing-key-file": { type: "string" },
  "cluster-signing-duration": { type: "string" },
} as const;

/** The usage lines of the controller flags. */
export const controllersUsage = `
Controllers:
      --controllers strings               control loops to run, comma-separated (repeatable): '*' runs every
                                          loop on by default, 'name' runs one, '-name' turns one off
                                          (tokencleaner and bootstrapsigner run only when named) (default "*")
      --cluster-signing-cert-file string  PEM CA certificate the CSR signer signs with (with --cluster-signing-key-file)
      --cluster-signing-key-file string   PEM private key of that CA
      --cluster-signing-duration duration longest lifetime of a certificate the CSR signer issues (default 8760h0m0s)
`;

/** The default of `--cluster-signing-duration`: one year. */
export const defaultClusterSigningDurationMs = 8760 * 3_600_000;

/** Parses the controller flags from `parseArgs` values. */
export function parseControllersFlags(
  values: Record<string, unknown>,
  duration: (name: string, fallback: number) => number,
  fail: FlagFailure,
): ControllersFlags {
  const raw = values["controllers"];
  const given = Array.isArray(raw) ? raw.map(String) : ["*"];
  const controllers = given.flatMap(commaList);
  const flags: ControllersFlags = { controllers, clusterSigningDurationMs: duration("cluster-signing-duration", defaultClusterSigningDurationMs) };
  const cert = values["cluster-signing-cert-file"];
  const key = values["cluster-signing-key-file"];
  for (const [name, v] of [
    ["cluster-signing-cert-file", cert],
    ["cluster-signing-key-file", key],
  ] as const) {
    if (v === "") fail(`invalid --${name}: empty`);
  }
  if ((typeof cert === "string") !== (typeof key === "string")) fail("--cluster-signing-cert-file and --cluster-signing-key-file go together");
  if (typeof cert === "string") flags.clusterSigningCertFile = cert;
  if (typeof key === "string") flags.clusterSigningKeyFile = key;
  return flags;
}
