/**
 * {@link Client}: an API client over one {@link Transport}, with a typed accessor for every
 * kind of the catalog (inherited from the generated {@link BuiltinAccessors}) and
 * {@link Client.forType} for the embedder's own kinds. The verbs of one kind are
 * {@link ResourceClient}'s.
 * @module
 */
import { internalError, type APIObject } from "@orch/meta";
import type { ResourceType } from "@orch/resources";
import { BuiltinAccessors } from "./generated/accessors.js";
import { utf8 } from "./internal/lines.js";
import { ResourceClient, type ObjectSchema } from "./resource-client.js";
import { resourceRefOf, type ResourceRef } from "./resource-ref.js";
import { responseError } from "./response-error.js";
import type { SchemaObject } from "./schema-object.js";
import type { Transport, TransportResponse } from "./transport.js";

// Kept importable from here, where they were defined before `resource-client.ts` and
// `response-error.ts` took them out of this module.
export {
  ResourceClient,
  patchContentTypes,
  type DeleteCollectionOptions,
  type DeleteOptions,
  type FieldValidation,
  type GetOptions,
  type ListOptions,
  type NamespaceOptions,
  type PatchOptions,
  type PatchType,
  type SelectorOptions,
  type UpdateOptions,
  type WatchOptions,
  type WriteOptions,
} from "./resource-client.js";
export { responseError } from "./response-error.js";

/** Options of {@link Client}. */
export interface ClientOptions {
  /** What carries the requests: {@link inProcessTransport} or {@link httpTransport}. */
  transport: Transport;
  /** The product domain that `{domain}` in a group stands for; `orch.io` by default. */
  domain?: string;
  /**
   * Sent as `User-Agent` (`orch-client` by default). The server derives the default field
   * manager from it, up to its first `/`.
   */
  userAgent?: string;
  /** Called with the text of every `Warning` header the server sends (deprecations, dropped fields). */
  onWarning?: (warning: string) => void;
}

function warningsOf(header: string | null): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const m of header.matchAll(/\d{3}\s+\S+\s+"((?:[^"\\]|\\.)*)"/g)) out.push((m[1] ?? "").replace(/\\(.)/g, "$1"));
  return out;
}

/** One raw request of {@link Client.send} and {@link Client.call}. */
export interface ClientRequest {
  /** `GET`, `POST`, `PUT`, `PATCH` or `DELETE`. */
  method: string;
  /** The absolute, percent-encoded path without a query. */
  path: string;
  /** Query parameters. */
  query?: URLSearchParams;
  /** JSON-encoded unless it is a `Uint8Array` or a string (sent as is). */
  body?: unknown;
  /** `Content-Type` of the body; `application/json` by default. */
  contentType?: string;
  /** `Accept`; `application/json` by default. */
  accept?: string;
  /** Cancels the request. */
  signal?: AbortSignal | undefined;
}

/**
 * The object type of a kind given as a `ResourceType`: {@link SchemaObject} of the schema of its
 * versions (of their union, when they differ). The schema's type survives only when the type is
 * declared without widening it to `ResourceType` (`const widgetType = { ... } satisfies
 * ResourceType`); else it is a plain `APIObject`.
 */
export type TypeObject<R extends ResourceType> = SchemaObject<R["versions"][number]["schema"]>;

/** Options of {@link Client.forType}. */
export interface ForTypeOptions {
  /** The version to talk in; by default the storage version, or the first served one. */
  version?: string;
  /** Check every object the server answers against that version's schema (a 500 StatusError when one does not match). */
  validate?: boolean;
}

/**
 * An API client over one {@link Transport}. Every kind of the catalog has a typed accessor
 * (`client.pods`, `client.configMaps`, `client.clusterRoleBindings`, ... from
 * {@link BuiltinAccessors}); the embedder's own kinds are reached with {@link Client.forType}
 * (by the `ResourceType` the server serves) or {@link Client.resource} (by a
 * {@link ResourceRef}). Namespaces go in each call's options (`{ namespace: "default" }`);
 * writes of an object fall back to its `metadata.namespace`.
 *
 * @example
 * const client = new Client({ transport: inProcessTransport(server) });
 * const cm = await client.configMaps.get("settings", { namespace: "default" });
 * await client.pods.bind("web", { target: { kind: "Node", name: "node-1" } }, { namespace: "default" });
 * const widgets = client.forType(widgetType); // typed by widgetType's schema
 */
