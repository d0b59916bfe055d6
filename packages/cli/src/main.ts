/**
 * `orch-apiserver`: an `APIServer` over HTTPS with generated certificates and an admin
 * kubeconfig, with the `--controllers` it names running in-process, shut down gracefully on
 * SIGTERM or SIGINT.
 * @module
 */
import { networkInterfaces } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, inProcessTransport } from "@orch/client";
import type { ControllerDescriptor, ControllerManager } from "@orch/controllers";
import { prometheusMetrics, serve, type RequestHandler, type ServedServer } from "@orch/node";
import type { APIServerOptions } from "@orch/server";
import { ensureCertificates } from "./certificates.js";
import { FlagError, parseFlags, usage, type Flags } from "./flags.js";
import { writeKubeconfig } from "./kubeconfig.js";
import { publishClusterInfo } from "./cluster-info.js";
import { importServiceAccountKey } from "./service-account-key.js";
import { loadAuthentication } from "./authentication.js";
import { loadAuthorization } from "./authorization.js";
import { loadAdmission } from "./admission.js";
import { loadAudit, type LoadedAudit } from "./audit-log.js";
import { exitWhenStopped, untilStopped } from "./internal/until-stopped.js";

/** Where {@link runAPIServer} writes: `process.stdout` or anything with `write`. */
export interface Output {
  /** Writes text as it is. */
  write(text: string): unknown;
}

/** What {@link runAPIServer} serves: `APIServer` has this shape. */
export interface ServerLike extends RequestHandler {
  /**
   * Resolves once the server can serve. With `--etcd-wait-at-start` it is called again after it
   * rejected, until it resolves.
   */
  ready(): Promise<void>;
  /**
   * Says where clients reach the server once it listens (its address goes into the Endpoints of
   * the `kubernetes` Service); absent on servers that keep no such Service.
   */
  advertise?(endpoint: { address: string; port: number }): Promise<void>;
}

/** Options of {@link runAPIServer}. */
export interface RunOptions {
  /** Receives the one ready line (and `--help`). */
  stdout: Output;
  /** Receives errors. */
  stderr: Output;
  /**
   * Stops the server gracefully when aborted. Without it, SIGTERM and SIGINT do (and stay
   * handled until the shutdown ends, so a second Ctrl-C does not cut it short).
   */
  signal?: AbortSignal;
  /**
   * Builds the server from the flags' options; `new APIServer(options)` by default. For
   * embedding a customised server behind the same command line, and for tests.
   */
  createServer?: (options: APIServerOptions) => ServerLike;
  /** Called once the server is ready, with its URL and kubeconfig path (for embedding and tests). */
  onReady?: (info: { url: string; kubeconfig: string }) => void;
  /**
   * The controllers `--controllers` selects from and the in-process controller manager runs;
   * `builtinControllers` of `@orch/controllers` by default.
   */
  controllers?: readonly ControllerDescriptor[];
}

/** The flags, and the controllers the `--controllers` selection enables. */
async function parseCommandLine(argv: readonly string[], options: RunOptions) {
  const flags = parseFlags(argv);
  if (flags.help) return { flags, selection: [], descriptors: [] };
  const { selectedControllers } = await import("./controllers.js");
  const descriptors = options.controllers ?? (await import("@orch/controllers")).builtinControllers;
  return { flags, selection: selectedControllers(flags.controllers.controllers, descriptors), descriptors };
}

/**
 * Starts `server` (`ready()`) once etcd answers: tries every second until it succeeds or
 * `signal` aborts, reporting the first failure and the start. Resolves true once started.
 */
