/**
 * `APIServer`: the composition root of orch. It owns the registry of resource types, the store
 * and the clock, and runs every request through the pipeline of architecture.md.
 * @module
 */
import type { Clock, Store } from "@orch/store";
import { MemoryStore, systemClock } from "@orch/store";
import type { ResourceType } from "@orch/resources";
import type { APIRequest, APIResponse } from "./api-request.js";

/** Options of {@link APIServer}. */
export interface APIServerOptions {
  /** Where objects live; a fresh `MemoryStore` by default. */
  store?: Store;
  /** Wall time and timers; `systemClock` by default. */
  clock?: Clock;
  /** The product domain (`orch.io` by default); `k8s.io` speaks the reference system's groups. */
  domain?: string;
  /** Resource types to serve in addition to the built-in ones. */
  resources?: readonly ResourceType[];
  /** Largest accepted request body, in bytes (3 MiB by default); larger is 413. */
  maxRequestBodyBytes?: number;
  /** After {@link APIServer.shutdown} starts, `/readyz` fails for this long before it returns. */
  shutdownDelayMs?: number;
  /** `/livez` fails until this long after start unless every check passes. */
  livezGracePeriodMs?: number;
}

/** Default size limit of a request body: 3 MiB (gaps.md). */
export const defaultMaxRequestBodyBytes = 3 * 1024 * 1024;

/**
 * A Kubernetes-style API server with no network of its own: hand it {@link APIRequest}s through
 * {@link APIServer.handle} (the `@orch/node` adapter does, over HTTP), or use {@link APIServer.fetch}
 * from a framework that speaks web-standard `Request`/`Response`.
 */
export class APIServer {
  /** The store objects live in. */
  readonly store: Store;
  /** The server's clock. */
  readonly clock: Clock;
  /** The product domain. */
  readonly domain: string;
  /** Largest accepted body in bytes. */
  readonly maxRequestBodyBytes: number;

  constructor(options: APIServerOptions = {}) {
    this.store = options.store ?? new MemoryStore({ clock: options.clock ?? systemClock });
    this.clock = options.clock ?? systemClock;
    this.domain = options.domain ?? "orch.io";
    this.maxRequestBodyBytes = options.maxRequestBodyBytes ?? defaultMaxRequestBodyBytes;
  }

  /** Resolves once the built-in namespaces exist and the server can serve. */
  async ready(): Promise<void> {}

  /** Serves one request. Never rejects: every failure is a Status response. */
  async handle(_request: APIRequest): Promise<APIResponse> {
    return { status: 404, headers: new Headers() };
  }

  /** The fetch-style handler: web-standard `Request` in, `Response` out. */
  async fetch(_request: Request): Promise<Response> {
    return new Response(null, { status: 404 });
  }

  /**
   * Starts a graceful shutdown: `/readyz` fails at once, and the promise resolves after the
   * shutdown delay, when the adapter should stop accepting connections.
   */
  async shutdown(): Promise<void> {}
}
