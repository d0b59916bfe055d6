/**
 * What the catalog says about one kind: where it is served, its schema per version, and the
 * strategy the server applies on every write. The server knows kinds only through this.
 * @module
 */
import type { APIObject, FieldError } from "@orch/meta";
import type { z } from "zod";
import type { ServiceAccountTokenIssuer } from "./token-request.js";

/** Whether objects live in a namespace or across the cluster. */
export type Scope = "Namespaced" | "Cluster";

/** The verbs a resource type can offer (discovery lists the ones it does). */
export type Verb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection";

/** How a server serves a version, for {@link ResourceVersion.fromStorage}. */
export interface ServedVersion {
  /** The version's `apiVersion` with the domain resolved (`events.k8s.io/v1`). */
  apiVersion: string;
  /** The server's product domain (`orch.io`, `k8s.io`). */
  domain: string;
}

/** One served version of a kind. */
export interface ResourceVersion {
  /** `v1`, `v1beta1`, ... */
  name: string;
  /** The schema of the whole object (apiVersion, kind, metadata and the rest). */
  schema: z.ZodType;
  /** True for the one version objects are stored in. */
  storage: boolean;
  /** Served but deprecated: requests get a `Warning` header. */
  deprecated?: boolean;
  /**
   * For a deprecated version, the release the reference removes it in (`1.22`): reported in
   * `apiserver_requested_deprecated_apis{removed_release}` and the audit annotation
   * `<domain>/removed-release`. Absent when no removal is planned.
   */
  removedRelease?: string;
  /**
   * Whether the server serves this version when its `--runtime-config` (`runtimeConfig` of the
   * server's options) says nothing about it; absent means true. Alpha versions the reference
   * leaves off, such as ImageReview's `imagepolicy/v1alpha1`, are false. A version that is not
   * served is absent from discovery and answers 404, but objects stored in it stay readable
   * through the versions that are served.
   */
  enabledByDefault?: boolean;
  /**
   * Defaults of this version alone, run on objects written through it before conversion
   * (admissionregistration `v1beta1` defaults `failurePolicy` to `Ignore`, `v1` to `Fail`).
   */
  defaults?(object: APIObject, ctx: StrategyContext): void;
  /**
   * Converts an object of this version to the storage version (the result carries the storage
   * version's `apiVersion`). Absent on the storage version; required on every other version.
   * Round trips through {@link fromStorage} must lose nothing (annotations may carry fields one
   * version lacks).
   */
  toStorage?(object: APIObject): APIObject;
  /**
   * Converts a stored object to this version (the result carries this version's `apiVersion`).
   * `served` says how the server serves it: the `apiVersion` with the domain resolved (for kinds
   * whose stored objects do not carry it, a {@link ResourceType.storedAs} kind) and the domain
   * (for annotations named after it); absent where a caller has no server.
   */
  fromStorage?(object: APIObject, served?: ServedVersion): APIObject;
}

/** A Table column and how a cell is computed from an object. */
export interface TableColumn {
  name: string;
  /** OpenAPI type of the cell: `string`, `integer`, `number`, `boolean`. */
  type: string;
  /** `date` for timestamps shown as ages, `name` for the Name column. */
  format?: string;
  description: string;
  /** 0 shows by default; higher shows with `-o wide`. */
  priority: number;
  /**
   * The cell of `object`. `now` (milliseconds since the epoch, from the server's Clock) is for
   * cells that show an age, such as Event's `Last Seen`; without it they use `Date.now()`.
   */
  cell(object: APIObject, now?: number): unknown;
}

