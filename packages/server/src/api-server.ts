/**
 * `APIServer`: the composition root of orch. It owns the served resource types, the store and
 * the clock, and runs every request through its pipeline of stages (request info, authentication,
 * impersonation, authorization) and then the REST handler of its verb.
 * @module
 */
import type { Authenticator, TokenAuthenticator } from "@orch/authn";
import type { Authorizer } from "@orch/authz";
import type { AdmissionPlugin } from "@orch/admission";
import { notFound, statusError, type APIObject } from "@orch/meta";
import { builtinResources, openAPIDocument, openAPIIndex, resolveGroup, ResourceRegistry, type ResourceType, type ResourceVersion } from "@orch/resources";
import type { Clock, Store } from "@orch/store";
import { MemoryStore, systemClock } from "@orch/store";
import { WatchCache } from "@orch/list";
import type { APIRequest, APIResponse } from "./api-request.js";
import { aggregatedDiscovery, aggregatedDiscoveryAccepted, apiGroupList, apiGroupOf, apiResourceList, apiVersions } from "./discovery.js";
import type { ControllerInput } from "./control-loop.js";
import { healthResponse, type HealthCheck } from "./health.js";
import { createBuiltinNamespaces } from "./builtin-namespaces.js";
import { ObjectStore } from "./object-store.js";
import { serverAuthentication, type ServerAuthentication } from "./authentication.js";
import { serverAuthorization, type AuthorizationMode, type ServerAuthorization } from "./authorization.js";
import { serverAdmission, type AdmissionOptions, type ServerAdmission } from "./admission.js";
import { withAuthentication } from "./stages/authentication-stage.js";
import { auditStages } from "./stages/audit-stage.js";
import type { AuditSink } from "./audit/event.js";
import type { AuditPolicy } from "./audit/policy.js";
import { defaultAlwaysAllowPaths, withAuthorization } from "./stages/authorization-stage.js";
import { measuredStore } from "./measured-store.js";
import { withImpersonation } from "./stages/impersonation-stage.js";
import { withBodyLimit, withErrorResponses, withRequestInfo } from "./stages/request-info-stage.js";
import { withMetrics } from "./stages/metrics-stage.js";
import { withMaxInFlightLimit, withPriorityAndFairness } from "./stages/flow-control-stage.js";
import { defaultMaxQueueWaitMs, FlowControl } from "./flowcontrol/flow-control.js";
import { defaultRequestTimeoutMs, withTimeout } from "./stages/timeout-stage.js";
import { canRender, noopMetrics, type MetricsRecorder } from "./metrics.js";
import { metricsResponse } from "./metrics-endpoint.js";
import { chain, type Handler, type ServerRequest } from "./stages/stage.js";
import { encodeResponse } from "./responses.js";
import { noSuchResource, serveResource as serveRest, type RestContext } from "./rest.js";
import { runtimeConfigPredicate, servedRegistry, type RuntimeConfig } from "./runtime-config.js";
import { collectionPrefix, mutableCopy, objectKey, serveResource, wireObject, type ServedResource } from "./served-resource.js";
import { DecodingStore, type StoredVersions } from "./decoding-store.js";
import { ServiceAccountTokenSigner, type ServiceAccountTokenOptions } from "./service-account-tokens.js";
import { serveFetch, type FetchOptions } from "./serve-fetch.js";
import { APIServerEndpointLease } from "./system-objects/endpoint-lease.js";
import { firstServiceIP, type AdvertisedEndpoint } from "./system-objects/kubernetes-service.js";
import { reconcileLocalAPIServices } from "./system-objects/local-api-services.js";
import { ensureSystemPriorityClasses } from "./system-objects/system-priority-classes.js";

