/**
 * {@link loadClientConfig}: finds and reads client configuration files the way kubectl does
 * (`--kubeconfig`, else `KUBECONFIG`, else `~/.kube/config`), merges them and resolves a context.
 * @module
 */
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, resolve as resolvePath } from "node:path";
import { ClientConfigError, mergeClientConfigs, parseClientConfig, resolveClientConfig, type ClientConfig, type ResolvedClientConfig } from "@orch/client";

/** Options of {@link loadClientConfig}. */
export interface LoadClientConfigOptions {
  /**
   * kubectl's `--kubeconfig`: the file(s) to read, in precedence order; each must exist. When
   * absent, `KUBECONFIG` of `env`, then `~/.kube/config`.
   */
  kubeconfig?: string | readonly string[];
  /** kubectl's `--context`: the context to use instead of `current-context`. */
  context?: string;
  /** The environment (`KUBECONFIG`, `HOME`); `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** What {@link loadClientConfig} read and chose. */
export interface LoadedClientConfig {
  /** The files read, absolute, in precedence order. */
  files: string[];
  /** Their merged entries. */
  config: ClientConfig;
  /** The context in use, resolved. */
  resolved: ResolvedClientConfig;
}

/**
 * The files {@link loadClientConfig} reads, absolute, in precedence order, and whether each
 * must exist: the `kubeconfig` option (must exist), else the colon-separated `KUBECONFIG`
 * (empty items and repeats dropped; missing files are skipped, as kubectl skips them), else
 * `$HOME/.kube/config` (skipped when missing).
 */
export function clientConfigPaths(options: Pick<LoadClientConfigOptions, "kubeconfig" | "env"> = {}): { path: string; required: boolean }[] {
  const env = options.env ?? process.env;
  if (options.kubeconfig !== undefined) {
    const list = typeof options.kubeconfig === "string" ? [options.kubeconfig] : options.kubeconfig;
    return unique(list.map((p) => resolvePath(p))).map((path) => ({ path, required: true }));
  }
  const fromEnv = (env["KUBECONFIG"] ?? "").split(":").filter((p) => p !== "");
  if (fromEnv.length > 0) return unique(fromEnv.map((p) => resolvePath(p))).map((path) => ({ path, required: false }));
  const home = env["HOME"] ?? homedir();
  return [{ path: resolvePath(home, ".kube", "config"), required: false }];
}

/**
 * Reads the client configuration files ({@link clientConfigPaths}), merges them with kubectl's
 * rules (the first file defining a name wins, the first `current-context` wins, relative paths
 * resolve against each entry's own file) and resolves the context in use. Files the entries
 * point at (CA, certificates, keys, token files) are not read here: `transportFromConfig` reads them.
 *
 * @throws `ClientConfigError` (of `@orch/client`) naming the file when a required file is missing or no file
 *   exists, when a file cannot be read or parsed, or when the context cannot be resolved
 *   (see `resolveClientConfig` of `@orch/client`).
 */
export async function loadClientConfig(options: LoadClientConfigOptions = {}): Promise<LoadedClientConfig> {
  const paths = clientConfigPaths(options);
  const parsed: ClientConfig[] = [];
  for (const { path, required } of paths) {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !required) continue;
      throw new ClientConfigError({ file: path }, `cannot read the configuration file: ${(error as Error).message}`, { cause: error });
    }
    parsed.push(parseClientConfig(text, path, { directory: dirname(path) }));
  }
  if (parsed.length === 0)
    throw new ClientConfigError({ file: paths.map((p) => p.path).join(", ") }, "no configuration file exists (set --kubeconfig or KUBECONFIG)");
  const config = mergeClientConfigs(parsed);
  const resolved = resolveClientConfig(config, options.context === undefined ? {} : { context: options.context });
  return { files: [...config.files], config, resolved };
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
