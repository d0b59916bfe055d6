/**
 * Which API servers are alive, for the Endpoints of the `kubernetes` Service: the reference's
 * lease endpoint reconciler, with coordination Leases in the system namespace (`orch-system`)
 * where the reference keeps TTL keys in etcd. Each server holds the Lease of its address, renews
 * it every {@link endpointLeaseRenewMs} (the reference's reconcile interval) for
 * {@link endpointLeaseDurationSeconds} (its TTL), and after each renewal sets the Endpoints to the
 * addresses whose Lease has not expired; a server that shuts down deletes its Lease and leaves the
 * Endpoints without its address, and one that dies drops out when its Lease expires.
 * @module
 */
import { isAlreadyExists, isConflict, isNotFound, type APIObject } from "@orch/meta";
import { bootstrapTokenNamespace } from "@orch/resources";
import type { ControllerInput } from "../control-loop.js";
import { messageOf } from "../control-loop.js";
import { reconcileKubernetesService, setKubernetesEndpoints, type AdvertisedEndpoint, type KubernetesServiceOptions } from "./kubernetes-service.js";
import { listStored, readStored, systemWrite } from "./system-write.js";

/** How long a server's endpoint Lease lasts without renewal, in seconds (the reference's 15 s TTL). */
export const endpointLeaseDurationSeconds = 15;
/** How often a server renews its endpoint Lease and rewrites the Endpoints, in ms (the reference's 10 s). */
export const endpointLeaseRenewMs = 10_000;

/**
 * The label on the endpoint Leases, valued `kubernetes` (the Service they feed):
 * `apiserver.kubernetes.io/endpoint-of` under `k8s.io`, `apiserver.orch.io/endpoint-of` under `orch.io`.
 */
export function endpointLeaseLabel(domain: string): string {
  return `apiserver.${domain === "k8s.io" ? "kubernetes.io" : domain}/endpoint-of`;
}

/** The name of the endpoint Lease of `address`: `apiserver-endpoint-192-0-2-10`. */
export function endpointLeaseName(address: string): string {
  return `apiserver-endpoint-${address.toLowerCase().replace(/[^0-9a-z]/g, "-")}`;
}

/** The MicroTime of `ms`, as Leases carry their times. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** The address a Lease holds when it has not expired at `now`, else undefined. */
function liveAddress(lease: APIObject, now: number): string | undefined {
  const spec = (lease["spec"] ?? {}) as { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
  const renewed = Date.parse(spec.renewTime ?? "");
  if (!spec.holderIdentity || Number.isNaN(renewed)) return undefined;
  return renewed + (spec.leaseDurationSeconds ?? endpointLeaseDurationSeconds) * 1000 > now ? spec.holderIdentity : undefined;
}

/** One server's endpoint Lease and the `kubernetes` Service and Endpoints it keeps (see the module). */
export class APIServerEndpointLease {
  readonly #input: ControllerInput;
  readonly #endpoint: AdvertisedEndpoint;
  readonly #options: KubernetesServiceOptions;
  #cancel: (() => void) | undefined;
  #stopped = false;
  /** The renewal under way, which {@link stop} waits for. */
  #work: Promise<void> = Promise.resolve();

  /** A lease for `endpoint`, on `input`'s write path; nothing happens before {@link start}. */
  constructor(input: ControllerInput, endpoint: AdvertisedEndpoint, options: KubernetesServiceOptions) {
    this.#input = input;
    this.#endpoint = endpoint;
    this.#options = options;
  }

  /**
   * Creates the `kubernetes` Service when missing, takes the Lease, writes the Endpoints and
   * schedules the renewals.
   * @throws what the store threw.
   */
  async start(): Promise<void> {
    await reconcileKubernetesService(this.#input, this.#endpoint, this.#options);
    this.#work = this.#renew();
    await this.#work;
    this.#schedule();
  }

  /** Stops renewing, deletes the Lease and writes the Endpoints without this server; never rejects (failures are logged). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancel?.();
    await this.#work.catch(() => undefined);
    try {
      const leases = this.#leases();
      if (leases)
        await this.#input.objects.delete(leases, bootstrapTokenNamespace(this.#input.domain), endpointLeaseName(this.#endpoint.address), { dryRun: false });
    } catch (error) {
      if (!isNotFound(error)) this.#input.log(`cannot delete this server's endpoint lease: ${messageOf(error)}`);
    }
    await this.#writeEndpoints(false).catch((error: unknown) =>
      this.#input.log(`cannot remove this server from the kubernetes Endpoints: ${messageOf(error)}`),
    );
  }

  /** Runs the next renewal after {@link endpointLeaseRenewMs}, and the one after that, until stopped. */
  #schedule(): void {
    if (this.#stopped) return;
    this.#cancel = this.#input.clock.setTimer(endpointLeaseRenewMs, () => {
      this.#work = this.#renew()
        .catch((error: unknown) => this.#input.log(`cannot renew this server's endpoint lease: ${messageOf(error)}`))
        .finally(() => this.#schedule());
    });
  }

  #leases() {
    return this.#input.served(`coordination.${this.#input.domain}`, "leases");
  }

  /** Writes this server's Lease with the time now, then the Endpoints. */
  async #renew(): Promise<void> {
    const leases = this.#leases();
    if (!leases) return;
    const namespace = bootstrapTokenNamespace(this.#input.domain);
    const name = endpointLeaseName(this.#endpoint.address);
    const now = microTime(this.#input.clock.now());
    const current = await readStored(this.#input.store, leases, namespace, name);
    const spec = { holderIdentity: this.#endpoint.address, leaseDurationSeconds: endpointLeaseDurationSeconds, renewTime: now };
    try {
      if (current) {
        await this.#input.objects.update(
          leases,
          namespace,
          name,
          { ...current, spec: { ...(current["spec"] as object), ...spec } },
          "",
          systemWrite(this.#input.domain),
        );
      } else {
        const lease: APIObject = {
          apiVersion: leases.apiVersion,
          kind: "Lease",
          metadata: { name, namespace, labels: { [endpointLeaseLabel(this.#input.domain)]: "kubernetes" } },
          spec: { ...spec, acquireTime: now },
        };
        await this.#input.objects.create(leases, namespace, lease, systemWrite(this.#input.domain));
      }
    } catch (error) {
      // Another writer of the same address (a restarted server) renewed it first: it is alive.
      if (!isConflict(error) && !isAlreadyExists(error)) throw error;
    }
    if (!this.#stopped) await this.#writeEndpoints(true);
  }

  /** Sets the Endpoints to the addresses of the live Leases, with or without this server's. */
  async #writeEndpoints(includeSelf: boolean): Promise<void> {
    const leases = this.#leases();
    const namespace = bootstrapTokenNamespace(this.#input.domain);
    const label = endpointLeaseLabel(this.#input.domain);
    const now = this.#input.clock.now();
    const live = new Set<string>();
    if (leases) {
      for (const lease of await listStored(this.#input.store, leases, namespace)) {
        if (lease.metadata.labels?.[label] !== "kubernetes") continue;
        const address = liveAddress(lease, now);
        if (address) live.add(address);
      }
    }
    if (includeSelf) live.add(this.#endpoint.address);
    else live.delete(this.#endpoint.address);
    await setKubernetesEndpoints(this.#input, this.#endpoint.port, [...live], this.#options);
  }
}