/** The context a strategy runs in. */
export interface StrategyContext {
  /** The product domain (`orch.io` by default). */
  domain: string;
  /** Now, in milliseconds since the epoch, from the server's Clock. */
  now: number;
  /**
   * Reads another object of the same server in its stored form (the ServiceAccount `token`
   * action reads the pod it binds a token to). `group` is resolved (`""` for core); `namespace`
   * is ignored for cluster-scoped resources. Absent where a strategy runs without a server.
   * @throws StatusError 404 NotFound (`pods "x" not found`) when there is no such object.
   */
  get?(group: string, resource: string, namespace: string, name: string): Promise<APIObject>;
  /**
   * Reads the stored objects of another resource in `namespace` (every namespace when `""`; the
   * eviction of a pod reads the PodDisruptionBudgets of its namespace). `group` is resolved.
   * Absent where a strategy runs without a server.
   */
  list?(group: string, resource: string, namespace: string): Promise<APIObject[]>;
  /**
   * Writes the `status` of `object`, a stored object of another resource that the strategy read
   * and changed, as a PUT to its `/status` by the server itself would (validated, no admission),
   * with `object`'s resourceVersion as the precondition (an eviction counts down its
   * PodDisruptionBudget). `group` is resolved. Absent where a strategy runs without a server.
   * @throws StatusError 409 Conflict when the object changed since it was read, 404 when it is gone.
   */
  updateStatus?(group: string, resource: string, object: APIObject): Promise<APIObject>;
  /** True while an action sub-resource runs for a dry-run request: it may write nothing else either. */
  dryRun?: boolean;
  /** Signs service-account tokens for the ServiceAccount `token` action; supplied by the server. */
  serviceAccountTokens?: ServiceAccountTokenIssuer;
  /** Who makes the request, as the server's authentication found (SelfSubjectReview answers it). */
  user?: RequestUser;
  /**
   * Authenticates a bearer token with the server's token authenticators, for a TokenReview:
   * `audiences` are the review's (empty for the server's own). Supplied by the server.
   */
  reviewToken?(token: string, audiences: readonly string[]): Promise<TokenReviewResult>;
  /**
   * Asks the server's authorization chain about `attributes` (SubjectAccessReview and its
   * kin; the CSR approver check; RBAC's `escalate` and `bind`). Supplied by the server.
   */
  authorize?(attributes: AccessAttributes): Promise<AccessDecision>;
  /** The rules `user` holds in `namespace` across the chain (SelfSubjectRulesReview). Supplied by the server. */
  rulesFor?(user: RequestUser, namespace: string): Promise<AccessRules>;
  /**
   * The rules of `rules` that `user` does not hold in `namespace` (`""`: cluster-wide), by RBAC's
   * coverage (the reference's `ConfirmNoEscalation`); empty when every rule is covered. Supplied
   * by a server that runs RBAC.
   */
  uncoveredRules?(user: RequestUser, namespace: string, rules: readonly AccessPolicyRule[]): Promise<AccessPolicyRule[]>;
  /**
   * Asks the image policy webhook about the images of `review` (an ImageReview with its `spec`:
   * containers' images, the pod's `*.image-policy.<domain>/*` annotations, the namespace) and
   * answers its decision, the `status` of the ImageReview. Supplied by a server that runs the
   * ImagePolicyWebhook admission plugin; without it an ImageReview create is refused (405).
   */
  reviewImages?(review: APIObject): Promise<ImageReviewResult>;
}

/** What an image review decided: the `status` of an ImageReview. */
export interface ImageReviewResult {
  /** Whether every image may run. */
  allowed: boolean;
  /** Why not, when not allowed. */
  reason?: string;
  /** Annotations the admission plugin adds to the audit event (keys without the plugin's prefix). */
  auditAnnotations?: Record<string, string>;
}

/** One access question (the shape of `@orch/authz`'s `Attributes`). */
export interface AccessAttributes {
  /** Who asks. */
  user: RequestUser;
  /** The verb (`get`, `create`, `approve`, `bind`, `escalate`, `impersonate`, or an HTTP method for a path). */
  verb: string;
  /** True for a resource question, false for a non-resource path. */
  resourceRequest: boolean;
  /** The API group of a resource question. */
  apiGroup?: string;
  /** The API version of a resource question. */
  apiVersion?: string;
  /** The resource. */
  resource?: string;
  /** The sub-resource, `""` for none. */
  subresource?: string;
  /** The namespace, `""` for cluster scope. */
  namespace?: string;
  /** The name, `""` for all. */
  name?: string;
  /** The path of a non-resource question. */
  path?: string;
}

