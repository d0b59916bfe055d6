/**
 * The admission flags of `orch-apiserver`, as the reference names them.
 * @module
 */
import { commaList, type FlagFailure } from "./authentication-flags.js";

/** The parsed admission flags. */
export interface AdmissionFlags {
  /** `--enable-admission-plugins`: plugins on beyond the default-on set. */
  enable: string[];
  /** `--disable-admission-plugins`: default-on plugins turned off. */
  disable: string[];
  /** `--admission-control-config-file`: the AdmissionConfiguration file. */
  configFile?: string;
}

/** The `parseArgs` options of the admission flags. */
export const admissionOptions = {
  "enable-admission-plugins": { type: "string" },
  "disable-admission-plugins": { type: "string" },
  "admission-control-config-file": { type: "string" },
} as const;

/** The usage lines of the admission flags. */
export const admissionUsage = `
Admission:
      --enable-admission-plugins strings  plugins to run besides the default-on ones (NamespaceLifecycle,
                                          LimitRanger, ServiceAccount, TaintNodesByCondition, PodSecurity,
                                          Priority, StorageObjectInUseProtection, PersistentVolumeClaimResize,
                                          RuntimeClass, CertificateSubjectRestriction, MutatingAdmissionWebhook,
                                          ValidatingAdmissionWebhook, ResourceQuota); they run in a fixed order
                                          whatever the flag's order
      --disable-admission-plugins strings default-on plugins to turn off
      --admission-control-config-file string
                                          AdmissionConfiguration (apiserver.config.<domain>/v1) giving plugins
                                          their configuration, inline or by path
`;

const list = (value: unknown): string[] => (typeof value === "string" ? commaList(value) : []);

/** Parses the admission flags from `parseArgs` values (names are checked when the plugins are built). */
export function parseAdmissionFlags(values: Record<string, unknown>, fail: FlagFailure): AdmissionFlags {
  const flags: AdmissionFlags = { enable: list(values["enable-admission-plugins"]), disable: list(values["disable-admission-plugins"]) };
  const file = values["admission-control-config-file"];
  if (file !== undefined) {
    if (typeof file !== "string" || file === "") fail("invalid --admission-control-config-file: empty");
    flags.configFile = file as string;
  }
  return flags;
}
