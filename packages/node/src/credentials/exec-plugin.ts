/**
 * {@link execCredentialSource}: credentials from a credential plugin, the `exec` entry of a
 * user in a client configuration file. The plugin is an executable run without a shell; it
 * gets an `ExecCredential` in `ORCH_EXEC_INFO` and prints one with a token or a client
 * certificate on stdout. Its answer is kept until its `expirationTimestamp`, or until the server
 * answers 401 to it, or for the life of the process.
 * @module
 */
import { spawn } from "node:child_process";
import { dirname, isAbsolute, resolve } from "node:path";
import { isatty } from "node:tty";
import {
  execCredentialInput,
  execInteractive,
  execInteractiveMode,
  parseExecCredential,
  sameCredentials,
  type CredentialSource,
  type Credentials,
  type ExecClusterInfo,
  type ExecConfig,
  type ExecCredentialResult,
} from "@orch/client";
import { credentialError, type CredentialSubject } from "../internal/credential-error.js";

/** Options of {@link execCredentialSource}. */
export interface ExecCredentialSourceOptions {
  /** The plugin's configuration (the user entry's `exec`). */
  exec: ExecConfig;
  /** The name of the user entry, for error messages. */
  userName: string;
  /**
   * The configuration file the entry is in: named in error messages, and the base of a relative
   * `command` that contains a `/` (a bare name is looked up on `PATH`).
   */
  configFile?: string;
  /** The cluster, handed to the plugin when `exec.provideClusterInfo` is set. */
  cluster?: ExecClusterInfo;
  /** The product domain: the `ExecCredential` group is `client.authentication.<domain>`; `orch.io` by default. */
  domain?: string;
  /**
   * Whether interactive input is there: the plugin may read standard input when `isTTY`.
   * By default, whether this process's standard input is a terminal; pass `undefined` or
   * `{ isTTY: false }` for none.
   */
  stdin?: { isTTY: boolean } | undefined;
  /** The plugin is killed (SIGKILL) when it has not finished after this many milliseconds; 60 000 by default. */
  timeoutMs?: number;
  /** The time in milliseconds since the epoch, to compare with `expirationTimestamp`; `Date.now` by default. */
  now?: () => number;
  /** The environment the plugin's `env` is added to; `process.env` by default. Its `PATH` finds a bare command. */
  env?: Record<string, string | undefined>;
}

/** The most of stdout read (an `ExecCredential` is small); more and the plugin is killed. */
const maxStdoutBytes = 1024 * 1024;
/** The most of stderr kept for an error message. */
const maxStderrChars = 4096;

interface RunResult {
  stdout: string;
  stderr: string;
}

/** The command to spawn: a relative path with a `/` resolves against the configuration file's directory. */
function commandPath(command: string, configFile: string | undefined): string {
  if (configFile === undefined || isAbsolute(command) || !command.includes("/")) return command;
  return resolve(dirname(configFile), command);
}

function boundedText(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > maxStderrChars ? `${trimmed.slice(0, maxStderrChars)}...` : trimmed;
}

/** Runs the plugin once; rejects with the cause (without the user entry, which the caller adds). */
function runPlugin(command: string, exec: ExecConfig, env: Record<string, string | undefined>, interactive: boolean, timeoutMs: number): Promise<RunResult> {
  return new Promise<RunResult>((resolvePromise, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, result?: RunResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) reject(error);
      else resolvePromise(result!);
    };
    // Interactive plugins prompt on stderr, so the user must see it; otherwise it is kept for the error message.
    const child = spawn(command, exec.args, { env, stdio: [interactive ? "inherit" : "ignore", "pipe", interactive ? "inherit" : "pipe"] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = "";
    const kill = (why: string): void => {
      child.kill("SIGKILL");
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish(new Error(why));
    };
    const timer = setTimeout(() => kill(`exec plugin: ${exec.command} did not finish within ${timeoutMs} ms and was killed`), timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxStdoutBytes) kill(`exec plugin: ${exec.command} printed more than ${maxStdoutBytes} bytes and was killed`);
      else stdout.push(chunk);
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length <= maxStderrChars) stderr += chunk;
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") {
        const hint = exec.installHint ? `\n\n${exec.installHint.trim()}` : "";
        finish(new Error(`exec plugin: executable ${exec.command} not found${hint}`, { cause: error }));
      } else {
        finish(new Error(`exec plugin: could not run ${exec.command}: ${error.message}`, { cause: error }));
      }
    });
    child.on("close", (code, signal) => {
      const errText = boundedText(stderr);
      const said = errText ? `: ${errText}` : "";
      if (signal !== null) finish(new Error(`exec plugin: ${exec.command} was killed by ${signal}${said}`));
      else if (code !== 0) finish(new Error(`exec plugin: ${exec.command} failed with exit code ${code}${said}`));
      else finish(undefined, { stdout: Buffer.concat(stdout).toString("utf8"), stderr });
    });
  });
}