export class Client extends BuiltinAccessors {
  /** The product domain `{domain}` in groups stands for. */
  readonly domain: string;
  readonly #transport: Transport;
  readonly #userAgent: string;
  readonly #onWarning: ((warning: string) => void) | undefined;
  readonly #kindClients = new Map<ResourceRef, unknown>();

  constructor(options: ClientOptions) {
    super();
    this.#transport = options.transport;
    this.domain = options.domain ?? "orch.io";
    this.#userAgent = options.userAgent ?? "orch-client";
    this.#onWarning = options.onWarning;
  }

  /** The client of the kind at `ref`, made with `make` on first use and kept: one per client and kind. */
  protected override kindClient<C>(ref: ResourceRef, make: new (client: Client, ref: ResourceRef) => C): C {
    if (!this.#kindClients.has(ref)) this.#kindClients.set(ref, new make(this, ref));
    return this.#kindClients.get(ref) as C;
  }

  /** A client for the kind at `ref`; `T` is the object type the caller expects (unchecked). */
  resource<T extends APIObject = APIObject>(ref: ResourceRef): ResourceClient<T>;
  /**
   * A client for the kind at `ref`, typed by its zod `schema` (`SchemaObject<typeof schema>`);
   * with `validate`, every object the server answers is checked against it.
   */
  resource<S extends ObjectSchema>(ref: ResourceRef, schema: S, options?: { validate?: boolean }): ResourceClient<SchemaObject<S>>;
  resource(ref: ResourceRef, schema?: ObjectSchema, options: { validate?: boolean } = {}): ResourceClient {
    return new ResourceClient(this, ref, schema && options.validate ? { validate: schema } : {});
  }

  /**
   * A client for a kind given as the very `ResourceType` the server was given
   * (`new APIServer({ resources: [widgetType] })`), typed by its schema ({@link TypeObject}).
   * @throws TypeError when the type does not serve `options.version`.
   *
   * @example
   * const widgetType = { group: "example.{domain}", resource: "widgets", ... } satisfies ResourceType;
   * const server = new APIServer({ resources: [widgetType] });
   * const widgets = new Client({ transport: inProcessTransport(server) }).forType(widgetType, { validate: true });
   */
  forType<R extends ResourceType>(type: R, options: ForTypeOptions = {}): ResourceClient<TypeObject<R>> {
    const ref = resourceRefOf(type, options.version);
    const schema = options.validate ? type.versions.find((v) => v.name === ref.version)?.schema : undefined;
    return new ResourceClient(this, ref, schema ? { validate: schema } : {});
  }

  /**
   * Sends one request and returns the raw response, with warnings reported. The escape hatch for
   * paths no {@link ResourceClient} covers (`/version`, discovery). The body is JSON-encoded
   * unless it is a `Uint8Array` or a string.
   */
  async send(call: ClientRequest): Promise<TransportResponse> {
    const headers: Record<string, string> = { Accept: call.accept ?? "application/json", "User-Agent": this.#userAgent };
    let body: Uint8Array | undefined;
    if (call.body !== undefined) {
      body = call.body instanceof Uint8Array ? call.body : utf8(typeof call.body === "string" ? call.body : JSON.stringify(call.body));
      headers["Content-Type"] = call.contentType ?? "application/json";
    }
    const req: Parameters<Transport["request"]>[0] = { method: call.method, path: call.path, headers };
    if (call.query && call.query.toString() !== "") req.query = call.query;
    if (body) req.body = body;
    if (call.signal) req.signal = call.signal;
    const res = await this.#transport.request(req);
    if (this.#onWarning) for (const w of warningsOf(res.headers.get("warning"))) this.#onWarning(w);
    return res;
  }

  /** Sends a request and decodes the JSON answer; a non-2xx answer throws its `StatusError`. */
  async call<R>(call: ClientRequest): Promise<R> {
    const res = await this.send(call);
    const text = await res.text();
    if (res.status < 200 || res.status > 299) throw responseError(res.status, text);
    try {
      return JSON.parse(text) as R;
    } catch (cause) {
      throw internalError(`the server sent a body that is not JSON (HTTP ${res.status})`, cause);
    }
  }
}