/** Options of {@link APIServer}. */
export interface APIServerOptions {
  /** Where objects live; a fresh `MemoryStore` on `clock` by default. */
  store?: Store;
  /**
   * Puts a `WatchCache` in front of the store (started by {@link APIServer.ready}, stopped by
   * {@link APIServer.shutdown}). Default: on for any store that is not a `MemoryStore`.
   */
  watchCache?: boolean;
  /** Wall time and timers; `systemClock` by default. */
  clock?: Clock;
  /** The product domain (`orch.io` by default); `k8s.io` speaks the reference system's groups. */
  domain?: string;
  /** Resource types to serve in addition to the built-in ones. */
  resources?: readonly ResourceType[];
  /**
   * Which versions are served (`--runtime-config`), over each version's `enabledByDefault`:
   * `api/all`, `api/ga`, `api/beta`, `api/alpha`, `<group>/<version>` (core: `v1` or `api/v1`)
   * and `<group>/<version>/<resource>` to true or false, the most specific key winning (see
   * {@link RuntimeConfig}). A version not served is absent from discovery and OpenAPI and answers
   * 404; objects stay stored in their storage version, served or not. ImageReview
   * (`imagepolicy.<domain>/v1alpha1`) is served only when turned on here.
   * @throws TypeError from the constructor, with the reference's message, for a key of the wrong
   *   shape, an unknown group (`unknown api groups <g>`) or version (`group version <g>/<v> that
   *   has not been registered`), or `api/all=false` alone.
   */
  runtimeConfig?: RuntimeConfig;
  /**
   * The longest a request that is not long-running may take, in milliseconds
   * (`--request-timeout`; 60 000 by default, 0 for no limit): past it the request is answered
   * 504 `Timeout` and the handler's late answer is dropped. A request's `?timeout=` (a duration
   * such as `5s`) lowers it. Watches are bounded by {@link minRequestTimeoutSeconds} instead.
   */
  requestTimeoutMs?: number;
  /**
   * A watch without `timeoutSeconds` ends after a random duration from this many seconds to
   * twice that (`--min-request-timeout`; 1800 by default), so that clients reconnect spread out.
   */
  minRequestTimeoutSeconds?: number;
  /** Largest accepted request body, in bytes (3 MiB by default); larger is 413. */
  maxRequestBodyBytes?: number;
  /** After {@link APIServer.shutdown} starts, `/readyz` fails for this long before it resolves (ms). */
  shutdownDelayMs?: number;
  /** For this long after start, `/livez` reports start-up hooks as passing while they run (ms). */
  livezGracePeriodMs?: number;
  /**
   * How the ServiceAccount `token` sub-resource issues tokens: the issuer, the default audiences
   * and the signing key. Without a key, an ECDSA P-256 key is generated on the first token
   * request (never at construction), so an in-process server issues tokens with no configuration.
   */
  serviceAccountTokens?: ServiceAccountTokenOptions;
  /**
   * Who may call, besides the server's own service-account tokens: request authenticators
   * (`x509Authenticator`, `requestHeaderAuthenticator` of `@orch/authn`) run in the order given;
   * then a bearer token goes through the server's service-account (and, with
   * {@link bootstrapTokenAuth}, bootstrap) token authenticators and the token authenticators
   * given here (`parseTokenFile`, `oidcAuthenticator`, `tokenWebhookAuthenticator`), also in
   * order. The first user wins; a credential that is presented and refused is 401.
   */
  authenticators?: readonly (Authenticator | TokenAuthenticator)[];
  /**
   * Serve a request that presents no credential as `system:anonymous` in
   * `system:unauthenticated` (true, the default); false answers it 401.
   */
  anonymousAuth?: boolean;
  /**
   * Accept bootstrap tokens: Secrets `bootstrap-token-<id>` of type `bootstrap.<domain>/token`
   * in the system namespace (`orch-system`). Default false.
   */
  bootstrapTokenAuth?: boolean;
  /**
   * Who may do what: the authorizers asked in order (`--authorization-mode`), each a mode
   * (`"AlwaysAllow"`, `"AlwaysDeny"`, `"RBAC"`, `"Node"`) or an {@link Authorizer} of your own
   * (the SubjectAccessReview webhook of `@orch/authz`, say). The first to allow or deny decides;
   * members of `system:masters` may do everything. Default `["AlwaysAllow"]`: an embedded server
   * without options lets every caller, anonymous included, do everything (`orch-apiserver`
   * defaults to `Node,RBAC`).
   */
  authorization?: readonly (AuthorizationMode | Authorizer)[];
  /**
   * What every write passes through after authorization (`--enable-admission-plugins` and
   * friends): a list of built-in plugin names and plugins of your own, or the whole
   * {@link AdmissionOptions} (plugins, their configuration, the webhook transport). Default: the
   * reference's default-on set (`defaultAdmissionPlugins` of `@orch/admission`); `[]` turns
   * admission off.
   */
  admission?: readonly (string | AdmissionPlugin)[] | AdmissionOptions;
  /**
   * Receives one line per refused credential and from the authenticators (discovery, webhook
   * failures): what a client is never told. Nothing is logged by default.
   */
  log?: (message: string) => void;
  /**
   * Records requests as `audit.<domain>/v1` Events (`--audit-policy-file`, `--audit-log-path`,
   * `--audit-webhook-config-file`): the policy decides the level of each request, the sink
   * receives the events (`batchingSink` and `fanOutSink` build webhook-style and several
   * backends). No auditing by default.
   */
  audit?: { policy: AuditPolicy; sink: AuditSink };
  /**
   * Where the server records request counts, latencies, in-flight and long-running requests,
   * authentication, authorization, admission, store calls, deprecated versions asked for and
   * audit events ({@link MetricsRecorder}); nothing is recorded (and nothing is measured) by default. A recorder that can render (a
   * `MetricsRegistry`, such as `prometheusMetrics()` of `@orch/node`) is also served at
   * `GET /metrics` to callers allowed `get` on that path.
   */
  metrics?: MetricsRecorder;
  /**
   * Flow control, between impersonation and authorization. Absent (the default of an embedded
   * server): no stage at all, so nothing is counted or limited per request. Given: API Priority
   * and Fairness when `enabled` is not false (the built-in FlowSchemas and
   * PriorityLevelConfigurations are created at start and kept; the limited levels share
   * `maxRequestsInflight + maxMutatingRequestsInflight` seats (400 + 200 by default) by their
   * shares; a request waits in its queue at most `maxQueueWaitMs`, 15 000 by default, then is
   * refused 429); with `enabled: false`, the max-in-flight limit of reads
   * (`maxRequestsInflight`) and writes (`maxMutatingRequestsInflight`), 0 for no limit.
   * `orch-apiserver` turns API Priority and Fairness on (`--enable-priority-and-fairness`).
   */
  flowControl?: { enabled?: boolean; maxRequestsInflight?: number; maxMutatingRequestsInflight?: number; maxQueueWaitMs?: number };
  /**
   * Where clients reach this server (`--advertise-address` and `--secure-port`): with it, the
   * `kubernetes` Service of `default` is created at start and this address is kept in its
   * Endpoints (and EndpointSlice) by a Lease renewed every 10 s, and removed at
   * {@link APIServer.shutdown}. A server that learns
   * its port only when it listens calls {@link APIServer.advertise} instead. Absent: no
   * `kubernetes` Service is made.
   */
  advertise?: AdvertisedEndpoint;
  /**
   * The range cluster IPs come from (`--service-cluster-ip-range`, `10.96.0.0/12`): the
   * `kubernetes` Service gets its first address. Absent: that Service gets an allocated one.
   * @throws TypeError from the constructor for a range that does not parse.
   */
  serviceClusterIPRange?: string;
}