/** The answer to an {@link AccessAttributes} question. */
export interface AccessDecision {
  /** `allow`, `deny`, or `noOpinion` (which a server treats as a denial). */
  decision: "allow" | "deny" | "noOpinion";
  /** Why. */
  reason: string;
  /** A failure that kept an authorizer from deciding. */
  error?: string;
}

/** A policy rule as RBAC writes it. */
export interface AccessPolicyRule {
  /** Verbs, `*` for all. */
  verbs: string[];
  /** API groups, `*` for all. */
  apiGroups?: string[];
  /** Resources (`pods`, `pods/log`, `*`, or a sub-resource of every resource: star, slash, `scale`). */
  resources?: string[];
  /** Names the rule is limited to. */
  resourceNames?: string[];
  /** Non-resource paths (`/healthz`, `/api/*`). */
  nonResourceURLs?: string[];
}

/** What a user may do in a namespace (the status of a SelfSubjectRulesReview). */
export interface AccessRules {
  /** Resource rules. */
  resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames: string[] }[];
  /** Non-resource rules. */
  nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[];
  /** True when some authorizer cannot list its rules. */
  incomplete: boolean;
  /** Why the list may be partial. */
  evaluationError?: string;
}

/** The identity of a caller, as authentication reports it (the shape of `@orch/authn`'s `UserInfo`). */
export interface RequestUser {
  /** The user name. */
  name: string;
  /** A value that identifies the user across time. */
  uid?: string;
  /** The user's groups. */
  groups: string[];
  /** Further attributes. */
  extra?: Record<string, string[]>;
}

/** What a token review found: the `status` of a TokenReview. */
export interface TokenReviewResult {
  /** Whether the token names a known user. */
  authenticated: boolean;
  /** The user, when authenticated. */
  user?: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** The audiences the token is valid for, among the requested ones. */
  audiences?: string[];
  /** Why the token was not authenticated. */
  error?: string;
}

/**
 * What the server tells the provider of a computed kind (`ResourceType.computed`) about
 * itself, on every read: the facts ComponentStatus reports as the health of its components.
 */
export interface ComputedContext {
  /** The product domain (`orch.io` by default). */
  domain: string;
  /** Now, in milliseconds since the epoch, from the server's Clock. */
  now: number;
  /** True when the server's store (behind any cache) answers now; never rejects. */
  storeHealthy(): Promise<boolean>;
  /** True when the server's controllers run: start-up is done and no shutdown has begun. */
  controllersRunning(): boolean;
}

/**
 * A sub-resource that takes a POST of another kind and acts on its parent: Pod `binding` and
 * `eviction`, ServiceAccount `token`. The server decodes the body with `schema`, then `act`
 * decides the answer and what happens to the parent.
 */
export interface ActionSubresource {
  /** The kind of the POSTed body (`Binding`, `Eviction`, `TokenRequest`). */
  kind: string;
  /** Its `apiVersion` with `{domain}` standing for the domain (`v1`, `policy/v1`, `authentication.{domain}/v1`). */
  apiVersion: string;
  /** The schema of the body. */
  schema: z.ZodType;
  /**
   * Decides the action on `parent` (a mutable copy of the stored object) for `body`. Returns the
   * response (`code`, `body`) and what to do with the parent: `"update"` writes the changed
   * parent, `"delete"` deletes it, `"none"` leaves it. Field errors are a 422 on the body's kind;
   * a throw of a StatusError is answered as is (409 for a pod already bound, for instance).
   */
  act(parent: APIObject, body: APIObject, ctx: StrategyContext): ActionResult | FieldError[] | Promise<ActionResult | FieldError[]>;
}

