/**
 * The command line of `orch-apiserver`, parsed with `node:util` `parseArgs`.
 * @module
 */
import { parseGoDuration } from "@orch/meta";
import { isIP } from "node:net";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { authorizationOptions, authorizationUsage, parseAuthorizationFlags, type AuthorizationFlags } from "./authorization-flags.js";
import { admissionOptions, admissionUsage, parseAdmissionFlags, type AdmissionFlags } from "./admission-flags.js";
import { auditOptions, auditUsage, parseAuditFlags, type AuditFlags } from "./audit-flags.js";
import { controllersOptions, controllersUsage, parseControllersFlags, type ControllersFlags } from "./controllers-flags.js";
import {
  authenticationBooleans,
  authenticationOptions,
  authenticationUsage,
  commaList,
  parseAuthenticationFlags,
  type AuthenticationFlags,
  type FlagFailure,
} from "./authentication-flags.js";

/** The parsed command line of `orch-apiserver`. */
export interface Flags {
  /** `--help`: print {@link usage} and exit 0. */
  help: boolean;
  /** `--bind-address`: the IP address to listen on (`127.0.0.1`). */
  bindAddress: string;
  /** `--secure-port`: the HTTPS port (`6443`); `0` picks a free one. */
  securePort: number;
  /**
   * `--advertise-address`: the IP address this server is reached at, listed in the Endpoints of
   * the `kubernetes` Service; absent when not given (the bind address is advertised then, or the
   * host's first non-loopback address when binding every address).
   */
  advertiseAddress?: string;
  /** `--service-cluster-ip-range` (`10.96.0.0/12`): the `kubernetes` Service gets its first address. */
  serviceClusterIPRange: string;
  /** `--data-dir`: where certificates and the kubeconfig live (`./.orch`), as given. */
  dataDir: string;
  /** `--domain`: the product domain (`orch.io`). */
  domain: string;
  /** `--shutdown-delay-duration` in milliseconds (`0s`): readiness fails this long before the listener closes. */
  shutdownDelayMs: number;
  /** `--livez-grace-period` in milliseconds (`0s`). */
  livezGracePeriodMs: number;
  /**
   * `--request-timeout` in milliseconds (`1m0s`): the longest a request that is not long-running
   * may take before it is answered 504; `0` turns the limit off.
   */
  requestTimeoutMs: number;
  /**
   * `--min-request-timeout` in seconds (`1800`): a watch without `timeoutSeconds` ends after a
   * random duration from this to twice this.
   */
  minRequestTimeoutSeconds: number;
  /** `--enable-priority-and-fairness` (default true): API Priority and Fairness, else the max-in-flight limit. */
  enablePriorityAndFairness: boolean;
  /** `--max-requests-inflight` (400): reads at once without APF; with APF, this plus the next is the server's concurrency limit. */
  maxRequestsInflight: number;
  /** `--max-mutating-requests-inflight` (200): writes at once without APF. */
  maxMutatingRequestsInflight: number;
  /**
   * `--storage-backend`: where objects live. `sqlite` (the default without `--etcd-servers`):
   * `<data-dir>/state.db`, kept across restarts; `memory`: gone when the process ends; `etcd3`
   * (the default, and the only choice, with `--etcd-servers`).
   */
  storageBackend: StorageBackend;
  /** `--etcd-servers`: etcd client URLs; empty (the default) keeps objects in `<data-dir>/state.db`. */
  etcdServers: string[];
  /** `--etcd-prefix`: a prefix before every orch key in etcd (`""`; orch keys start with `/registry/`). */
  etcdPrefix: string;
  /** `--etcd-cafile`: the CA bundle that verifies etcd's serving certificate. */
  etcdCAFile?: string;
  /** `--etcd-certfile`: the client certificate for etcd. */
  etcdCertFile?: string;
  /** `--etcd-keyfile`: the key of the client certificate for etcd. */
  etcdKeyFile?: string;
  /** `--etcd-compaction-interval` in milliseconds (`5m`); `0` turns compaction by the server off. */
  etcdCompactionIntervalMs: number;
  /**
   * `--etcd-wait-at-start` (`false`): when etcd does not answer at start, serve anyway, with
   * `/readyz` failing (check `etcd`) and requests that need storage answering 503 until it does;
   * without it the command exits 1.
   */
  etcdWaitAtStart: boolean;
  /**
   * `--service-account-issuer`: the `iss` of service-account tokens, also their default audience;
   * unset, `https://orch.default.svc.cluster.local` (`https://kubernetes.default.svc.cluster.local`
   * with `--domain k8s.io`).
   */
  serviceAccountIssuer?: string;
  /**
   * `--runtime-config` (repeatable `<key>=<true|false>` lists; a bare key means true): which API
   * versions are served, as `runtimeConfig` of the server's options; absent when not given. Keys
   * are checked when the server is built.
   */
  runtimeConfig?: Record<string, boolean>;
  /** The authentication flags. */
  authentication: AuthenticationFlags;
  /** The authorization flags. */
  authorization: AuthorizationFlags;
  /** The admission flags. */
  admission: AdmissionFlags;
  /** The audit flags: the policy and the log backend. */
  audit: AuditFlags;
  /** The controller flags: the loops run in-process and the cluster signing CA. */
  controllers: ControllersFlags;
}

