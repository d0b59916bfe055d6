/**
 * The `--admission-control-config-file`: an AdmissionConfiguration
 * (`apiserver.config.<domain>/v1`, YAML or JSON) giving plugins their configuration, inline
 * (`configuration`) or in a file of its own (`path`, relative to the AdmissionConfiguration's
 * directory).
 * @module
 */
import { parse } from "yaml";
import { record } from "./internal/json.js";

/** One plugin's entry. */
export interface AdmissionPluginConfiguration {
  /** The plugin's name. */
  name: string;
  /** A file holding the configuration (relative paths against the AdmissionConfiguration's directory). */
  path?: string;
  /** The configuration itself. */
  configuration?: unknown;
}

/** A parsed AdmissionConfiguration. */
export interface AdmissionConfiguration {
  plugins: AdmissionPluginConfiguration[];
}

/** The apiVersions an AdmissionConfiguration may carry (the current one and the superseded ones). */
export function admissionConfigurationVersions(domain: string): string[] {
  return [`apiserver.config.${domain}/v1`, `apiserver.config.${domain}/v1alpha1`, `apiserver.${domain}/v1alpha1`];
}

/**
 * Parses a configuration document (YAML or JSON) into a plain object.
 * @throws Error with the parser's message.
 */
export function parseConfigurationDocument(text: string): unknown {
  return parse(text, { uniqueKeys: true });
}

/**
 * Parses an AdmissionConfiguration.
 * @throws Error for text that is not YAML or JSON, another kind or apiVersion, or a plugin entry
 *   without a name or with both (or neither) of `path` and `configuration`.
 */
export function parseAdmissionConfiguration(text: string, domain: string): AdmissionConfiguration {
  const doc = record(parseConfigurationDocument(text));
  if (!doc) throw new Error("not an AdmissionConfiguration object");
  const versions = admissionConfigurationVersions(domain);
  if (doc["kind"] !== "AdmissionConfiguration") throw new Error(`kind must be AdmissionConfiguration, not ${JSON.stringify(doc["kind"])}`);
  if (typeof doc["apiVersion"] !== "string" || !versions.includes(doc["apiVersion"])) {
    throw new Error(`apiVersion must be ${versions[0]}, not ${JSON.stringify(doc["apiVersion"])}`);
  }
  const entries = doc["plugins"] ?? [];
  if (!Array.isArray(entries)) throw new Error("plugins must be a list");
  const plugins = entries.map((entry, i): AdmissionPluginConfiguration => {
    const e = record(entry);
    if (!e || typeof e["name"] !== "string" || !e["name"]) throw new Error(`plugins[${i}].name is required`);
    const hasPath = typeof e["path"] === "string" && e["path"] !== "";
    const hasConfiguration = e["configuration"] !== undefined && e["configuration"] !== null;
    if (hasPath && hasConfiguration) throw new Error(`plugins[${i}] (${e["name"]}) sets both path and configuration`);
    const out: AdmissionPluginConfiguration = { name: e["name"] };
    if (hasPath) out.path = e["path"] as string;
    if (hasConfiguration) out.configuration = e["configuration"];
    return out;
  });
  return { plugins };
}
