/**
 * Admission inside the server: the services the plugins read and write through (the store,
 * the write path, the authorization chain, watch-kept collections), the chain built from the
 * server's options, and the attributes of one write.
 * @module
 */
import {
  AdmissionChain,
  buildAdmissionPlugins,
  defaultAdmissionPlugins,
  isImageReviewer,
  type ImageReviewSpec,
  type AdmissionAttributes,
  type AdmissionPlugin,
  type AdmissionServices,
  type LiveList,
  type Operation,
  type WebhookTransport,
} from "@orch/admission";
import { notFound, type APIObject } from "@orch/meta";
import { imageReviewUnsupported, type AccessAttributes, type AccessDecision, type ImageReviewResult, type RequestUser } from "@orch/resources";
import type { Clock, Store } from "@orch/store";
import { ControlLoop, type ControllerInput } from "./control-loop.js";
import type { MetricsRecorder } from "./metrics.js";
import type { WriteOptions } from "./object-store.js";
import { collectionPrefix, mutableCopy, objectKey, wireObject, type ServedResource } from "./served-resource.js";

/** The options of `APIServer` that shape admission. */
export interface AdmissionOptions {
  /**
   * The plugins: names of built-in plugins (run in the reference's fixed order) and plugin
   * objects of your own (run in the given order, after the built-in ones and before the webhook
   * and quota plugins). Default: the reference's default-on set.
   */
  plugins?: readonly (string | AdmissionPlugin)[];
  /** Each built-in plugin's configuration, by plugin name (an AdmissionConfiguration's entries). */
  configuration?: Readonly<Record<string, unknown>>;
  /** How webhooks are called (`{ client: httpsClient }` with `@orch/node`). */
  transport?: WebhookTransport;
  /** Reads a file a plugin configuration names (a webhook `kubeConfigFile`). */
  readFile?: (path: string) => string;
}

/** What server admission needs of the server: what its controllers need, and more. */
export interface ServerAdmissionInput extends ControllerInput {
  options: AdmissionOptions;
  /** The resource serving `kind` in `group` and its scope. */
  resourceForKind(group: string, kind: string): { resource: string; namespaced: boolean } | undefined;
  authorize(attributes: AccessAttributes): Promise<AccessDecision>;
  /** Receives the duration of each admission phase and plugin (`apiserver_admission_*`); nothing is measured without it. */
  metrics?: MetricsRecorder;
}

/** The server's admission: the chain and what keeps its plugins' views current. */
export interface ServerAdmission {
  chain: AdmissionChain;
  /** Starts the watch-kept collections and waits for every plugin to be ready. */
  start(): Promise<void>;
  /** Stops the plugins and the watches. */
  stop(): void;
  /**
   * Answers an ImageReview with the ImagePolicyWebhook plugin.
   * @throws StatusError 405 when that plugin is not on.
   */
  reviewImages(review: APIObject): Promise<ImageReviewResult>;
}

/** The user the server's own writes (its controllers', the bootstrap policy's) are admitted as. */
export const serverUser: RequestUser = { name: "system:apiserver", uid: "system:apiserver", groups: ["system:masters", "system:authenticated"] };

/** The options of writes the server makes for a plugin (`admitted`: updates are admission's own, not admitted again). */
const pluginWrite = (admitted = false): WriteOptions => ({
  dryRun: false,
  fieldValidation: "Ignore",
  warnings: [],
  user: serverUser,
  fieldManager: "orch-apiserver",
  ...(admitted ? { admitted } : {}),
});

/**
 * A collection kept current by a store watch: listed once, then changed by each event; after
 * the watch fails (compaction, a store hiccup) listed again a second later, and again while
 * that fails.
 */
class StoreLiveList implements LiveList {
  #items = new Map<string, APIObject>();
  #snapshot: readonly APIObject[] | undefined;
  #generation = 0;
  #ready: Promise<void> | undefined;
  readonly #loop: ControlLoop;

  constructor(
    private readonly store: Store,
    clock: Clock,
    private readonly prefix: string,
  ) {
    this.#loop = new ControlLoop({ store, clock }, { reload: () => this.#load() });
  }

  items(): readonly APIObject[] {
    this.#snapshot ??= [...this.#items.values()];
    return this.#snapshot;
  }

  generation(): number {
    return this.#generation;
  }

  ready(): Promise<void> {
    this.#ready ??= this.#load();
    return this.#ready;
  }

  #changed(): void {
    this.#snapshot = undefined;
    this.#generation++;
  }

  async #load(): Promise<void> {
    const signal = this.#loop.begin();
    const { entries, revision } = await this.store.list(this.prefix);
    this.#items = new Map(entries.map((e) => [e.key, wireObject(e)]));
    this.#changed();
    this.#loop.follow(this.prefix, revision, signal, (event) => {
      if (event.type === "delete") this.#items.delete(event.entry.key);
      else this.#items.set(event.entry.key, wireObject(event.entry));
      this.#changed();
    });
  }

  /** Ends the watch and any relist to come. */
  stop(): void {
    this.#loop.stop();
  }
}