/**
 * A {@link CredentialSource} that runs a credential plugin, as `client-go` does for `exec`
 * users. The configuration is checked on each attempt: `apiVersion` must be
 * `client.authentication.<domain>/v1` or `/v1beta1`, and `v1` must set `interactiveMode`.
 *
 * - The plugin runs as `command ...args` (no shell) with `env` added to the environment and
 *   the input `ExecCredential` in `ORCH_EXEC_INFO` (also `KUBERNETES_EXEC_INFO` under
 *   `k8s.io`, which kubectl's plugins read), with `spec.cluster` only when
 *   `provideClusterInfo` is set.
 * - Standard input: `Never`, not given; `IfAvailable`, given when `stdin.isTTY`; `Always`
 *   without it, the plugin does not run and `credentials()` rejects. With standard input the
 *   plugin's stderr goes to this process's stderr (its prompts); without, it is kept and shown
 *   in the error when the plugin fails.
 * - Its answer is cached until `expirationTimestamp` (when given), else until a 401:
 *   `unauthorized(used)` drops the cached credentials when they are `used`, and resolves true
 *   (the transport asks again and retries once with what the next run prints).
 * - Concurrent `credentials()` calls share one run; a failed run is not cached.
 * - `credentials()` rejects, with the configuration file, the user entry and the cause, when the
 *   executable is missing (with `installHint`), exits non-zero (with its stderr), prints nothing
 *   or no valid `ExecCredential` of the configured version, or runs past `timeoutMs` (killed).
 *
 * @example
 * ```ts
 * const source = execCredentialSource({ exec: user.exec, userName: "alice", configFile: "/home/alice/.kube/config" });
 * const { token } = await source.credentials();
 * ```
 */
export function execCredentialSource(options: ExecCredentialSourceOptions): CredentialSource {
  const subject: CredentialSubject = { userName: options.userName, configFile: options.configFile };
  const domain = options.domain ?? "orch.io";
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 60_000;
  let cached: ExecCredentialResult | undefined;
  let running: Promise<ExecCredentialResult> | undefined;

  const fail = (error: unknown): Error => credentialError(subject, error instanceof Error ? error.message : String(error), { cause: error });

  async function run(): Promise<ExecCredentialResult> {
    const { exec } = options;
    let interactive: boolean;
    try {
      // By default, whether this process's standard input is a terminal (checked without creating process.stdin).
      const stdinAvailable = "stdin" in options ? options.stdin?.isTTY === true : isatty(0);
      interactive = execInteractive(execInteractiveMode(exec, domain), stdinAvailable);
    } catch (error) {
      throw fail(error);
    }
    const info = JSON.stringify(execCredentialInput(exec, interactive, options.cluster));
    const env: Record<string, string | undefined> = { ...(options.env ?? process.env) };
    for (const { name, value } of exec.env) env[name] = value;
    env["ORCH_EXEC_INFO"] = info;
    if (domain === "k8s.io") env["KUBERNETES_EXEC_INFO"] = info;
    try {
      const { stdout, stderr } = await runPlugin(commandPath(exec.command, options.configFile), exec, env, interactive, timeoutMs);
      if (stdout.trim() === "") {
        const said = boundedText(stderr);
        throw new Error(`exec plugin: ${exec.command} printed nothing on stdout${said ? ` (stderr: ${said})` : ""}`);
      }
      return parseExecCredential(stdout, exec.apiVersion);
    } catch (error) {
      throw fail(error);
    }
  }

  const fresh = (entry: ExecCredentialResult | undefined): entry is ExecCredentialResult =>
    entry !== undefined && (entry.expiresAt === undefined || now() < entry.expiresAt);

  return {
    async credentials(): Promise<Credentials> {
      if (fresh(cached)) return cached.credentials;
      running ??= run()
        .then((result) => {
          cached = result;
          return result;
        })
        .finally(() => {
          running = undefined;
        });
      return (await running).credentials;
    },
    unauthorized(used: Credentials): Promise<boolean> {
      // Drop what was rejected; if another caller already replaced it, the retry takes the new ones.
      if (cached && sameCredentials(cached.credentials, used)) cached = undefined;
      return Promise.resolve(true);
    },
  };
}
