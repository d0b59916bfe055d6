/**
 * The pure half of credential plugins: which `ExecCredential` versions a client accepts, how a
 * plugin's `interactiveMode` decides whether it gets standard input, the input object a plugin
 * receives (in `ORCH_EXEC_INFO`), and the checks on what it prints. Running the plugin is
 * `execCredentialSource` of `@orch/node`.
 *
 * Errors thrown here are plain `Error`s whose message is the cause only (`plugin printed ...`);
 * the caller prefixes the configuration file and the user entry.
 * @module
 */
import { parseTime } from "@orch/meta";
import type { Credentials, ExecConfig, ExecInteractiveMode } from "./credentials.js";

/** The `ExecCredential` versions a client accepts. */
const versions = ["v1", "v1beta1"] as const;

const modes: readonly ExecInteractiveMode[] = ["Never", "IfAvailable", "Always"];

/** The group of `ExecCredential` in `domain`: `client.authentication.orch.io`. */
export function execCredentialGroup(domain = "orch.io"): string {
  return `client.authentication.${domain}`;
}

/** The `apiVersion`s a plugin configuration may name in `domain`, newest first. */
export function execCredentialAPIVersions(domain = "orch.io"): string[] {
  return versions.map((v) => `${execCredentialGroup(domain)}/${v}`);
}

/**
 * The name of the cluster extension whose object a plugin receives as `spec.cluster.config`:
 * `client.authentication.orch.io/exec`.
 */
export function execClusterExtensionName(domain = "orch.io"): string {
  return `${execCredentialGroup(domain)}/exec`;
}

/**
 * Checks a plugin configuration and returns its effective interactive mode: `interactiveMode`
 * itself, or `IfAvailable` when a `v1beta1` configuration leaves it out.
 * @throws Error when `command` is empty, `apiVersion` is not one of
 *   {@link execCredentialAPIVersions}, or `interactiveMode` is missing in `v1` or unknown.
 */
export function execInteractiveMode(exec: ExecConfig, domain = "orch.io"): ExecInteractiveMode {
  if (!exec.command) throw new Error("exec plugin: command is required");
  const accepted = execCredentialAPIVersions(domain);
  if (!accepted.includes(exec.apiVersion)) {
    throw new Error(`exec plugin: apiVersion ${JSON.stringify(exec.apiVersion)} is not supported (use ${accepted.join(" or ")})`);
  }
  const mode = exec.interactiveMode;
  if (mode === undefined || (mode as string) === "") {
    if (exec.apiVersion.endsWith("/v1")) throw new Error(`exec plugin: interactiveMode must be set in ${exec.apiVersion} (Never, IfAvailable or Always)`);
    return "IfAvailable";
  }
  if (!modes.includes(mode)) throw new Error(`exec plugin: invalid interactiveMode ${JSON.stringify(mode)} (Never, IfAvailable or Always)`);
  return mode;
}

/**
 * Whether the plugin runs with standard input: never in `Never`, when it is available in
 * `IfAvailable`, always in `Always`.
 * @throws Error in `Always` when standard input is not available: the plugin must not run.
 */
export function execInteractive(mode: ExecInteractiveMode, stdinAvailable: boolean): boolean {
  if (mode === "Never") return false;
  if (mode === "Always" && !stdinAvailable) {
    throw new Error("exec plugin: interactiveMode is Always but standard input is not available (not a terminal), so the plugin was not run");
  }
  return stdinAvailable;
}

/** The cluster a plugin is told about when its configuration sets `provideClusterInfo`. */
export interface ExecClusterInfo {
  /** The cluster's `server` URL. */
  server: string;
  /** The cluster's `certificate-authority-data`, base64 of the PEM as in the configuration file. */
  certificateAuthorityData?: string;
  /** The object of the cluster extension named {@link execClusterExtensionName}. */
  config?: unknown;
}

/** The `ExecCredential` a plugin receives in `ORCH_EXEC_INFO` (and `KUBERNETES_EXEC_INFO` under `k8s.io`). */
export interface ExecCredentialInput {
  /** The configured `apiVersion`. */
  apiVersion: string;
  /** Always `ExecCredential`. */
  kind: "ExecCredential";
  /** What the plugin may know. */
  spec: {
    /** Whether the plugin has standard input. */
    interactive: boolean;
    /** The cluster, only when the configuration sets `provideClusterInfo`. */
    cluster?: { server: string; "certificate-authority-data"?: string; config?: unknown };
  };
}

