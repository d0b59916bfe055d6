/**
 * The PodSecurity plugin's configuration: a PodSecurityConfiguration
 * (`pod-security.admission.config.<domain>/v1`, also `v1beta1` and `v1alpha1`) with the policy of
 * namespaces that carry no labels (`defaults`, each mode `privileged:latest` unless set) and the
 * exemptions (`usernames`, `runtimeClasses`, `namespaces`), validated as the reference does.
 * @module
 */
import { FieldPath, duplicateField, formatFieldError, invalidField, validateDNS1123Label, validateDNS1123Subdomain, type FieldError } from "@orch/meta";
import { list, record } from "../internal/json.js";
import { latestVersion, levelMessage, parseLevel, parseVersion, versionMessage, type Level, type Policy, type Version } from "./levels.js";

/** A parsed, valid configuration. */
export interface PodSecurityConfiguration {
  /** The policy of a namespace without labels. */
  readonly defaults: Policy;
  /** Users whose requests are not evaluated. */
  readonly exemptUsernames: ReadonlySet<string>;
  /** Namespaces whose pods are not evaluated. */
  readonly exemptNamespaces: ReadonlySet<string>;
  /** Runtime classes whose pods are not evaluated. */
  readonly exemptRuntimeClasses: ReadonlySet<string>;
}

/** The apiVersions a PodSecurityConfiguration may carry. */
export function podSecurityConfigurationVersions(domain: string): string[] {
  return ["v1", "v1beta1", "v1alpha1"].map((v) => `pod-security.admission.config.${domain}/${v}`);
}

const defaultsPath = FieldPath.root("defaults");
const exemptionsPath = FieldPath.root("exemptions");

function setting(defaults: Record<string, unknown>, key: string, fallback: string): string {
  const value = defaults[key];
  return typeof value === "string" && value !== "" ? value : fallback;
}

function parseDefaults(defaults: Record<string, unknown>, errors: FieldError[]): Policy {
  const level = (key: string): Level => {
    const value = setting(defaults, key, "privileged");
    const parsed = parseLevel(value);
    if (!parsed) errors.push(invalidField(defaultsPath.child(key), value, levelMessage));
    return parsed ?? "restricted";
  };
  const version = (key: string): Version => {
    const value = setting(defaults, key, "latest");
    const parsed = parseVersion(value);
    if (parsed === undefined) errors.push(invalidField(defaultsPath.child(key), value, versionMessage));
    return parsed ?? latestVersion;
  };
  const enforce = { level: level("enforce"), version: version("enforce-version") };
  const warn = { level: level("warn"), version: version("warn-version") };
  const audit = { level: level("audit"), version: version("audit-version") };
  return { enforce, audit, warn };
}

function parseList(
  exemptions: Record<string, unknown>,
  key: string,
  errors: FieldError[],
  check: (value: string, path: FieldPath) => FieldError[],
): Set<string> {
  const out = new Set<string>();
  list(exemptions[key]).forEach((item, i) => {
    const path = exemptionsPath.child(key).index(i);
    const value = typeof item === "string" ? item : "";
    const problems = check(value, path);
    if (problems.length) errors.push(invalidField(path, value, problems.map((p) => p.detail).join(", ")));
    else if (out.has(value)) errors.push(duplicateField(path, value));
    else out.add(value);
  });
  return out;
}

function checkKind(doc: Record<string, unknown>, domain: string): void {
  const versions = podSecurityConfigurationVersions(domain);
  if (doc["kind"] === "PodSecurityConfiguration" && versions.includes(String(doc["apiVersion"]))) return;
  throw new Error(
    `PodSecurity configuration error: expected kind PodSecurityConfiguration in ${versions.join(", ")}, not ${JSON.stringify(doc["kind"] ?? "")} in ${JSON.stringify(doc["apiVersion"] ?? "")}`,
  );
}

const username = (value: string, path: FieldPath): FieldError[] => (value === "" ? [invalidField(path, value, "username must not be empty")] : []);

/**
 * Parses the plugin's configuration; `undefined` (no configuration) gives every mode
 * `privileged:latest` and no exemptions.
 * @throws Error `PodSecurity invalid: <errors>` for another kind or apiVersion, a bad level or
 *   version, an exempt namespace that is not a DNS label, a runtime class that is not a DNS
 *   subdomain, an empty user name, or a duplicate.
 */
export function parsePodSecurityConfiguration(configuration: unknown, domain: string): PodSecurityConfiguration {
  const errors: FieldError[] = [];
  const doc = configuration === undefined || configuration === null ? undefined : record(configuration);
  if (doc) checkKind(doc, domain);
  else if (configuration !== undefined && configuration !== null)
    throw new Error("PodSecurity configuration error: expected a PodSecurityConfiguration object");
  const defaults = parseDefaults(record(doc?.["defaults"]) ?? {}, errors);
  const exemptions = record(doc?.["exemptions"]) ?? {};
  const exemptNamespaces = parseList(exemptions, "namespaces", errors, validateDNS1123Label);
  const exemptRuntimeClasses = parseList(exemptions, "runtimeClasses", errors, validateDNS1123Subdomain);
  const exemptUsernames = parseList(exemptions, "usernames", errors, username);
  if (errors.length) {
    const printed = errors.map(formatFieldError);
    throw new Error(`PodSecurity invalid: ${printed.length === 1 ? printed[0] : `[${printed.join(", ")}]`}`);
  }
  return { defaults, exemptUsernames, exemptNamespaces, exemptRuntimeClasses };
}