/** An HTTP method a {@link ConnectSubresource} answers (`OPTIONS` is not routed to resources). */
export type ConnectMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";

/**
 * Where a {@link ConnectSubresource} would take a request. `empty`: nothing to connect to, the
 * answer is a 200 with an empty body of `contentType` (the log of a pod not yet scheduled).
 * `backend`: a node agent or a pod at `host` (`10.0.0.5:10250`), reached over `location`; the
 * server answers what the reference answers when that backend cannot be reached, the error
 * shaped by `via`: `stream` (a read streamed from the backend, Pod `log`), `dial` (an upgraded
 * connection, Pod `exec`, `attach`, `portforward`) or `proxy` (a proxied request, Pod `proxy`).
 * With `upgradeRequired`, a request that does not ask for a protocol upgrade is refused 400 first.
 */
export type ConnectTarget =
  { type: "empty"; contentType: string } | { type: "backend"; via: "stream" | "dial" | "proxy"; host: string; location: string; upgradeRequired: boolean };

/**
 * A sub-resource served by connecting the caller to something outside the server (Pod `log`,
 * `exec`, `attach`, `portforward`, `proxy`): the reference's connecters and readers with options.
 * The server decodes the query with {@link options} (before it reads anything), then asks
 * {@link locate} where the request would go.
 */
export interface ConnectSubresource {
  /** The kind discovery names for it (`PodExecOptions`; `Pod` for `log`, which answers a Pod's log). */
  kind: string;
  /** The methods it answers; discovery lists them as verbs (GET `get`, POST `create`, ...). */
  methods: readonly ConnectMethod[];
  /** True when a path may follow the sub-resource (`pods/x/proxy/metrics`); it is given to {@link options}. */
  subpath?: boolean;
  /** True for a read with options (`log`): `dryRun` is ignored, where a connection refuses it (400). */
  read?: boolean;
  /**
   * The options of a request from its query (and sub-path).
   * @throws StatusError 400 for a parameter that does not convert, 422 for invalid options.
   */
  options(query: URLSearchParams, subpath: string, name: string): Record<string, unknown>;
  /**
   * Where the request for the object `name` (which may carry more, as a proxy's `name:port`)
   * in `namespace` would go, reading what it needs through `ctx.get`.
   * @throws StatusError 404 for a missing object, 400 when the object cannot be connected to.
   */
  locate(namespace: string, name: string, options: Record<string, unknown>, ctx: StrategyContext): Promise<ConnectTarget>;
}

/** What an {@link ActionSubresource} decided. */
export interface ActionResult {
  code: number;
  body: unknown;
  parent: "update" | "delete" | "none";
}

/** What a strategy does for a write to one sub-resource other than `status` (`finalize`, ...). */
export interface SubresourceStrategy {
  /**
   * The verbs the sub-resource answers; by default `get`, `update` and `patch`. Namespace
   * `finalize` is `["update"]`, as the reference serves it (PUT only).
   */
  verbs?: readonly ("get" | "update" | "patch")[];
  /** Keeps of `old` what a write to this sub-resource may not change. */
  prepareForUpdate?(object: APIObject, old: APIObject, ctx: StrategyContext): void;
  /** Rules of such a write beyond `validateObjectMetaUpdate`, as field errors. */
  validateUpdate?(object: APIObject, old: APIObject, ctx: StrategyContext): FieldError[];
}

/**
 * The `scale` sub-resource of a kind (Deployment, ReplicaSet, StatefulSet): the server answers
 * it with an `autoscaling/v1` Scale built from these fields of the parent, and a PUT or PATCH of
 * the Scale changes only the parent's spec replicas. The kind lists `scale` in `subresources`.
 * Paths are dotted (`spec.replicas`).
 */