/** The values of `--storage-backend`. */
export type StorageBackend = "sqlite" | "memory" | "etcd3";

/** A bad command line; the command prints the message and exits with code 2. */
export class FlagError extends Error {
  override readonly name = "FlagError";
}

/** The text `orch-apiserver --help` prints. */
export const usage = `Usage: orch-apiserver [flags]

Runs the orch API server: objects in <data-dir>/state.db (kept across restarts; or in memory with
--storage-backend=memory, or in etcd with --etcd-servers), HTTPS with generated certificates, and an admin kubeconfig
at <data-dir>/kubeconfig.

Flags:
      --bind-address string               IP address to listen on (default "127.0.0.1")
      --secure-port int                   HTTPS port; 0 picks a free port (default 6443)
      --advertise-address string          IP address this server is reached at, listed in the Endpoints of the
                                          kubernetes Service of default (default: --bind-address, or the host's
                                          first non-loopback address when it is 0.0.0.0 or ::)
      --service-cluster-ip-range string   CIDR of service cluster IPs; the kubernetes Service gets its first
                                          address (default "10.96.0.0/12")
      --data-dir string                   directory for certificates, the kubeconfig and state.db (default "./.orch")
      --storage-backend string            sqlite: objects in <data-dir>/state.db, kept across restarts; memory:
                                          objects gone when the server stops; etcd3: objects in etcd (needs
                                          --etcd-servers) (default "sqlite", "etcd3" with --etcd-servers)
      --domain string                     product domain of groups, labels and markers (default "orch.io")
      --shutdown-delay-duration duration  how long /readyz fails before the server stops accepting (default 0s)
      --livez-grace-period duration       how long /livez may fail after start (default 0s)
      --request-timeout duration          how long a request that is not a watch may take before it is answered
                                          504 Timeout; a request's ?timeout= may only shorten it; 0 turns the
                                          limit off (default 1m0s)
      --min-request-timeout int           seconds a watch without timeoutSeconds stays open at least: it ends
                                          after a random time from this to twice this, so that clients
                                          reconnect spread out (default 1800)
      --enable-priority-and-fairness      classify requests by FlowSchemas into priority levels that share the
                                          server's concurrency (API Priority and Fairness); false limits reads
                                          and writes in flight instead (default true)
      --max-requests-inflight int         reads at once without API Priority and Fairness; with it, this and
                                          --max-mutating-requests-inflight are the server's concurrency limit,
                                          0 for no limit (default 400)
      --max-mutating-requests-inflight int
                                          writes at once without API Priority and Fairness, 0 for no limit
                                          (default 200)
      --etcd-servers strings              etcd client URLs, comma-separated (http://host:port or https://...);
                                          without it objects live in <data-dir>/state.db
      --etcd-prefix string                prefix before every key in etcd (default "", keys start with /registry/)
      --etcd-cafile string                CA file that verifies etcd's serving certificate (https endpoints)
      --etcd-certfile string              client certificate file for etcd
      --etcd-keyfile string               key file of the client certificate for etcd
      --etcd-compaction-interval duration how often the server compacts etcd history older than this;
                                          0 turns it off (default 5m)
      --etcd-wait-at-start                when etcd does not answer at start, serve anyway: /readyz fails its
                                          etcd check and requests that need storage answer 503 until etcd
                                          answers, then the server starts without a restart; without it the
                                          server exits 1 when etcd does not answer within 5s (default false)
      --service-account-issuer string     issuer (iss) of service account tokens, also their default audience
                                          (default "https://orch.default.svc.cluster.local", with
                                          --domain k8s.io "https://kubernetes.default.svc.cluster.local")
      --runtime-config mapStringString    API versions to serve or not, comma-separated <key>=<true|false>
                                          (a bare key means true; repeatable): api/all, api/ga, api/beta,
                                          api/alpha, <group>/<version> (core: v1 or api/v1) and
                                          <group>/<version>/<resource>, the most specific key winning;
                                          imagepolicy.<domain>/v1alpha1=true serves ImageReview
  -h, --help                              print this help
${authenticationUsage}${authorizationUsage}${admissionUsage}${auditUsage}${controllersUsage}`;