/** The conversions of one kind to its storage version, as the server collects them from the catalog. */
type KindVersions = StoredVersions & { toStorage: Map<string, NonNullable<ResourceVersion["toStorage"]>> };

/** Default size limit of a request body: 3 MiB, as the reference. */
export const defaultMaxRequestBodyBytes = 3 * 1024 * 1024;

/** The version `/version` reports; the minor tracks the reference release whose API this follows. */
export const serverVersion = {
  major: "1",
  minor: "32",
  gitVersion: "v1.32.0-orch",
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "2026-11-21T00:00:00Z",
  goVersion: "",
  compiler: "orch",
  platform: "js/any",
} as const;

/**
 * A Kubernetes-style API server with no network of its own: hand it {@link APIRequest}s through
 * {@link APIServer.handle} (the `@orch/node` adapter does, over HTTP), or use
 * {@link APIServer.fetch} from a framework that speaks web-standard `Request`/`Response`.
 *
 * @example
 * const server = new APIServer();
 * const res = await server.fetch(new Request("http://x/api/v1/namespaces"));
 */
export class APIServer {
  /** The store objects live in: the given one, or a `WatchCache` in front of it. */
  readonly store: Store;
  /** The server's clock. */
  readonly clock: Clock;
  /** The product domain. */
  readonly domain: string;
  /** Largest accepted body in bytes. */
  readonly maxRequestBodyBytes: number;
  /** The catalog of this server, every version whether served or not, with the domain resolved. */
  readonly registry: ResourceRegistry;
  /** Signs the tokens of the ServiceAccount `token` sub-resource (and knows the key they verify with). */
  readonly serviceAccountTokens: ServiceAccountTokenSigner;