export interface ScaleSubresource {
  /** The desired replicas of the parent, which a write of the Scale sets (`spec.replicas`). */
  specReplicasPath: string;
  /** The observed replicas (`status.replicas`); 0 when unset. */
  statusReplicasPath: string;
  /**
   * The label selector of the pods (`spec.selector`, a LabelSelector object, formatted as a
   * string; or a field that holds the string already, such as `status.selector`).
   */
  labelSelectorPath?: string;
}

/**
 * Per-kind behaviour on writes. Every hook receives a fresh, mutable copy of the object (the
 * server never hands a stored, frozen value to a hook that may change it).
 */
export interface ResourceStrategy {
  /** Fills defaults the schema cannot express. */
  defaults?(object: APIObject, ctx: StrategyContext): void;
  /** Resets what a create may not set (for example `status` when there is a status sub-resource). */
  prepareForCreate?(object: APIObject, ctx: StrategyContext): void;
  /** Resets what an update of the main resource may not change (for example `status`). */
  prepareForUpdate?(object: APIObject, old: APIObject, ctx: StrategyContext): void;
  /** For a write to `/status`: keeps everything of `old` but the status (and allowed metadata). */
  prepareForStatusUpdate?(object: APIObject, old: APIObject, ctx: StrategyContext): void;
  /** The first phase of a deletion that waits for finalizers (Namespace: `status.phase` Terminating). */
  prepareForDelete?(object: APIObject, ctx: StrategyContext): void;
  /**
   * Refuses the deletion of `object` by throwing its StatusError (the system PriorityClasses:
   * 403 Forbidden), before admission runs.
   */
  checkDelete?(object: APIObject, ctx: StrategyContext): void;
  /**
   * The name must be a DNS label (no dots), not a DNS subdomain (Namespace): the server passes
   * it to `validateObjectMeta` on every create and update.
   */
  nameIsLabel?: boolean;
  /**
   * The name need only be a valid path segment, not a DNS subdomain (RBAC roles and bindings:
   * `system:discovery`); passed to `validateObjectMeta` like {@link nameIsLabel}.
   */
  nameIsPathSegment?: boolean;
  /**
   * Rules beyond the schema and beyond `metadata` (the server runs `validateObjectMeta` itself),
   * for a create and again on every update. Field paths are full (`data[a b]`).
   */
  validate?(object: APIObject, ctx: StrategyContext): FieldError[];
  /** Rules a create adds to {@link validate} (events `v1`: a new event has an `eventTime`). */
  validateCreate?(object: APIObject, ctx: StrategyContext): FieldError[];
  /**
   * Rules an update adds to {@link validate} (immutability and the like); the server also runs
   * `validateObjectMetaUpdate`.
   */
  validateUpdate?(object: APIObject, old: APIObject, ctx: StrategyContext): FieldError[];
  /**
   * Rules of a write to `/status` beyond `validateObjectMetaUpdate` (Namespace: the phase must
   * agree with `deletionTimestamp`). When set, it replaces {@link validate} and
   * {@link validateUpdate} for such writes.
   */
  validateStatusUpdate?(object: APIObject, old: APIObject, ctx: StrategyContext): FieldError[];
  /**
   * Strategies of other sub-resources written with PUT/PATCH by name (Namespace `finalize`,
   * CertificateSigningRequest `approval`); the sub-resource must be listed in `subresources`.
   */
  subresourceStrategies?: Readonly<Record<string, SubresourceStrategy>>;
  /** The `scale` sub-resource, when the kind has one (listed in `subresources` as `scale`). */
  scale?: ScaleSubresource;
  /** Sub-resources that take a POST of another kind (Pod `binding`, `eviction`; ServiceAccount `token`). */
  actions?: Readonly<Record<string, ActionSubresource>>;
  /** Sub-resources that connect the caller elsewhere (Pod `log`, `exec`, `attach`, `portforward`, `proxy`); listed in `subresources`. */
  connect?: Readonly<Record<string, ConnectSubresource>>;
  /**
   * For a virtual kind (`ResourceType.virtual`: SubjectAccessReview, TokenReview): computes the
   * answer to a create, usually by filling `status`. Nothing is stored.
   */
  evaluate?(object: APIObject, ctx: StrategyContext): APIObject | Promise<APIObject>;
  /** Field-selector fields beyond `metadata.name` and `metadata.namespace`. */
  selectableFields?(object: APIObject): Record<string, string>;
  /** The names `selectableFields` can return, for the 400 of an unsupported field. */
  selectableFieldNames?: readonly string[];
  /**
   * Checks of the caller's rights that a write of this kind needs beyond the request's own
   * authorization (RBAC: `escalate` or holding every rule of a role, `bind` or holding every rule
   * a binding grants; CertificateSigningRequest approval: `approve` on its signer). Runs on
   * create and on update of the main resource or of `subresource`, with `ctx.user` the caller,
   * after validation; throws a 403 StatusError to refuse.
   */
  checkWriteAccess?(object: APIObject, old: APIObject | undefined, subresource: string, ctx: StrategyContext): Promise<void>;
  /** Table columns after Name; the default Table has Name and Created At. */
  tableColumns?: readonly TableColumn[];
  /**
   * True when {@link tableColumns} are the whole row, as for Event (`Last Seen` first, `Name`
   * at priority 1): the server then adds neither the Name column nor the age column.
   */
  tableColumnsComplete?: boolean;
  /**
   * What a delete answers with. `true`: the object. `false`: a Success Status, also while
   * finalizers keep it (Namespace). Unset: a Success Status when the object is gone, the object
   * while finalizers keep it, as the reference's generic store does.
   */
  deleteReturnsObject?: boolean;
  /**
   * A create may set `status` (Node registers with its status). By default the server drops the
   * status of a create for kinds with a status sub-resource, before `prepareForCreate`.
   */
  statusOnCreate?: boolean;
  /** A PUT of a missing object creates it (Lease, Event), as the reference allows for a few kinds. */
  allowCreateOnUpdate?: boolean;
  /** True when a spec change (anything outside metadata and status) bumps `metadata.generation`. */
  tracksGeneration?: boolean;
}