/**
 * Parses a Go duration (`0s`, `5s`, `1m30s`, `500ms`, `1.5h`, `0`) into milliseconds.
 * Negative durations are refused here: no flag of this command takes one.
 * @throws FlagError when `text` is not a duration
 */
export function parseDuration(text: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch {
    ms = Number.NaN;
  }
  if (!(ms >= 0)) throw new FlagError(`invalid duration "${text}" (examples: 0s, 5s, 1m30s, 500ms)`);
  return ms;
}

function parseStorageBackend(text: string | undefined, etcd: boolean): StorageBackend {
  if (text === undefined) return etcd ? "etcd3" : "sqlite";
  if (text !== "sqlite" && text !== "memory" && text !== "etcd3") throw new FlagError(`invalid --storage-backend "${text}": want sqlite, memory or etcd3`);
  if (etcd !== (text === "etcd3"))
    throw new FlagError(etcd ? `--etcd-servers needs --storage-backend=etcd3, not "${text}"` : "--storage-backend=etcd3 needs --etcd-servers");
  return text;
}

function parseMinRequestTimeout(text: string | undefined): number {
  if (text === undefined) return 1800;
  if (!/^\d{1,9}$/.test(text)) throw new FlagError(`invalid --min-request-timeout "${text}": want a whole number of seconds, 0 or more`);
  return Number(text);
}

function parseInflight(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text)) throw new FlagError(`invalid --${name} "${text}": want a whole number, 0 or more`);
  return Number(text);
}

/** `--service-cluster-ip-range` checked: an IP address, a slash and a prefix length leaving room for an address. */
function parseServiceRange(text: string): string {
  const [ip = "", prefix = "", ...rest] = text.split("/");
  const family = isIP(ip);
  const bits = family === 4 ? 32 : 128;
  if (family === 0 || rest.length > 0 || !/^\d{1,3}$/.test(prefix) || Number(prefix) > bits - 2) {
    throw new FlagError(`invalid --service-cluster-ip-range "${text}": want a CIDR such as 10.96.0.0/12`);
  }
  return text;
}

function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) throw new FlagError(`invalid --secure-port "${text}": want an integer from 0 to 65535`);
  return Number(text);
}

const domainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Parses the arguments of `orch-apiserver` (without the node and script paths). Accepts
 * `--flag value` and `--flag=value`.
 * @throws FlagError on an unknown flag, a missing value, a positional argument or a bad value
 * @example
 * ```ts
 * parseFlags(["--secure-port", "0", "--shutdown-delay-duration=5s"]).shutdownDelayMs; // 5000
 * ```
 */
