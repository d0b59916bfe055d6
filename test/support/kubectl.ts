/**
 * Runs the kubectl of this machine against a running orch-apiserver: bounded by `timeout`, with
 * a private HOME and cache dir and no inherited KUBECONFIG.
 * @module
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const kubectlBin = "/usr/bin/kubectl";

/** What one kubectl run printed, and its exit code. */
export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of one kubectl run. */
export interface Options {
  input?: string;
  timeoutSeconds?: number;
  /** Called with everything kubectl printed to stdout so far, on each new chunk. */
  onStdout?: (stdout: string) => void;
}

/** A kubectl bound to one server's kubeconfig, with a scratch dir. */
export interface Kubectl {
  (args: readonly string[], options?: Options): Promise<Result>;
  /** A scratch dir for manifests, removed with the server. */
  readonly dir: string;
  /** Writes `text` to a file in {@link dir} and returns its path. */
  file(name: string, text: string): Promise<string>;
  close(): Promise<void>;
}

/** Runs `kubectl --kubeconfig <server's> ...args` under `timeout`, with a private cache dir. */
export async function kubectlFor(server: { kubeconfigPath: string }): Promise<Kubectl> {
  const dir = await mkdtemp(join(tmpdir(), "orch-kubectl-"));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir };
  delete env.KUBECONFIG;
  const run = (args: readonly string[], options: Options = {}) =>
    new Promise<Result>((resolve, reject) => {
      const seconds = options.timeoutSeconds ?? 20;
      const child = spawn(
        "timeout",
        ["-k", "2", String(seconds), kubectlBin, "--kubeconfig", server.kubeconfigPath, "--cache-dir", join(dir, "cache"), ...args],
        { env, stdio: ["pipe", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => {
        stdout += c;
        options.onStdout?.(stdout);
      });
      child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(options.input ?? "");
    });
  return Object.assign(run, {
    dir,
    file: async (name: string, text: string) => {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    close: () => rm(dir, { recursive: true, force: true }),
  });
}