/** One kind of the catalog. */
export interface ResourceType {
  /**
   * The API group; `""` is the core group. `{domain}` stands for the product domain, so
   * `coordination.{domain}` is served as `coordination.orch.io` or `coordination.k8s.io`.
   */
  group: string;
  /** The plural, lower-case path segment. */
  resource: string;
  singular: string;
  kind: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  scope: Scope;
  versions: readonly ResourceVersion[];
  /** Sub-resources beyond the main one: `status`, `finalize` (Namespace), ... */
  subresources?: readonly string[];
  /** Verbs offered; all of {@link Verb} by default. */
  verbs?: readonly Verb[];
  /** Objects are never stored: only `create` is offered, answered by `strategy.evaluate`. */
  virtual?: boolean;
  /**
   * Creating one of these performs an action sub-resource of another resource instead of storing
   * it: `Binding` (`bindings`) is `{ resource: "pods", action: "binding" }` on the pod of the same
   * name and namespace.
   */
  actionOn?: { resource: string; action: string };
  /**
   * Objects are computed on every read, not stored (ComponentStatus): the kind offers only `get`
   * and `list` (list its `verbs` so), answered with what this provider returns for the facts
   * the server gives it (whole objects with `apiVersion` and `kind`; never paged, filtered by
   * the request's selectors).
   */
  computed?(ctx: ComputedContext): APIObject[] | Promise<APIObject[]>;
  /**
   * The objects are another resource's, stored under its keys in its storage version (events
   * `v1` Events are core `v1` Events): `group` (`{domain}` allowed; `""` for core) and
   * `resource` name it. No version of this type is the storage version; each converts to and
   * from the other resource's storage version (`toStorage`, `fromStorage`), and the strategy
   * sees objects in that form.
   */
  storedAs?: { group: string; resource: string };
  strategy?: ResourceStrategy;
}
