import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExecConfig } from "@orch/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execCredentialSource, type ExecCredentialSourceOptions } from "./exec-plugin.js";

const v1 = "client.authentication.orch.io/v1";
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-exec-plugin-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes an executable `#!/bin/sh` script at `dir/<name>`; its path. */
async function script(name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

/**
 * A plugin that appends a line to `runs` on each run and prints a token `tok-<run number>`
 * (plus `extra` status fields), saving its ORCH_EXEC_INFO and KUBERNETES_EXEC_INFO.
 */
function countingPlugin(extra = "", apiVersion = v1): Promise<string> {
  return script(
    "plugin",
    [
      `echo run >> "${dir}/runs"`,
      `n=$(wc -l < "${dir}/runs" | tr -d ' ')`,
      `printf '%s' "$ORCH_EXEC_INFO" > "${dir}/info.json"`,
      `printf '%s' "\${KUBERNETES_EXEC_INFO-unset}" > "${dir}/k8s-info"`,
      `printf '{"apiVersion":"${apiVersion}","kind":"ExecCredential","status":{"token":"tok-%s"${extra}}}' "$n"`,
    ].join("\n"),
  );
}

async function runs(): Promise<number> {
  try {
    return (await readFile(join(dir, "runs"), "utf8")).split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
}

const info = async (): Promise<unknown> => JSON.parse(await readFile(join(dir, "info.json"), "utf8"));

function config(command: string, over: Partial<ExecConfig> = {}): ExecConfig {
  return { command, args: [], env: [], apiVersion: v1, provideClusterInfo: false, interactiveMode: "Never", ...over };
}

function source(exec: ExecConfig, over: Partial<ExecCredentialSourceOptions> = {}) {
  return execCredentialSource({ exec, userName: "alice", configFile: join(dir, "kubeconfig"), stdin: { isTTY: false }, timeoutMs: 10_000, ...over });
}

describe("execCredentialSource runs the plugin", () => {
  it("with its args and env, and returns the token it prints", async () => {
    const path = await script("plugin", `printf '{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"%s-%s"}}' "$1" "$GREETING"`);
    const creds = await source(config(path, { args: ["first"], env: [{ name: "GREETING", value: "hello" }] })).credentials();
    expect(creds).toEqual({ token: "first-hello" });
  });

  it("hands it the input ExecCredential in ORCH_EXEC_INFO, without the cluster unless provideClusterInfo", async () => {
    const path = await countingPlugin();
    const cluster = { server: "https://127.0.0.1:6443", certificateAuthorityData: "Q0E=", config: { audience: "orch" } };
    await source(config(path), { cluster }).credentials();
    expect(await info()).toEqual({ apiVersion: v1, kind: "ExecCredential", spec: { interactive: false } });
    expect(await readFile(join(dir, "k8s-info"), "utf8")).toBe("unset");
  });

  it("hands it the cluster's server, CA data and extension with provideClusterInfo", async () => {
    const path = await countingPlugin();
    const cluster = { server: "https://127.0.0.1:6443", certificateAuthorityData: "Q0E=", config: { audience: "orch" } };
    await source(config(path, { provideClusterInfo: true }), { cluster }).credentials();
    expect(await info()).toEqual({
      apiVersion: v1,
      kind: "ExecCredential",
      spec: { interactive: false, cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": "Q0E=", config: { audience: "orch" } } },
    });
  });

  it("also sets KUBERNETES_EXEC_INFO under the k8s.io domain", async () => {
    const path = await countingPlugin("", "client.authentication.k8s.io/v1");
    await source(config(path, { apiVersion: "client.authentication.k8s.io/v1" }), { domain: "k8s.io" }).credentials();
    const expected = { apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", spec: { interactive: false } };
    expect(await info()).toEqual(expected);
    expect(JSON.parse(await readFile(join(dir, "k8s-info"), "utf8"))).toEqual(expected);
  });

  it("resolves a relative command with a slash against the configuration file's directory", async () => {
    await script("conf/bin/plugin", `printf '{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"relative"}}'`);
    const creds = await source(config("./bin/plugin"), { configFile: join(dir, "conf", "kubeconfig") }).credentials();
    expect(creds).toEqual({ token: "relative" });
  });

  it("looks a bare command up on PATH", async () => {
    await script("path-bin/orch-test-plugin", `printf '{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"from-path"}}'`);
    const creds = await source(config("orch-test-plugin"), {
      env: { ...process.env, PATH: `${join(dir, "path-bin")}:${process.env["PATH"] ?? ""}` },
    }).credentials();
    expect(creds).toEqual({ token: "from-path" });
  });

  it("returns a client certificate and key", async () => {
    const path = await script(
      "plugin",
      `printf '{"apiVersion":"${v1}","kind":"ExecCredential","status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}}'`,
    );
    expect(await source(config(path)).credentials()).toEqual({ clientCertificate: { certificate: "CERT", key: "KEY" } });
  });
});

describe("execCredentialSource caches", () => {
  it("shares one run among concurrent callers, and keeps an answer without expiry", async () => {
    const s = source(config(await countingPlugin()));
    const all = await Promise.all(Array.from({ length: 8 }, () => s.credentials()));
    expect(all.map((c) => c.token)).toEqual(Array.from({ length: 8 }, () => "tok-1"));
    expect(await s.credentials()).toEqual({ token: "tok-1" });
    expect(await runs()).toBe(1);
  });

  it("keeps the answer until its expirationTimestamp, then runs the plugin again", async () => {
    const expiry = Date.UTC(2030, 0, 1);
    let now = expiry - 60_000;
    const s = source(config(await countingPlugin(',"expirationTimestamp":"2030-01-01T00:00:00Z"')), { now: () => now });
    expect(await s.credentials()).toEqual({ token: "tok-1" });
    now = expiry - 1;
    expect(await s.credentials()).toEqual({ token: "tok-1" });
    expect(await runs()).toBe(1);
    now = expiry;
    expect(await s.credentials()).toEqual({ token: "tok-2" });
    expect(await runs()).toBe(2);
  });

  it("drops the answer the server refused with 401, and the retry gets a fresh one", async () => {
    const s = source(config(await countingPlugin()));
    const first = await s.credentials();
    expect(first).toEqual({ token: "tok-1" });
    expect(await s.unauthorized!(first)).toBe(true);
    expect(await s.credentials()).toEqual({ token: "tok-2" });
    // A late 401 to the old credentials does not throw away the new ones.
    expect(await s.unauthorized!(first)).toBe(true);
    expect(await s.credentials()).toEqual({ token: "tok-2" });
    expect(await runs()).toBe(2);
  });

  it("does not cache a failure: the next call runs the plugin again", async () => {
    const path = await script(
      "plugin",
      [`echo run >> "${dir}/runs"`, `[ -f "${dir}/ok" ] || exit 3`, `printf '{"apiVersion":"${v1}","kind":"ExecCredential","status":{"token":"late"}}'`].join(
        "\n",
      ),
    );
    const s = source(config(path));
    await expect(s.credentials()).rejects.toThrow(/exit code 3/);
    await writeFile(join(dir, "ok"), "");
    expect(await s.credentials()).toEqual({ token: "late" });
    expect(await runs()).toBe(2);
  });
});

describe("execCredentialSource's interactive modes", () => {
  const interactiveOf = async () => ((await info()) as { spec: { interactive: boolean } }).spec.interactive;

  it("Never: no stdin even when there is a terminal", async () => {
    await source(config(await countingPlugin(), { interactiveMode: "Never" }), { stdin: { isTTY: true } }).credentials();
    expect(await interactiveOf()).toBe(false);
  });

  it("IfAvailable: stdin when there is a terminal, none otherwise", async () => {
    const path = await countingPlugin();
    await source(config(path, { interactiveMode: "IfAvailable" }), { stdin: { isTTY: true } }).credentials();
    expect(await interactiveOf()).toBe(true);
    await source(config(path, { interactiveMode: "IfAvailable" }), { stdin: undefined }).credentials();
    expect(await interactiveOf()).toBe(false);
  });

  it("Always: runs with a terminal; without one the plugin is not run and the error says why", async () => {
    const path = await countingPlugin();
    await source(config(path, { interactiveMode: "Always" }), { stdin: { isTTY: true } }).credentials();
    expect(await interactiveOf()).toBe(true);
    await expect(source(config(path, { interactiveMode: "Always" }), { stdin: { isTTY: false } }).credentials()).rejects.toThrow(
      /user "alice" in .*kubeconfig: exec plugin: interactiveMode is Always but standard input is not available/,
    );
    expect(await runs()).toBe(1);
  });

  it("v1 requires interactiveMode, and the plugin is not run without it; v1beta1 defaults to IfAvailable", async () => {
    const path = await countingPlugin();
    const { interactiveMode: _, ...noMode } = config(path);
    await expect(source(noMode).credentials()).rejects.toThrow(/interactiveMode must be set in client\.authentication\.orch\.io\/v1/);
    expect(await runs()).toBe(0);
    const beta = await countingPlugin("", "client.authentication.orch.io/v1beta1");
    await source({ ...noMode, command: beta, apiVersion: "client.authentication.orch.io/v1beta1" }, { stdin: { isTTY: true } }).credentials();
    expect(await interactiveOf()).toBe(true);
  });
});

describe("execCredentialSource's errors name the file, the user entry and the cause", () => {
  const prefix = () => `getting credentials for user "alice" in ${join(dir, "kubeconfig")}: exec plugin: `;

  it("a missing executable, with the install hint", async () => {
    const error = await source(config(join(dir, "nowhere"), { installHint: "Install it with: apt install orch-login" }))
      .credentials()
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(`${prefix()}executable ${join(dir, "nowhere")} not found\n\nInstall it with: apt install orch-login`);
  });

  it("a non-zero exit, with what it wrote to stderr", async () => {
    const path = await script("plugin", `echo "  login expired, run orch-login  " >&2\nexit 2`);
    await expect(source(config(path)).credentials()).rejects.toThrow(`${prefix()}${path} failed with exit code 2: login expired, run orch-login`);
  });

  it("nothing printed", async () => {
    const path = await script("plugin", "exit 0");
    await expect(source(config(path)).credentials()).rejects.toThrow(`${prefix()}${path} printed nothing on stdout`);
  });

  it("output that is not JSON", async () => {
    const path = await script("plugin", "echo token=abc");
    await expect(source(config(path)).credentials()).rejects.toThrow(`${prefix()}printed something that is not JSON`);
  });

  it("another apiVersion, naming both, and another kind", async () => {
    const path = await countingPlugin("", "client.authentication.orch.io/v1beta1");
    await expect(source(config(path)).credentials()).rejects.toThrow(
      `${prefix()}is configured to use API version ${v1}, plugin returned version "client.authentication.orch.io/v1beta1"`,
    );
    const kind = await script("other", `printf '{"apiVersion":"${v1}","kind":"Status","status":{"token":"t"}}'`);
    await expect(source(config(kind)).credentials()).rejects.toThrow(`${prefix()}printed kind "Status", want ExecCredential`);
  });

  it("a certificate without its key", async () => {
    const path = await script("plugin", `printf '{"apiVersion":"${v1}","kind":"ExecCredential","status":{"clientCertificateData":"CERT"}}'`);
    await expect(source(config(path)).credentials()).rejects.toThrow(`${prefix()}returned only clientCertificateData, not both the certificate and its key`);
  });

  it("a plugin that hangs is killed after the timeout", async () => {
    const path = await script("plugin", "exec sleep 30");
    await expect(source(config(path), { timeoutMs: 200 }).credentials()).rejects.toThrow(`${prefix()}${path} did not finish within 200 ms and was killed`);
  });

  it("an unsupported apiVersion, without the file when none is known", async () => {
    const s = execCredentialSource({ exec: config("plugin", { apiVersion: "client.authentication.k8s.io/v1" }), userName: "bob", stdin: undefined });
    await expect(s.credentials()).rejects.toThrow(
      /^getting credentials for user "bob": exec plugin: apiVersion "client\.authentication\.k8s\.io\/v1" is not supported/,
    );
  });
});
