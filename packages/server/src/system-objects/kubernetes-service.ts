/**
 * The `kubernetes` Service of the `default` namespace and its endpoints, through which pods reach
 * the API servers, as the reference's bootstrap controller keeps them: the Service (port `https`
 * 443 to the servers' secure port, labels `component=apiserver` and `provider=kubernetes`, the
 * first address of the service range as its cluster IP when the server has a range), and the
 * Endpoints (and the EndpointSlice `kubernetes`, when the server serves EndpointSlices) listing
 * the advertised address of every server alive (but loopback ones, which Endpoints may not
 * hold), as the servers' endpoint leases say (`endpoint-lease.ts`); a write that races with
 * another server's is retried on the newer object.
 * @module
 */
import { isAlreadyExists, isConflict, type APIObject } from "@orch/meta";
import { serviceNameLabel } from "@orch/resources";
import type { ControllerInput } from "../control-loop.js";
import { createIfMissing, readStored, systemWrite } from "./system-write.js";

/** Where clients reach one API server: an IP address and its secure port. */
export interface AdvertisedEndpoint {
  /** An IPv4 or IPv6 address (`--advertise-address`). */
  address: string;
  /** The secure port (`--secure-port`, or the one picked for `0`). */
  port: number;
}

/** What {@link reconcileKubernetesService} needs beyond the server's write path. */
export interface KubernetesServiceOptions {
  /** The range cluster IPs come from (`10.96.0.0/12`); the Service gets its first address. Absent: one is allocated as for any Service. */
  serviceClusterIPRange?: string;
  /** Whether the server serves EndpointSlices (`discovery.<domain>/v1`): then the slice `kubernetes` mirrors the Endpoints. */
  endpointSlices: boolean;
}

const serviceName = "kubernetes";
const serviceNamespace = "default";
/** How often a write that lost a race with another server is tried again on the newer object. */
const attempts = 5;

/** Parses an IPv4 or IPv6 address into its number and width in bits, or undefined. */
function parseIP(ip: string): { value: bigint; bits: 32 | 128 } | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    return { value: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n), bits: 32 };
  }
  if (!ip.includes(":") || !/^[0-9a-fA-F:]+$/.test(ip) || ip.split("::").length > 2) return undefined;
  const [head = "", tail] = ip.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = 8 - left.length - right.length;
  if ((tail === undefined && missing !== 0) || missing < 0) return undefined;
  const groups = [...left, ...Array<string>(missing).fill("0"), ...right];
  if (groups.some((g) => g.length === 0 || g.length > 4)) return undefined;
  return { value: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 };
}

function formatIP(value: bigint, bits: 32 | 128): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join(".");
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

/**
 * The first address of a CIDR (`10.96.0.0/12` gives `10.96.0.1`), as the reference picks the
 * `kubernetes` Service's cluster IP.
 * @throws TypeError for a CIDR that does not parse or has no room for one address.
 */
export function firstServiceIP(cidr: string): string {
  const [ip = "", prefixText = ""] = cidr.split("/");
  const parsed = parseIP(ip);
  const prefix = Number(prefixText);
  if (!parsed || !/^\d{1,3}$/.test(prefixText) || prefix > parsed.bits - 1) throw new TypeError(`invalid service IP range ${JSON.stringify(cidr)}`);
  const hostBits = BigInt(parsed.bits - prefix);
  const network = (parsed.value >> hostBits) << hostBits;
  return formatIP(network + 1n, parsed.bits);
}

/** The `kubernetes` Service of a server on `port`, with its cluster IP when `clusterIP` is given. */
export function kubernetesService(port: number, clusterIP?: string): APIObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: serviceName, namespace: serviceNamespace, labels: { component: "apiserver", provider: "kubernetes" } },
    spec: {
      type: "ClusterIP",
      ...(clusterIP ? { clusterIP, clusterIPs: [clusterIP] } : {}),
      ports: [{ name: "https", protocol: "TCP", port: 443, targetPort: port }],
      sessionAffinity: "None",
    },
  };
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The addresses an Endpoints lists on `port` (none when its port is another). */
function addressesOf(endpoints: APIObject | undefined, port: number): string[] {
  const subset = rec(arr(endpoints?.["subsets"])[0]);
  const ports = arr(subset?.["ports"]);
  if (ports.length !== 1 || rec(ports[0])?.["port"] !== port) return [];
  return arr(subset?.["addresses"]).map((a) => String(rec(a)?.["ip"] ?? ""));
}

/** True for an address of 127.0.0.0/8 or `::1`. */
function isLoopback(ip: string): boolean {
  const parsed = parseIP(ip);
  if (!parsed) return false;
  return parsed.bits === 32 ? parsed.value >> 24n === 127n : parsed.value === 1n;
}

/** Numeric order of addresses, so that every server writes the same list. */
function sortIPs(ips: Iterable<string>): string[] {
  return [...new Set(ips)].sort((a, b) => {
    const pa = parseIP(a)?.value ?? 0n;
    const pb = parseIP(b)?.value ?? 0n;
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  });
}