export function parseFlags(argv: readonly string[]): Flags {
  // `pnpm start -- --secure-port 0` hands the command its `--` too: a leading one separates nothing.
  const args = argv[0] === "--" ? argv.slice(1) : argv;
  const booleans = booleanValues(args, ["etcd-wait-at-start", "enable-priority-and-fairness", ...authenticationBooleans]);
  const values = parseOptions(booleans.args, {
    help: { type: "boolean", short: "h" },
    "bind-address": { type: "string" },
    "secure-port": { type: "string" },
    "advertise-address": { type: "string" },
    "service-cluster-ip-range": { type: "string" },
    "data-dir": { type: "string" },
    domain: { type: "string" },
    "shutdown-delay-duration": { type: "string" },
    "livez-grace-period": { type: "string" },
    "request-timeout": { type: "string" },
    "min-request-timeout": { type: "string" },
    "enable-priority-and-fairness": { type: "boolean" },
    "max-requests-inflight": { type: "string" },
    "max-mutating-requests-inflight": { type: "string" },
    "etcd-servers": { type: "string" },
    "storage-backend": { type: "string" },
    "etcd-prefix": { type: "string" },
    "etcd-cafile": { type: "string" },
    "etcd-certfile": { type: "string" },
    "etcd-keyfile": { type: "string" },
    "etcd-compaction-interval": { type: "string" },
    "etcd-wait-at-start": { type: "boolean" },
    "service-account-issuer": { type: "string" },
    "runtime-config": { type: "string", multiple: true },
    ...authenticationOptions,
    ...authorizationOptions,
    ...admissionOptions,
    ...auditOptions,
    ...controllersOptions,
  });
  const str = stringValue(values);
  const bindAddress = str("bind-address") ?? "127.0.0.1";
  if (isIP(bindAddress) === 0) throw new FlagError(`invalid --bind-address "${bindAddress}": want an IP address`);
  const dataDir = str("data-dir") ?? "./.orch";
  if (dataDir === "") throw new FlagError("invalid --data-dir: empty");
  const domain = parseDomain(str("domain"));
  const duration = durationValue(str);
  const etcd = parseEtcdFlags(str);
  const etcdWaitAtStart = values["etcd-wait-at-start"] === true;
  const storageBackend = parseStorageBackend(str("storage-backend"), etcd.servers.length > 0);
  if (etcdWaitAtStart && etcd.servers.length === 0) throw new FlagError("--etcd-wait-at-start needs --etcd-servers");
  const flags: Flags = {
    help: values["help"] === true,
    bindAddress,
    securePort: parsePort(str("secure-port") ?? "6443"),
    serviceClusterIPRange: parseServiceRange(str("service-cluster-ip-range") ?? "10.96.0.0/12"),
    dataDir,
    domain,
    shutdownDelayMs: duration("shutdown-delay-duration"),
    livezGracePeriodMs: duration("livez-grace-period"),
    requestTimeoutMs: duration("request-timeout", 60_000),
    minRequestTimeoutSeconds: parseMinRequestTimeout(str("min-request-timeout")),
    enablePriorityAndFairness: !booleans.explicitFalse.has("enable-priority-and-fairness"),
    maxRequestsInflight: parseInflight("max-requests-inflight", str("max-requests-inflight"), 400),
    maxMutatingRequestsInflight: parseInflight("max-mutating-requests-inflight", str("max-mutating-requests-inflight"), 200),
    storageBackend,
    etcdServers: etcd.servers,
    etcdPrefix: etcd.prefix,
    etcdCompactionIntervalMs: duration("etcd-compaction-interval", 5 * 60_000),
    etcdWaitAtStart,
    authentication: parseAuthenticationFlags(values, booleans.explicitFalse, duration, failFlag),
    authorization: parseAuthorizationFlags(values, duration, failFlag),
    admission: parseAdmissionFlags(values, failFlag),
    audit: parseAuditFlags(values, failFlag),
    controllers: parseControllersFlags(values, duration, failFlag),
  };
  const advertise = str("advertise-address");
  if (advertise !== undefined) {
    if (isIP(advertise) === 0 || advertise === "0.0.0.0" || advertise === "::") {
      throw new FlagError(`invalid --advertise-address "${advertise}": want an IP address other than 0.0.0.0 and ::`);
    }
    flags.advertiseAddress = advertise;
  }
  if (etcd.caFile !== undefined) flags.etcdCAFile = etcd.caFile;
  if (etcd.certFile !== undefined) flags.etcdCertFile = etcd.certFile;
  if (etcd.keyFile !== undefined) flags.etcdKeyFile = etcd.keyFile;
  const issuer = str("service-account-issuer");
  if (issuer !== undefined) flags.serviceAccountIssuer = parseIssuer(issuer);
  const runtimeConfig = values["runtime-config"];
  if (Array.isArray(runtimeConfig)) flags.runtimeConfig = parseRuntimeConfig(runtimeConfig.map(String));
  return flags;
}