async function keepStarting(server: ServerLike, flags: Flags, signal: AbortSignal, report: (text: string) => void): Promise<boolean> {
  let failures = 0;
  while (!signal.aborted) {
    try {
      await server.ready();
      if (failures > 0) report(`etcd at ${flags.etcdServers.join(",")} answers: started`);
      return !signal.aborted;
    } catch (error) {
      if (failures++ === 0) {
        const { unreachable } = await import("./internal/etcd.js");
        report(`${unreachable(flags, error).message}; serving with /readyz failing until it answers`);
      }
      await sleep(1_000, undefined, { signal }).catch(() => undefined);
    }
  }
  return false;
}

/**
 * Runs `orch-apiserver` with `argv` (the arguments after the command name) and resolves with
 * the exit code once it has stopped: 0 after a graceful shutdown or `--help`, 2 for a bad
 * command line, 1 when the server cannot start (the port is taken, the data directory is not
 * writable, etcd does not answer).
 *
 * With `--etcd-servers` objects live in etcd (an `EtcdStore`), which must answer within 5
 * seconds at start; the server compacts etcd history every `--etcd-compaction-interval`. With
 * `--etcd-wait-at-start` too, the server serves at once whether etcd answers or not: until it
 * does, `/readyz` fails and requests that need storage answer 503, and the server retries its
 * start-up every second, then starts without a restart (reported on `stderr`).
 *
 * Service-account tokens (`serviceaccounts/<name>/token`) are signed with
 * `--service-account-signing-key-file`, else the first private key of `--service-account-key-file`,
 * else the serving certificate's key; a key that cannot be read or cannot sign stops the start
 * (exit 1), and so does any file an authentication flag names that cannot be read or parsed
 * (a token file's message names the line). Client certificates verify against
 * `--client-ca-file`, by default the generated CA that also signs the admin kubeconfig's
 * certificate (user `admin` in `system:masters`).
 *
 * Once the server is ready and serving, it writes ConfigMap `cluster-info` in `<short>-public`
 * (`orch-public`) with the server's URL and CA, which anyone may read, and starts the
 * controllers `--controllers` selects (`*` by default) in-process, as user
 * `system:<short>-controller-manager` in `system:masters`, without leader election; the CSR
 * signer signs with `--cluster-signing-cert-file`/`--cluster-signing-key-file`, by default the
 * generated CA. An empty `--controllers=` runs none (a separate `orch-controller-manager` then
 * does the work). The controllers stop before the server closes.
 *
 * When ready, it prints exactly one line to `stdout`:
 * `orch-apiserver ready url=https://127.0.0.1:<port> kubeconfig=<absolute path>`.
 */