/**
 * The input object of a plugin run: `spec.interactive`, and `spec.cluster` only when
 * `exec.provideClusterInfo` is set and `cluster` is given.
 */
export function execCredentialInput(exec: ExecConfig, interactive: boolean, cluster?: ExecClusterInfo): ExecCredentialInput {
  const input: ExecCredentialInput = { apiVersion: exec.apiVersion, kind: "ExecCredential", spec: { interactive } };
  if (exec.provideClusterInfo && cluster) {
    const info: NonNullable<ExecCredentialInput["spec"]["cluster"]> = { server: cluster.server };
    if (cluster.certificateAuthorityData !== undefined) info["certificate-authority-data"] = cluster.certificateAuthorityData;
    if (cluster.config !== undefined) info.config = cluster.config;
    input.spec.cluster = info;
  }
  return input;
}

/** What a plugin's answer yields: the credentials and, when it said, until when they hold. */
export interface ExecCredentialResult {
  /** The token and/or the client certificate and key. */
  credentials: Credentials;
  /** `status.expirationTimestamp` in milliseconds since the epoch; absent: until a 401. */
  expiresAt?: number;
}

function stringField(status: Record<string, unknown>, name: string): string | undefined {
  const value = status[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new Error(`exec plugin: status.${name} is not a string`);
  return value === "" ? undefined : value;
}

/**
 * Parses what a plugin printed on stdout: an `ExecCredential` of the configured `apiVersion`
 * with a `status` holding a token, or a certificate and its key, or both, and optionally an
 * RFC 3339 `expirationTimestamp`.
 * @throws Error naming what is wrong: not JSON, another kind, another version (both named),
 *   no status, neither token nor certificate, a certificate without its key (or the reverse),
 *   an invalid timestamp.
 */
export function parseExecCredential(stdout: string, apiVersion: string): ExecCredentialResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch (cause) {
    throw new Error(`exec plugin: printed something that is not JSON: ${(cause as Error).message}`, { cause });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("exec plugin: printed JSON that is not an object");
  const object = parsed as Record<string, unknown>;
  if (object["kind"] !== "ExecCredential") throw new Error(`exec plugin: printed kind ${JSON.stringify(object["kind"] ?? "")}, want ExecCredential`);
  if (object["apiVersion"] !== apiVersion) {
    throw new Error(`exec plugin: is configured to use API version ${apiVersion}, plugin returned version ${JSON.stringify(object["apiVersion"] ?? "")}`);
  }
  const status = object["status"];
  if (typeof status !== "object" || status === null || Array.isArray(status)) throw new Error("exec plugin: didn't return a status field");
  const fields = status as Record<string, unknown>;
  const token = stringField(fields, "token");
  const certificate = stringField(fields, "clientCertificateData");
  const key = stringField(fields, "clientKeyData");
  if (token === undefined && certificate === undefined && key === undefined) throw new Error("exec plugin: didn't return a token or cert/key pair");
  if ((certificate === undefined) !== (key === undefined)) {
    throw new Error(
      `exec plugin: returned only ${certificate === undefined ? "clientKeyData" : "clientCertificateData"}, not both the certificate and its key`,
    );
  }
  const credentials: Credentials = {};
  if (token !== undefined) credentials.token = token;
  if (certificate !== undefined && key !== undefined) credentials.clientCertificate = { certificate, key };
  const result: ExecCredentialResult = { credentials };
  const expiration = stringField(fields, "expirationTimestamp");
  if (expiration !== undefined) {
    try {
      result.expiresAt = parseTime(expiration);
    } catch (cause) {
      throw new Error(`exec plugin: status.expirationTimestamp ${JSON.stringify(expiration)} is not an RFC 3339 time`, { cause });
    }
  }
  return result;
}

/** Whether two credentials carry the same token, basic login and client certificate. */
export function sameCredentials(a: Credentials, b: Credentials): boolean {
  return (
    a.token === b.token &&
    a.basic?.username === b.basic?.username &&
    a.basic?.password === b.basic?.password &&
    a.clientCertificate?.certificate === b.clientCertificate?.certificate &&
    a.clientCertificate?.key === b.clientCertificate?.key
  );
}
