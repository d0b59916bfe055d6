/**
 * The admission plugin port: a named object with an optional mutating `admit` and an optional
 * `validate`, and the factory form the registry builds built-in plugins from.
 * @module
 */
import type { HTTPClient } from "@orch/authn";
import { forbidden, StatusError } from "@orch/meta";
import type { AdmissionAttributes, Operation } from "./attributes.js";
import type { AdmissionServices } from "./services.js";

/**
 * One admission plugin. `admit` may change `attrs.object` (mutating phase, plugins in order);
 * `validate` may only accept or refuse (validating phase, after the object's own validation).
 * Either refuses by throwing: a `StatusError` is answered as it is (the plugin chooses code and
 * message), anything else becomes 403 Forbidden `<resource> "<name>" is forbidden: <message>`.
 */
export interface AdmissionPlugin {
  /** The plugin's name (`NamespaceLifecycle`, `team-labels`). */
  readonly name: string;
  /** The operations the plugin looks at; every operation when absent. */
  readonly operations?: readonly Operation[];
  /**
   * Whether the plugin looks at writes of `group`/`resource` at all; every resource when absent.
   * The chain asks once per resource and operation and, for a resource refused here, does not call
   * the plugin's steps (they would return at once without effect); the plugin is still reported to
   * the chain's observer as having passed the write. Every step of the plugin must return at once,
   * changing nothing, for a resource refused here.
   */
  handlesResource?(group: string, resource: string): boolean;
  /** The mutating step. */
  admit?(attrs: AdmissionAttributes): void | Promise<void>;
  /** The validating step. */
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
  /** Resolves when the plugin can decide (its caches are filled); the server waits before it is ready. */
  ready?(): Promise<void>;
  /** Releases what the plugin holds (watches, timers). */
  stop?(): void;
}

/**
 * The promise a step may return when it passed the write at once: already resolved, shared by
 * every call (nothing is allocated), and run by the chain as a step that answered synchronously
 * (not awaited). Callers of the step outside the chain see an ordinary resolved promise.
 */
export const passedAtOnce: Promise<void> = Promise.resolve();

/** The TLS side of one webhook call: whom to trust and what to present. */
export interface WebhookTLS {
  /** PEM CA bundle the webhook's certificate must chain to; the system roots when absent. */
  ca?: string;
  /** PEM client certificate (chain) to present. */
  cert?: string;
  /** PEM key of `cert`. */
  key?: string;
  /** The name the webhook's certificate must carry, when it is not the URL's host. */
  servername?: string;
}

/**
 * Makes the HTTP client a webhook is called through (`httpsClient` of `@orch/node` has this
 * shape); called once per distinct TLS setting, the result is reused.
 */
export type WebhookClientFactory = (tls: WebhookTLS) => HTTPClient;

/** A webhook's `clientConfig.service` reference. */
export interface ServiceReference {
  namespace: string;
  name: string;
  /** 443 unless set. */
  port: number;
}

/**
 * Where a service-backed webhook is reached: the base URL (`https://host:port`) for `ref`. The
 * default is `https://<name>.<namespace>.svc:<port>`; the certificate is always checked against
 * `<name>.<namespace>.svc`.
 */
export type ServiceResolver = (ref: ServiceReference) => string;

/** How webhooks (admission and image policy) are called. */
export interface WebhookTransport {
  /** Makes the client for one TLS setting. */
  client: WebhookClientFactory;
  /** Resolves `clientConfig.service` references (the default: `<name>.<namespace>.svc`). */
  resolveService?: ServiceResolver;
}

/** What a built-in plugin is made from. */
export interface PluginContext {
  /** The server's services. */
  services: AdmissionServices;
  /**
   * The plugin's configuration: the `configuration` object (or the parsed file at `path`) of its
   * entry in the AdmissionConfiguration, `undefined` when it has none.
   */
  configuration: unknown;
  /** How webhooks are called; plugins that call webhooks refuse to start without it. */
  transport?: WebhookTransport;
  /**
   * Reads a file a configuration names (a webhook `kubeConfigFile`), relative paths against the
   * configuration's directory; absent in runtimes without files (configurations then carry the
   * data inline).
   */
  readFile?(path: string): string;
}

/** Builds one built-in plugin; throws (stopping the start) on a configuration it cannot use. */
export type PluginFactory = (ctx: PluginContext) => AdmissionPlugin;

/**
 * The refusal of a plugin that did not choose its own Status: 403 Forbidden on the written
 * resource, `<resource> "<name>" is forbidden: <why>` (the reference's `NewForbidden`).
 */
export function admissionForbidden(attrs: AdmissionAttributes, why: string): Error {
  return forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name, why);
}

/** `error` as the Status the client gets: itself when a StatusError, else a 403 with its message. */
export function asAdmissionError(attrs: AdmissionAttributes, error: unknown): Error {
  if (error instanceof StatusError) return error;
  return admissionForbidden(attrs, error instanceof Error ? error.message : String(error));
}