export async function runAPIServer(argv: readonly string[], options: RunOptions): Promise<number> {
  let flags;
  let selection: string[];
  let descriptors: readonly ControllerDescriptor[] = [];
  try {
    ({ flags, selection, descriptors = [] } = await parseCommandLine(argv, options));
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    options.stderr.write(`orch-apiserver: ${error.message}\nRun 'orch-apiserver --help' for usage.\n`);
    return 2;
  }
  if (flags.help) {
    options.stdout.write(usage);
    return 0;
  }

  const stop = untilStopped(options.signal);
  const halt = new AbortController();
  let served: ServedServer | undefined;
  let closeStore: (() => void) | undefined;
  let stopCompactor: (() => void) | undefined;
  let manager: ControllerManager | undefined;
  let auditLog: LoadedAudit["writer"] | undefined;
  try {
    const dataDir = resolve(flags.dataDir);
    const serverOptions: APIServerOptions = {
      domain: flags.domain,
      shutdownDelayMs: flags.shutdownDelayMs,
      livezGracePeriodMs: flags.livezGracePeriodMs,
      requestTimeoutMs: flags.requestTimeoutMs,
      minRequestTimeoutSeconds: flags.minRequestTimeoutSeconds,
      serviceClusterIPRange: flags.serviceClusterIPRange,
      flowControl: {
        enabled: flags.enablePriorityAndFairness,
        maxRequestsInflight: flags.maxRequestsInflight,
        maxMutatingRequestsInflight: flags.maxMutatingRequestsInflight,
      },
      // Always on: served at /metrics to callers allowed `get` on it (system:monitoring, say).
      metrics: prometheusMetrics(),
    };
    // Keys naming no API version stop the start (exit 1) when the server is built, as in the reference.
    if (flags.runtimeConfig !== undefined) serverOptions.runtimeConfig = flags.runtimeConfig;
    // Certificates and the server start side by side: each takes a good part of startup.
    const pending = ensureCertificates(dataDir, { bindAddress: flags.bindAddress });
    pending.catch(() => undefined);
    // The authentication flags' files are read once the certificates are there (the generated CA
    // is the client CA by default); service-account tokens are signed with the key the flags
    // name, else with the serving key.
    const log = (message: string) => options.stderr.write(`orch-apiserver: ${message}\n`);
    const authentication = pending.then((c) => loadAuthentication(flags.authentication, { generatedCA: c.caCert, domain: flags.domain, log }));
    authentication.catch(() => undefined);
    const signingKey = authentication.then(
      async (loaded) => loaded.signingKey ?? importServiceAccountKey((await pending).serverKey, join(dataDir, "apiserver.key")),
    );
    signingKey.catch(() => undefined);
    serverOptions.serviceAccountTokens = { signingKey: () => signingKey, lookup: flags.authentication.serviceAccountLookup };
    if (flags.serviceAccountIssuer !== undefined) serverOptions.serviceAccountTokens.issuer = flags.serviceAccountIssuer;
    if (flags.authentication.apiAudiences !== undefined) serverOptions.serviceAccountTokens.audiences = flags.authentication.apiAudiences;
    const loaded = await authentication;
    serverOptions.authenticators = loaded.authenticators;
    serverOptions.serviceAccountTokens.verificationKeys = loaded.verificationKeys;
    serverOptions.anonymousAuth = flags.authentication.anonymous;
    serverOptions.bootstrapTokenAuth = flags.authentication.bootstrapTokenAuth;
    serverOptions.log = log;
    serverOptions.authorization = await loadAuthorization(flags.authorization, { domain: flags.domain, log });
    serverOptions.admission = await loadAdmission(flags.admission, { domain: flags.domain });
    // A policy file that does not parse stops the start, naming the file and the line.
    const audit = await loadAudit(flags.audit, {
      domain: flags.domain,
      stdout: options.stdout,
      log,
      ...(serverOptions.metrics ? { metrics: serverOptions.metrics } : {}),
    });
    if (audit) [serverOptions.audit, auditLog] = [audit.audit, audit.writer];
    let startCompaction = (): void => undefined;
    if (flags.etcdServers.length > 0) {
      // The etcd client (gRPC and its protos) loads only for servers that use it: ~200 ms of start.
      const { openEtcdStore, startCompactor } = await import("./internal/etcd.js");
      const store = await openEtcdStore(flags);
      startCompaction = () => {
        if (halt.signal.aborted) return;
        stopCompactor = startCompactor(store, flags.etcdCompactionIntervalMs, (error) =>
          options.stderr.write(`orch-apiserver: etcd compaction failed: ${error instanceof Error ? error.message : String(error)}\n`),
        );
      };
      closeStore = () => store.close();
      serverOptions.store = store;
    } else if (flags.storageBackend === "sqlite") {
      // Objects live in <data-dir>/state.db, locked against a second server on the same directory.
      const { openSqliteStore } = await import("@orch/store-sqlite");
      const store = openSqliteStore(dataDir);
      closeStore = () => store.close();
      serverOptions.store = store;
    }
    const server = options.createServer ? options.createServer(serverOptions) : new (await import("@orch/server")).APIServer(serverOptions);
    // With --etcd-wait-at-start the server serves before it has started; requests start it too.
    const [certificates] = await Promise.all([pending, flags.etcdWaitAtStart ? undefined : server.ready(), signingKey]);
    const { componentNames, loadClusterSigning } = await import("./controllers.js");
    const signing = await loadClusterSigning(flags.controllers, async () => ({ caCertPem: certificates.caCert, caKeyPem: certificates.caKey }));
    served = await serve(server, {
      host: flags.bindAddress,
      port: flags.securePort,
      tls: { key: certificates.serverKey, cert: certificates.serverCert, ca: loaded.tlsClientCA, requestCert: true },
    });
    const kubeconfig = join(dataDir, "kubeconfig");
    await writeKubeconfig(kubeconfig, {
      server: served.url,
      caCert: certificates.caCert,
      clientCert: certificates.adminCert,
      clientKey: certificates.adminKey,
    });
    // The in-process loops act as the controller manager's user, in system:masters.
    const names = componentNames(flags.domain);
    const user = { name: names.controllerManagerUser, groups: ["system:masters"] };
    const client = new Client({ transport: inProcessTransport(server, { user }), domain: flags.domain, userAgent: "orch-apiserver" });
    const url = served.url;
    const startLoops = async (): Promise<void> => {
      if (halt.signal.aborted) return;
      // The port is known now (--secure-port 0 picks one): the kubernetes Service points here.
      await server
        .advertise?.({ address: advertiseAddressOf(flags), port: Number(new URL(url).port) })
        .catch((error: unknown) => log(`cannot publish this server in the kubernetes Service: ${error instanceof Error ? error.message : String(error)}`));
      await publishClusterInfo(client, names.publicNamespace, { server: url, caPem: certificates.caCert }).catch((error: unknown) =>
        log(`cannot publish ${names.publicNamespace}/cluster-info: ${error instanceof Error ? error.message : String(error)}`),
      );
      if (selection.length === 0 || halt.signal.aborted) return;
      const { startInProcessControllers } = await import("@orch/controllers");
      manager = startInProcessControllers(server, { domain: flags.domain, controllers: descriptors, selection, log, ...(signing ? { signing } : {}) });
    };
    if (flags.etcdWaitAtStart) {
      void keepStarting(server, flags, halt.signal, (text) => options.stderr.write(`orch-apiserver: ${text}\n`)).then(async (started) => {
        if (!started) return;
        startCompaction();
        await startLoops();
      });
    } else {
      startCompaction();
      await startLoops();
    }
    options.stdout.write(`orch-apiserver ready url=${served.url} kubeconfig=${kubeconfig}\n`);
    options.onReady?.({ url: served.url, kubeconfig });
    await stop.stopped;
    await manager?.stop();
    await served.close();
    return 0;
  } catch (error) {
    options.stderr.write(`orch-apiserver: ${error instanceof Error ? error.message : String(error)}\n`);
    await manager?.stop();
    await served?.close();
    return 1;
  } finally {
    halt.abort();
    stopCompactor?.();
    closeStore?.();
    stop.dispose();
    await auditLog?.flush();
  }
}

/**
 * The address this server is advertised at: `--advertise-address`, else `--bind-address`, else
 * (binding every address) the host's first non-internal address of the bind address's family,
 * else loopback.
 */
export function advertiseAddressOf(flags: Pick<Flags, "advertiseAddress" | "bindAddress">): string {
  if (flags.advertiseAddress !== undefined) return flags.advertiseAddress;
  if (flags.bindAddress !== "0.0.0.0" && flags.bindAddress !== "::") return flags.bindAddress;
  const family = flags.bindAddress === "::" ? "IPv6" : "IPv4";
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((a) => !a.internal && a.family === family && !a.address.startsWith("fe80"));
    if (found) return found.address;
  }
  return family === "IPv6" ? "::1" : "127.0.0.1";
}

/**
 * The process entry of the `orch-apiserver` bin: runs {@link runAPIServer} on `process.argv`
 * with the process's stdout and stderr, and exits with its code.
 */
export async function main(): Promise<never> {
  return exitWhenStopped((signal) => runAPIServer(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, signal }));
}
