/**
 * Turns the admission flags into the `admission` option of an `APIServer`: the built-in plugins
 * the flags select, each plugin's configuration from the `--admission-control-config-file`
 * (inline or by `path`), and webhooks called over `node:https`.
 * @module
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseAdmissionConfiguration, parseConfigurationDocument, resolveAdmissionPlugins } from "@orch/admission";
import { httpsClient } from "@orch/node";
import type { AdmissionOptions } from "@orch/server";
import type { AdmissionFlags } from "./admission-flags.js";

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The `admission` option for `flags`.
 * @throws Error naming the flag or the file: an unknown, removed or doubly named plugin, an
 *   AdmissionConfiguration (or a plugin's configuration file) that cannot be read or parsed.
 */
export async function loadAdmission(flags: AdmissionFlags, options: { domain: string }): Promise<AdmissionOptions> {
  const plugins = resolveAdmissionPlugins(flags.enable, flags.disable);
  const configuration: Record<string, unknown> = {};
  let base = process.cwd();
  if (flags.configFile !== undefined) {
    const file = resolve(flags.configFile);
    base = dirname(file);
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new Error(`--admission-control-config-file ${flags.configFile}: ${message(error)}`, { cause: error });
    }
    let parsed;
    try {
      parsed = parseAdmissionConfiguration(text, options.domain);
    } catch (error) {
      throw new Error(`--admission-control-config-file ${flags.configFile}: ${message(error)}`, { cause: error });
    }
    for (const entry of parsed.plugins) {
      if (entry.path === undefined) {
        configuration[entry.name] = entry.configuration;
        continue;
      }
      const path = resolve(base, entry.path);
      try {
        configuration[entry.name] = parseConfigurationDocument(await readFile(path, "utf8"));
      } catch (error) {
        throw new Error(`--admission-control-config-file ${flags.configFile}: plugin ${entry.name}: ${path}: ${message(error)}`, { cause: error });
      }
    }
  }
  return {
    plugins,
    configuration,
    transport: { client: (tls) => httpsClient(tls) },
    readFile: (path) => readFileSync(resolve(base, path), "utf8"),
  };
}