/**
 * The {@link FlagFailure} the flag groups' parsers are handed: throws a {@link FlagError}.
 * @throws FlagError with `message`
 */
export const failFlag: FlagFailure = (message) => {
  throw new FlagError(message);
};

/** The values `parseArgs` gives. */
export type ParsedValues = Record<string, string | boolean | string[] | boolean[] | undefined>;

/**
 * `parseArgs` of `args` (strict, no positionals) with `options`.
 * @throws FlagError with the first line of `parseArgs`' message
 */
export function parseOptions(args: readonly string[], options: NonNullable<ParseArgsConfig["options"]>): ParsedValues {
  try {
    // A flag with `multiple` holds values of its one type: string[] or boolean[].
    return parseArgs({ args: [...args], strict: true, allowPositionals: false, options }).values as ParsedValues;
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    throw new FlagError(message, { cause: error });
  }
}

/** The string value of a flag in `values`, `undefined` when not given. */
export function stringValue(values: ParsedValues): (name: string) => string | undefined {
  return (name) => {
    const v = values[name];
    return typeof v === "string" ? v : undefined;
  };
}

/**
 * Reads a duration flag in milliseconds with {@link parseDuration}, `fallback` when not given.
 * @throws FlagError naming the flag
 */
export function durationValue(str: (name: string) => string | undefined): (name: string, fallback?: number) => number {
  return (name, fallback = 0) => {
    const v = str(name);
    if (v === undefined) return fallback;
    try {
      return parseDuration(v);
    } catch (error) {
      throw new FlagError(`invalid --${name}: ${(error as Error).message}`);
    }
  };
}

/**
 * `--domain` checked: a DNS subdomain, `orch.io` when not given.
 * @throws FlagError for anything else
 */
export function parseDomain(text: string | undefined): string {
  const domain = text ?? "orch.io";
  if (domain.length > 253 || !domainPattern.test(domain)) throw new FlagError(`invalid --domain "${domain}": want a DNS subdomain such as orch.io`);
  return domain;
}

const truthy = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const falsy = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/**
 * The pairs of `--runtime-config` (each value a comma-separated list) as a map: `<key>=<value>`
 * with a boolean value (Go's `strconv.ParseBool` spellings; `api/all`, `api/ga`, `api/beta` and
 * `api/alpha` take only `true` or `false`, as in the reference), a bare `<key>` meaning true; a
 * later pair of the same key wins. Whether a key names an API version is the server's check.
 * @throws FlagError for an empty key or a value that is not a boolean
 * @example
 * ```ts
 * parseRuntimeConfig(["api/all=false,v1", "imagepolicy.orch.io/v1alpha1"]);
 * // { "api/all": false, v1: true, "imagepolicy.orch.io/v1alpha1": true }
 * ```
 */