/** Builds the server's admission from its options. */
export function serverAdmission(input: ServerAdmissionInput): ServerAdmission {
  const { store, clock, objects } = input;
  const lists = new Map<string, StoreLiveList>();
  const servedOrThrow = (group: string, resource: string): ServedResource => {
    const served = input.served(group, resource);
    if (!served) throw notFound({ group, resource }, "");
    return served;
  };
  const services: AdmissionServices = {
    domain: input.domain,
    now: () => clock.now(),
    async get(group, resource, namespace, name) {
      const served = input.served(group, resource);
      if (!served) return undefined;
      const entry = await store.get(objectKey(served, namespace, name));
      return entry ? wireObject(entry) : undefined;
    },
    async list(group, resource, namespace) {
      const served = input.served(group, resource);
      if (!served) return { items: [], resourceVersion: String(await store.revision()) };
      const { entries, revision } = await store.list(collectionPrefix(served, namespace));
      return { items: entries.map(wireObject), resourceVersion: String(revision) };
    },
    async create(group, resource, namespace, object) {
      const served = servedOrThrow(group, resource);
      const result = await objects.create(served, namespace, mutableCopy(object), pluginWrite());
      return result.body as APIObject;
    },
    async update(group, resource, namespace, object, subresource = "") {
      const served = servedOrThrow(group, resource);
      const result = await objects.update(served, namespace, object.metadata.name ?? "", mutableCopy(object), subresource, pluginWrite(true));
      return result.body as APIObject;
    },
    authorize: (attributes) => input.authorize(attributes),
    resourceForKind: (group, kind) => input.resourceForKind(group, kind),
    watchList(group, resource) {
      const key = `${group}/${resource}`;
      let list = lists.get(key);
      if (!list) {
        const served = servedOrThrow(group, resource);
        list = new StoreLiveList(store, clock, collectionPrefix(served, ""));
        lists.set(key, list);
      }
      return list;
    },
    log: input.log,
  };
  if (input.metrics) {
    const metrics = input.metrics;
    services.observeWebhook = ({ name, type, operation, rejected, seconds }) => metrics.admission("webhook", { name, type, operation, rejected, seconds });
  }
  const plugins = buildAdmissionPlugins(
    input.options.plugins ?? defaultAdmissionPlugins,
    {
      services,
      ...(input.options.transport ? { transport: input.options.transport } : {}),
      ...(input.options.readFile ? { readFile: input.options.readFile } : {}),
    },
    (name) => input.options.configuration?.[name],
  );
  const metrics = input.metrics;
  const chain = new AdmissionChain(
    plugins,
    // The observation is the measurement (its extra `kind` member aside): no copy per plugin call.
    metrics ? { observe: (observation) => metrics.admission(observation.kind, observation) } : {},
  );
  const imageReviewer = plugins.find(isImageReviewer);
  return {
    chain,
    async reviewImages(review) {
      if (!imageReviewer) throw imageReviewUnsupported(input.domain);
      return imageReviewer.reviewImages((review.spec ?? {}) as ImageReviewSpec);
    },
    async start() {
      await chain.ready();
    },
    stop() {
      for (const list of lists.values()) list.stop();
      chain.stop();
    },
  };
}

/** What {@link admissionAttributes} needs beyond the served resource. */
export interface WriteDescription {
  operation: Operation;
  namespace: string;
  name: string;
  object: APIObject | undefined;
  oldObject: APIObject | undefined;
  /** The sub-resource written, `""` for the main resource. */
  subresource: string;
  /** The kind of `object` when it is not the resource's (a sub-resource action's body). */
  kind?: { group: string; version: string; kind: string };
  /** The options kind the wire shows (`CreateOptions`, `UpdateOptions`, `PatchOptions`, `DeleteOptions`). */
  optionsKind: string;
  dryRun: boolean;
  fieldManager?: string;
  user: RequestUser | undefined;
  warnings: string[];
  /** The request's audit annotations, when it is audited: admission plugins and webhooks add theirs to it. */
  auditAnnotations?: Record<string, string>;
}

/** The `meta` group of `domain` (`meta.k8s.io` under `k8s.io`). */
function metaGroup(domain: string): string {
  return `meta.${domain}`;
}

/** The admission attributes of one write of `served`. */
export function admissionAttributes(served: ServedResource, domain: string, write: WriteDescription): AdmissionAttributes {
  const storage = served.type.versions.find((v) => v.storage)?.name ?? served.version.name;
  const resource = { group: served.group, version: storage, resource: served.type.resource };
  const kind = write.kind ?? { group: served.group, version: storage, kind: served.type.kind };
  const options: Record<string, unknown> = { kind: write.optionsKind, apiVersion: `${metaGroup(domain)}/v1` };
  if (write.dryRun) options["dryRun"] = ["All"];
  if (write.fieldManager && write.optionsKind !== "DeleteOptions") options["fieldManager"] = write.fieldManager;
  return {
    operation: write.operation,
    kind,
    resource,
    subresource: write.subresource,
    requestKind: write.kind ?? { ...kind, version: served.version.name },
    requestResource: { ...resource, version: served.version.name },
    name: write.name,
    namespace: served.namespaced ? write.namespace : "",
    type: served.type,
    object: write.object,
    oldObject: write.oldObject,
    options,
    dryRun: write.dryRun,
    user: write.user ?? serverUser,
    warnings: write.warnings,
    auditAnnotations: write.auditAnnotations ?? {},
    reinvocation: { isReinvoke: false, shouldReinvoke: false, data: new Map() },
  };
}