/** Writes `object` (created when `current` is undefined, else updated over it). */
async function write(input: ControllerInput, group: string, resource: string, current: APIObject | undefined, object: APIObject): Promise<void> {
  const served = input.served(group, resource);
  if (!served) return;
  const options = systemWrite(input.domain);
  if (current) {
    object.metadata = { ...current.metadata, labels: { ...current.metadata.labels, ...object.metadata.labels } };
    await input.objects.update(served, serviceNamespace, serviceName, object, "", options);
  } else await input.objects.create(served, serviceNamespace, object, options);
}

/**
 * Sets the addresses of the `kubernetes` Endpoints (and EndpointSlice) to what `change` makes of
 * the current ones, on `port`; retried when another server wrote in between.
 */
async function updateEndpoints(
  input: ControllerInput,
  port: number,
  options: KubernetesServiceOptions,
  change: (current: string[]) => string[],
): Promise<void> {
  const endpointsServed = input.served("", "endpoints");
  if (!endpointsServed) return;
  const labelDomain = input.domain === "k8s.io" ? "kubernetes.io" : input.domain;
  for (let attempt = 1; ; attempt++) {
    try {
      const current = await readStored(input.store, endpointsServed, serviceNamespace, serviceName);
      // Endpoints may not hold loopback addresses (validation refuses them): a server advertised
      // on loopback, reachable from no pod, has the Service but adds no address.
      const ips = sortIPs(change(addressesOf(current, port)).filter((ip) => !isLoopback(ip)));
      const ports = [{ name: "https", port, protocol: "TCP" }];
      const endpoints: APIObject = {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: serviceName, namespace: serviceNamespace, labels: { [`endpointslice.${labelDomain}/skip-mirror`]: "true" } },
        subsets: ips.length > 0 ? [{ addresses: ips.map((ip) => ({ ip })), ports }] : [],
      };
      if (!current || !sameAddresses(current, endpoints)) await write(input, "", "endpoints", current, endpoints);
      const slices = options.endpointSlices ? input.served(`discovery.${input.domain}`, "endpointslices") : undefined;
      if (!slices) return;
      const slice: APIObject = {
        apiVersion: slices.apiVersion,
        kind: "EndpointSlice",
        metadata: { name: serviceName, namespace: serviceNamespace, labels: { [serviceNameLabel(input.domain)]: serviceName } },
        addressType: ips.some((ip) => ip.includes(":")) ? "IPv6" : "IPv4",
        endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
        ports,
      };
      const currentSlice = await readStored(input.store, slices, serviceNamespace, serviceName);
      if (!currentSlice || JSON.stringify([currentSlice["endpoints"], currentSlice["ports"]]) !== JSON.stringify([slice["endpoints"], slice["ports"]])) {
        await write(input, `discovery.${input.domain}`, "endpointslices", currentSlice, slice);
      }
      return;
    } catch (error) {
      if (attempt >= attempts || !(isConflict(error) || isAlreadyExists(error))) throw error;
    }
  }
}

function sameAddresses(current: APIObject, wanted: APIObject): boolean {
  return JSON.stringify(current["subsets"] ?? []) === JSON.stringify(wanted["subsets"]);
}

/** Creates the `kubernetes` Service when missing, or puts its port back when it differs. */
export async function reconcileKubernetesService(input: ControllerInput, endpoint: AdvertisedEndpoint, options: KubernetesServiceOptions): Promise<void> {
  const services = input.served("", "services");
  if (!services) return;
  const clusterIP = options.serviceClusterIPRange ? firstServiceIP(options.serviceClusterIPRange) : undefined;
  const desired = kubernetesService(endpoint.port, clusterIP);
  const current = await readStored(input.store, services, serviceNamespace, serviceName);
  if (!current) await createIfMissing(input.objects, services, desired, input.domain);
  else {
    const spec = rec(current["spec"]) ?? {};
    const wantedPorts = rec(desired["spec"])?.["ports"] as Obj[];
    const port = rec(arr(spec["ports"])[0]);
    if (arr(spec["ports"]).length !== 1 || port?.["port"] !== 443 || port["targetPort"] !== endpoint.port || port["name"] !== "https") {
      current["spec"] = { ...spec, ports: wantedPorts };
      try {
        await input.objects.update(services, serviceNamespace, serviceName, current, "", systemWrite(input.domain));
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
  }
}

/**
 * Sets the addresses of the `kubernetes` Endpoints (and EndpointSlice) to `addresses` (loopback
 * ones left out) on `port`, writing nothing when they already are.
 */
export async function setKubernetesEndpoints(
  input: ControllerInput,
  port: number,
  addresses: readonly string[],
  options: KubernetesServiceOptions,
): Promise<void> {
  await updateEndpoints(input, port, options, () => [...addresses]);
}