export function parseRuntimeConfig(values: readonly string[]): Record<string, boolean> {
  const config: Record<string, boolean> = {};
  for (const pair of values.flatMap((v) => v.split(","))) {
    const at = pair.indexOf("=");
    const key = (at === -1 ? pair : pair.slice(0, at)).trim();
    const value = at === -1 ? "" : pair.slice(at + 1).trim();
    if (key === "") {
      if (pair.trim() === "") continue;
      throw new FlagError(`invalid --runtime-config "${pair}": want <key>=<true|false>`);
    }
    const strict = key === "api/all" || key === "api/ga" || key === "api/beta" || key === "api/alpha";
    const on = value === "" || (strict ? value === "true" : truthy.has(value));
    const off = strict ? value === "false" : falsy.has(value);
    if (!on && !off) throw new FlagError(`invalid --runtime-config "${pair}": the value of ${key} must be true or false`);
    config[key] = on;
  }
  return config;
}

/** An issuer as the reference checks `--service-account-issuer`: not empty, and a URL when it has a `:`. */
function parseIssuer(issuer: string): string {
  if (issuer === "") throw new FlagError("invalid --service-account-issuer: empty");
  if (issuer.includes(":") && !URL.canParse(issuer)) throw new FlagError(`invalid --service-account-issuer "${issuer}": contains a ':' but is not a valid URL`);
  return issuer;
}

/**
 * `argv` with `--name=true` of the boolean flags `names` as `--name`, and `--name=false` left out
 * and reported in `explicitFalse`, as Go's flag package takes them (`parseArgs` takes neither).
 * @throws FlagError for `--name=<anything else>`
 */
export function booleanValues(argv: readonly string[], names: readonly string[]): { args: string[]; explicitFalse: Set<string> } {
  const args: string[] = [];
  const explicitFalse = new Set<string>();
  for (const arg of argv) {
    const match = /^--([^=]+)=(.*)$/s.exec(arg);
    if (match === null || !names.includes(match[1]!)) args.push(arg);
    else if (match[2] === "true") {
      args.push(`--${match[1]!}`);
      explicitFalse.delete(match[1]!);
    } else if (match[2] === "false") explicitFalse.add(match[1]!);
    else throw new FlagError(`invalid --${match[1]!} "${match[2]!}": want true or false`);
  }
  return { args, explicitFalse };
}

/** The etcd flags, checked together: URLs, TLS files that go in pairs, nothing without servers. */
function parseEtcdFlags(str: (name: string) => string | undefined): {
  servers: string[];
  prefix: string;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
} {
  const raw = str("etcd-servers");
  const servers = raw === undefined ? [] : commaList(raw);
  if (raw !== undefined && servers.length === 0) throw new FlagError("invalid --etcd-servers: empty");
  for (const server of servers) {
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new FlagError(`invalid --etcd-servers "${server}": want a URL such as http://127.0.0.1:2379`);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "" || (url.pathname !== "/" && url.pathname !== "")) {
      throw new FlagError(`invalid --etcd-servers "${server}": want http://host:port or https://host:port`);
    }
  }
  const prefix = str("etcd-prefix") ?? "";
  const caFile = str("etcd-cafile");
  const certFile = str("etcd-certfile");
  const keyFile = str("etcd-keyfile");
  const etcdOnly = ["etcd-prefix", "etcd-cafile", "etcd-certfile", "etcd-keyfile", "etcd-compaction-interval"].filter((n) => str(n) !== undefined);
  if (servers.length === 0 && etcdOnly.length > 0) throw new FlagError(`--${etcdOnly[0]!} needs --etcd-servers`);
  if ((certFile === undefined) !== (keyFile === undefined)) throw new FlagError("--etcd-certfile and --etcd-keyfile go together");
  if (servers.some((s) => s.startsWith("https:")) && caFile === undefined) throw new FlagError("https --etcd-servers need --etcd-cafile");
  for (const [name, v] of [
    ["etcd-cafile", caFile],
    ["etcd-certfile", certFile],
    ["etcd-keyfile", keyFile],
  ] as const) {
    if (v === "") throw new FlagError(`invalid --${name}: empty`);
  }
  const out: { servers: string[]; prefix: string; caFile?: string; certFile?: string; keyFile?: string } = { servers, prefix };
  if (caFile !== undefined) out.caFile = caFile;
  if (certFile !== undefined) out.certFile = certFile;
  if (keyFile !== undefined) out.keyFile = keyFile;
  return out;
}