  /** The served versions of every kind, for routing and discovery. */
  readonly #served: ServedResource[];
  /** Every version of every kind, served or not: stored objects are found through it. */
  readonly #stored: ServedResource[];
  /** The storage version of every kind, by `<group>/<resource>` (what the write path and controllers look up). */
  readonly #storage = new Map<string, ServedResource>();
  /** The catalog with only the served versions, for the OpenAPI documents. */
  readonly #openAPI: ResourceRegistry;
  readonly #byPath = new Map<string, ServedResource>();
  /** How objects of kinds with several versions reach their storage version, by store prefix. */
  readonly #storedVersions = new Map<string, KindVersions>();
  readonly #objects: ObjectStore;
  readonly #rest: RestContext;
  /** The server's authentication: the union of every authenticator, and the token review. */
  readonly #authentication: ServerAuthentication;
  /** The server's authorization: the chain of its modes, with RBAC's index when RBAC is on. */
  readonly #authorization: ServerAuthorization;
  /** The server's admission: the plugin chain every write passes through. */
  readonly #admission: ServerAdmission;
  /** The request pipeline: the stages in front of the REST handler. */
  readonly #pipeline: Handler;
  readonly #startedAt: number;
  readonly #shutdownDelayMs: number;
  readonly #livezGracePeriodMs: number;
  #ready: Promise<void> | undefined;
  /** The store without the watch cache: health checks ask it. */
  readonly #upstream: Store;
  readonly #cache: WatchCache | undefined;
  readonly #metrics: MetricsRecorder;
  /** API Priority and Fairness, when on. */
  readonly #flowControl: FlowControl | undefined;
  #started = false;
  #shuttingDown = false;
  /** What the server's own-object reconcilers need of it. */
  readonly #system: ControllerInput;
  /** Where this server is reached, once known: its address is in the `kubernetes` Endpoints. */
  #advertised: AdvertisedEndpoint | undefined;
  readonly #serviceClusterIPRange: string | undefined;
  /** This server's endpoint lease, which keeps its address in the `kubernetes` Endpoints while it serves. */
  #endpointLease: APIServerEndpointLease | undefined;

  constructor(options: APIServerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    const base = options.store ?? new MemoryStore({ clock: this.clock });
    this.#upstream = base;
    // Objects stored in an older version of their kind are converted as they leave the store,
    // below the watch cache, so that every reader sees (and caches) the storage version.
    // With metrics, every call into the store is timed (etcd_request_duration_seconds).
    const decoded = new DecodingStore(options.metrics ? measuredStore(base, options.metrics) : base, this.#storedVersions);
    if (options.watchCache ?? !(base instanceof MemoryStore)) this.#cache = new WatchCache(decoded, { clock: this.clock });
    this.store = this.#cache ?? decoded;
    this.domain = options.domain ?? "orch.io";
    this.maxRequestBodyBytes = options.maxRequestBodyBytes ?? defaultMaxRequestBodyBytes;
    this.#shutdownDelayMs = options.shutdownDelayMs ?? 0;
    this.#livezGracePeriodMs = options.livezGracePeriodMs ?? 0;
    this.#startedAt = this.clock.now();
    this.#metrics = options.metrics ?? noopMetrics;
    this.registry = new ResourceRegistry([...builtinResources, ...(options.resources ?? [])], this.domain);
    const isServed = runtimeConfigPredicate(this.registry, options.runtimeConfig);
    this.#openAPI = servedRegistry(this.registry, isServed);
    this.#served = [];
    this.#stored = [];
    for (const type of this.registry.types) {
      const group = this.registry.groupOf(type);
      for (const version of type.versions) {
        const served = serveResource(type, group, version, type.storedAs ? resolveGroup(type.storedAs.group, this.domain) : "", this.domain);
        this.#stored.push(served);
        const key = `${group}/${type.resource}`;
        if (version.storage && !this.#storage.has(key)) this.#storage.set(key, served);
        // A kind stored as another's is never stored in its own versions: nothing to decode.
        if (version.toStorage && !type.storedAs) this.#toStorageOf(served).toStorage.set(served.apiVersion, version.toStorage);
        if (!isServed(group, type.resource, version)) continue;
        this.#served.push(served);
        this.#byPath.set(`${group}/${version.name}/${type.resource}`, served);
      }
    }
    this.serviceAccountTokens = new ServiceAccountTokenSigner(this.domain, options.serviceAccountTokens);
    this.#objects = new ObjectStore(this.store, this.clock, this.domain, () => this.#admission.chain, {
      get: (group, resource, namespace, name) => this.#getStored(group, resource, namespace, name),
      list: (group, resource, namespace) => this.#listStored(group, resource, namespace),
      updateStatus: (group, resource, object) => this.#updateStoredStatus(group, resource, object),
      reviewToken: (token, audiences) => this.#authentication.reviewToken(token, audiences),
      authorize: (attributes) => this.#authorization.authorizer.authorize(attributes),
      rulesFor: (user, namespace) => this.#authorization.rulesFor(user, namespace),
      uncoveredRules: (user, namespace, rules) => this.#authorization.uncoveredRules(user, namespace, rules),
      reviewImages: (review) => this.#admission.reviewImages(review),
      serviceAccountTokens: this.serviceAccountTokens,
    });
    const log = options.log ?? (() => undefined);
    // What the controllers need of the server, built once (authorization and admission run some).
    const controllers: ControllerInput = {
      domain: this.domain,
      store: this.store,
      clock: this.clock,
      objects: this.#objects,
      served: (group, resource) => this.#storedOf(group, resource),
      log,
    };
    this.#system = controllers;
    this.#advertised = options.advertise;
    if (options.serviceClusterIPRange !== undefined) firstServiceIP(options.serviceClusterIPRange);
    this.#serviceClusterIPRange = options.serviceClusterIPRange;
    this.#rest = {
      store: this.store,
      clock: this.clock,
      domain: this.domain,
      objects: this.#objects,
      lookup: (group, version, resource) => this.#byPath.get(`${group}/${version}/${resource}`),
      facts: { storeHealthy: () => this.#storeAnswers(), controllersRunning: () => this.#started && !this.#shuttingDown },
      ...(options.minRequestTimeoutSeconds !== undefined ? { minRequestTimeoutSeconds: options.minRequestTimeoutSeconds } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
    };
    const tokens = options.serviceAccountTokens ?? {};
    this.#authentication = serverAuthentication({
      authenticators: options.authenticators ?? [],
      domain: this.domain,
      signer: this.serviceAccountTokens,
      verificationKeys: tokens.verificationKeys ?? [],
      lookup: tokens.lookup ?? true,
      bootstrapTokens: options.bootstrapTokenAuth ?? false,
      getter: (group, resource, namespace, name) => this.#findStored(group, resource, namespace, name),
      clock: this.clock,
      log,
    });
    this.#authorization = serverAuthorization({
      ...controllers,
      modes: options.authorization ?? ["AlwaysAllow"],
      ready: () => this.ready(),
    });
    const admission = options.admission ?? {};
    this.#admission = serverAdmission({
      ...controllers,
      options: Array.isArray(admission) ? { plugins: admission as readonly (string | AdmissionPlugin)[] } : (admission as AdmissionOptions),
      resourceForKind: (group, kind) => {
        const served = this.#stored.find((s) => s.group === group && s.type.kind === kind);
        return served ? { resource: served.type.resource, namespaced: served.namespaced } : undefined;
      },
      authorize: (attributes) => this.#authorization.authorizer.authorize(attributes),
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
    // The reference's handler chain, outermost first: errors become Status responses, the body
    // limit, request info, the time limit, authentication, impersonation, flow control (when on), authorization; the REST
    // handler last.
    // Audit wraps what follows authentication (and records the 401s of authentication).
    const fc = options.flowControl;
    const readLimit = fc?.maxRequestsInflight ?? 400;
    const writeLimit = fc?.maxMutatingRequestsInflight ?? 200;
    if (fc && fc.enabled !== false) {
      this.#flowControl = new FlowControl(controllers, {
        serverConcurrencyLimit: readLimit + writeLimit,
        maxQueueWaitMs: fc.maxQueueWaitMs ?? defaultMaxQueueWaitMs,
        metrics: this.#metrics,
      });
    }
    // No option, no stage: an embedded server without flow control pays nothing per request.
    const flowControlStages = !fc
      ? []
      : this.#flowControl
        ? [withPriorityAndFairness(this.#flowControl, this.domain)]
        : [withMaxInFlightLimit({ readOnly: readLimit, mutating: writeLimit })];
    const metrics = options.metrics ? { metrics: options.metrics } : {};
    const audit = options.audit ? auditStages({ ...options.audit, domain: this.domain, clock: this.clock, ...metrics }) : undefined;
    this.#pipeline = chain(
      [
        withErrorResponses,
        withBodyLimit(this.maxRequestBodyBytes),
        withRequestInfo,
        // No recorder, no stage: an embedded server without metrics pays nothing per request.
        ...(options.metrics ? [withMetrics(options.metrics)] : []),
        withTimeout({ requestTimeoutMs: options.requestTimeoutMs ?? defaultRequestTimeoutMs, clock: this.clock }),
        ...(audit ? [audit.failedAuthentication] : []),
        withAuthentication(this.#authentication.authenticator, {
          anonymous: options.anonymousAuth ?? true,
          ...(options.log ? { log: options.log } : {}),
          ...metrics,
        }),
        ...(audit ? [audit.audit] : []),
        withImpersonation(this.#authorization.authorizer, this.domain),
        ...flowControlStages,
        withAuthorization(this.#authorization.authorizer, defaultAlwaysAllowPaths, { domain: this.domain, ...metrics }),
      ],
      (request) => this.#serve(request),
    );
  }

  /**
   * Resolves once the built-in namespaces exist and the server can serve. Concurrent calls share
   * one start-up; after a failed one (the store did not answer, say) the next call, or the next
   * request, starts over, so a server built before its store is reachable starts once it is.
   * @throws what the store threw, typically a 503 or 504 StatusError.
   */
  ready(): Promise<void> {
    this.#ready ??= this.#start();
    return this.#ready;
  }

  async #start(): Promise<void> {
    try {
      await this.#cache?.start();
      const namespaces = this.#storedOf("", "namespaces");
      if (!namespaces) throw new Error("the catalog must serve namespaces");
      await createBuiltinNamespaces(this.#objects, namespaces, this.domain);
      await ensureSystemPriorityClasses(this.#system);
      await reconcileLocalAPIServices(this.#system, this.#servedGroupVersions());
      if (this.#advertised && !this.#endpointLease) {
        const lease = new APIServerEndpointLease(this.#system, this.#advertised, this.#kubernetesServiceOptions());
        await lease.start();
        this.#endpointLease = lease;
      }
      await this.#authorization.start();
      await this.#admission.start();
      await this.#flowControl?.start();
      this.#started = true;
    } catch (error) {
      this.#ready = undefined;
      throw error;
    }
  }

  /** Every group and version this server serves, once each. */
  #servedGroupVersions(): { group: string; version: string }[] {
    const seen = new Map<string, { group: string; version: string }>();
    for (const r of this.#served) seen.set(`${r.group}/${r.version.name}`, { group: r.group, version: r.version.name });
    return [...seen.values()];
  }

  /** The options of the `kubernetes` Service's reconciler: the service range, and whether EndpointSlices are served. */
  #kubernetesServiceOptions(): { serviceClusterIPRange?: string; endpointSlices: boolean } {
    const endpointSlices = this.#served.some((r) => r.group === `discovery.${this.domain}` && r.type.resource === "endpointslices");
    return { endpointSlices, ...(this.#serviceClusterIPRange !== undefined ? { serviceClusterIPRange: this.#serviceClusterIPRange } : {}) };
  }

  /**
   * Says where clients reach this server, for a server that learns its port when it listens
   * (`--secure-port 0`): after the start-up, the `kubernetes` Service of `default` is created if
   * missing and `endpoint`'s address added to its Endpoints (and EndpointSlice); it is removed
   * again at {@link shutdown}. The same as the `advertise` option for a server that knows it.
   * @throws what the store threw.
   */
  async advertise(endpoint: AdvertisedEndpoint): Promise<void> {
    await this.ready();
    const previous = this.#advertised;
    if (this.#endpointLease && previous?.address === endpoint.address && previous.port === endpoint.port) return;
    this.#advertised = endpoint;
    await this.#endpointLease?.stop();
    const lease = new APIServerEndpointLease(this.#system, endpoint, this.#kubernetesServiceOptions());
    this.#endpointLease = lease;
    await lease.start();
  }

  /** True when the store (without the watch cache) answers. */
  async #storeAnswers(): Promise<boolean> {
    try {
      return (await this.#upstream.revision()) >= 0;
    } catch {
      return false;
    }
  }

  /** One stored object of another resource, for strategies that read across kinds. */
  async #getStored(group: string, resource: string, namespace: string, name: string): Promise<APIObject> {
    const found = await this.#findStored(group, resource, namespace, name, false);
    if (!found) throw notFound(this.#storedOf(group, resource)?.qualifiedResource ?? { group, resource }, name);
    return found;
  }

  /** The stored objects of another resource in `namespace`, for strategies that read across kinds. */
  async #listStored(group: string, resource: string, namespace: string): Promise<APIObject[]> {
    const served = this.#storedOf(group, resource);
    if (!served) return [];
    const { entries } = await this.store.list(collectionPrefix(served, namespace));
    return entries.map(wireObject);
  }

  /** A write of the status of another resource's object by the server itself (an eviction's PodDisruptionBudget). */
  async #updateStoredStatus(group: string, resource: string, object: APIObject): Promise<APIObject> {
    const served = this.#storedOf(group, resource);
    const name = object.metadata.name ?? "";
    if (!served) throw notFound({ group, resource }, name);
    const written = await this.#objects.update(served, object.metadata.namespace ?? "", name, mutableCopy(object), "status", {
      dryRun: false,
      fieldValidation: "Ignore",
      warnings: [],
    });
    return written.body as APIObject;
  }

  /** The conversions of `served`'s kind to its storage version, made on first use. */
  #toStorageOf(served: ServedResource): KindVersions {
    let kind = this.#storedVersions.get(served.keyPrefix);
    if (!kind) {
      const storage = served.type.versions.find((v) => v.storage) ?? served.version;
      kind = { storageAPIVersion: served.group ? `${served.group}/${storage.name}` : storage.name, toStorage: new Map() };
      this.#storedVersions.set(served.keyPrefix, kind);
    }
    return kind;
  }

  /** The served resource of the storage version of `group`/`resource`. */
  #storedOf(group: string, resource: string): ServedResource | undefined {
    return this.#storage.get(`${group}/${resource}`);
  }

  /**
   * One stored object, or `undefined` when there is none (authenticators read Secrets,
   * ServiceAccounts and the objects tokens are bound to). With `started`, waits for the start-up
   * first (authentication runs before the REST handler does).
   */
  async #findStored(group: string, resource: string, namespace: string, name: string, started = true): Promise<APIObject | undefined> {
    if (started) await this.ready();
    const served = this.#storedOf(group, resource);
    if (!served) return undefined;
    const entry = await this.store.get(objectKey(served, namespace, name));
    return entry ? wireObject(entry) : undefined;
  }

  /**
   * The checks of `/healthz` and `/livez` (ping, log, etcd, the start-up hook) and `/readyz`
   * (the same, with start-up done, and not shutting down). As in the reference, `etcd` is a
   * check of all three (probes that should not restart a server for a lost etcd ask for
   * `/livez?exclude=etcd`). A start-up that has not finished passes the liveness hook, even past
   * the grace period, while the store does not answer: it waits for the store, it is not stuck.
   */
  #checks(endpoint: "healthz" | "livez" | "readyz"): HealthCheck[] {
    const checks: HealthCheck[] = [
      { name: "ping", check: async () => true },
      { name: "log", check: async () => true },
    ];
    checks.push({ name: "etcd", check: () => this.#storeAnswers() });
    checks.push({
      name: "poststarthook/start-namespace-lifecycle",
      check:
        endpoint === "readyz"
          ? async () => this.#started
          : async () => this.#started || this.clock.now() - this.#startedAt < this.#livezGracePeriodMs || !(await this.#storeAnswers()),
    });
    if (endpoint === "readyz") checks.push({ name: "shutdown", check: async () => !this.#shuttingDown });
    return checks;
  }

  /**
   * Serves one request through the pipeline (request info, authentication, then the REST
   * handler). Never rejects: every failure is a Status response. The stages note what they find
   * on `request` itself (`info`, `user`, `audiences`) and remove credentials from its headers;
   * a `user` set by the caller is kept (a trusted in-process caller acting as someone).
   */
  handle(request: APIRequest): Promise<APIResponse> {
    return this.#pipeline(request as ServerRequest);
  }

  /**
   * The innermost handler. A request for a served resource, once the start-up is done, goes
   * straight to the REST handler (no async frame of its own in between: each costs the request
   * turns of the microtask queue); anything else, as `#serveAny` serves it.
   */
  #serve(request: ServerRequest): Promise<APIResponse> {
    const info = request.info;
    if (info?.isResourceRequest && this.#started) {
      const s = info.parsed.segments;
      // The paths #serveAny answers before the REST handler (discovery of a group version) are
      // never resource requests; this only makes that plain.
      if (s[0] === "api" ? s.length > 2 : s[0] === "apis" && s.length > 3) {
        const served = this.#byPath.get(`${info.group}/${info.version}/${info.resource}`);
        if (served) return serveRest(this.#rest, served, info, request, info.parsed.query);
      }
    }
    return this.#serveAny(request);
  }

  /** Health, discovery, OpenAPI and `/version`, then the REST verbs. */
  async #serveAny(request: ServerRequest): Promise<APIResponse> {
    const info = request.info;
    if (!info) throw new TypeError("the request info stage must run before the REST handler");
    const parsed = info.parsed;
    const s = parsed.segments;
    const method = request.method.toUpperCase();
    const head = s[0];
    if (head === "metrics" && s.length === 1 && canRender(this.#metrics))
      return await metricsResponse(method, this.#metrics, this.store, [...this.#storage.values()]);
    if (head === "livez" || head === "readyz" || head === "healthz") {
      if (s.length > 2) noSuchResource();
      return await healthResponse(head, this.#checks(head), parsed.query, s[1]);
    }
    const read = method === "GET" || method === "HEAD";
    const discovery = (body: object | undefined, contentType?: string) => {
      const pretty = parsed.query.has("pretty") && parsed.query.get("pretty") !== "false";
      if (!body) noSuchResource();
      if (!read) throw statusError("MethodNotAllowed", `the server does not allow this method on the requested resource`);
      const response = encodeResponse(200, body, { pretty });
      if (contentType) response.headers.set("Content-Type", contentType);
      return response;
    };
    if (head === undefined) return discovery({ paths: ["/api", "/api/v1", "/apis", "/healthz", "/livez", "/openapi/v3", "/readyz", "/version"] });
    if (head === "version" && s.length === 1) return discovery(serverVersion);
    if (head === "openapi" && s[1] === "v3") {
      if (s.length === 2) return discovery(openAPIIndex(this.#openAPI));
      const group = s[2] === "api" && s.length === 4 ? "" : s[2] === "apis" && s.length === 5 ? (s[3] as string) : undefined;
      const version = s[s.length - 1] as string;
      return discovery(group === undefined ? undefined : openAPIDocument(this.#openAPI, group, version));
    }
    if (head === "api" && s.length <= 2) {
      if (s.length === 1) {
        const aggregated = aggregatedDiscoveryAccepted(request.headers.get("accept"), this.domain);
        if (aggregated) return discovery(aggregatedDiscovery(this.#served, true, this.domain, aggregated.includes("v=v2beta1") ? "v2beta1" : "v2"), aggregated);
        return discovery(apiVersions(this.#served, request.headers.get("host") ?? "127.0.0.1"));
      }
      return discovery(apiResourceList(this.#served, "", s[1] as string, this.domain));
    }
    if (head === "apis" && s.length <= 3) {
      if (s.length === 1) {
        const aggregated = aggregatedDiscoveryAccepted(request.headers.get("accept"), this.domain);
        if (aggregated)
          return discovery(aggregatedDiscovery(this.#served, false, this.domain, aggregated.includes("v=v2beta1") ? "v2beta1" : "v2"), aggregated);
        return discovery(apiGroupList(this.#served));
      }
      if (s.length === 2) return discovery(apiGroupOf(this.#served, s[1] as string));
      return discovery(apiResourceList(this.#served, s[1] as string, s[2] as string, this.domain));
    }
    if (!info.isResourceRequest) {
      if ((head === "api" || head === "apis") && !["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].includes(method)) {
        throw statusError("MethodNotAllowed", `${method} is not supported`);
      }
      noSuchResource();
    }
    const served = this.#byPath.get(`${info.group}/${info.version}/${info.resource}`);
    if (!served) noSuchResource();
    // Only requests for resources need the store: discovery, /version and OpenAPI are served
    // before the start-up is done (and while the store does not answer). Once it is done, no
    // wait (a turn of the microtask queue per request) for the promise that says so.
    if (!this.#started) await this.ready();
    return await serveRest(this.#rest, served, info, request, parsed.query);
  }

  /**
   * The fetch-style handler: a web-standard `Request` in, a `Response` out, for Hono and the
   * like. The body is read up to {@link maxRequestBodyBytes} (413 past it); a watch streams as a
   * `ReadableStream`, and ends when `request.signal` aborts or the body is cancelled. With
   * `options.basePath` (`"/k8s"`) the API is served under that prefix and any other path is a 404
   * Status. A `Request` whose body a middleware already read is a 500 Status saying so.
   * @throws TypeError (a rejection) for a `basePath` that is not a path.
   * @example
   * ```ts
   * app.all("/k8s/*", (c) => server.fetch(c.req.raw, { basePath: "/k8s" })); // Hono
   * ```
   */
  fetch(request: Request, options?: FetchOptions): Promise<Response> {
    return serveFetch(this, request, options);
  }

  /**
   * Starts a graceful shutdown: `/readyz` fails at once, and the promise resolves after the
   * shutdown delay, when the adapter should stop accepting connections. Controllers stop then.
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    if (this.#shutdownDelayMs > 0) await new Promise<void>((resolve) => this.clock.setTimer(this.#shutdownDelayMs, resolve));
    // Clients stop being sent here: this server's address leaves the `kubernetes` Endpoints.
    await this.#endpointLease?.stop();
    this.#authorization.stop();
    this.#admission.stop();
    this.#flowControl?.stop();
    this.#cache?.stop();
  }
}
