/**
 * The Pod sub-resources that connect a caller to a container (`log`, `exec`, `attach`,
 * `portforward`) or to the pod's network (`proxy`), as the reference's pod registry locates them:
 * the options each decodes from its query, the container it picks, the node agent of the pod's
 * node (`exec`, `attach`, `portforward`, `log`) or the pod's own address (`proxy`). The server
 * answers what the reference answers when that backend cannot be reached.
 * @module
 */
import { badRequest, FieldPath, forbiddenField, invalid, invalidField, serviceUnavailable, type APIObject, type FieldError } from "@orch/meta";
import { list, record, str } from "./internal/rules.js";
import type { ConnectSubresource, ConnectTarget, StrategyContext } from "./resource-type.js";

/** The port of a node agent whose Node does not say (`status.daemonEndpoints.kubeletEndpoint.Port`). */
export const defaultNodeAgentPort = 10250;

/** The address types of a Node tried in turn for its agent, as the reference's default preference. */
export const nodeAgentAddressTypes = ["Hostname", "InternalDNS", "InternalIP", "ExternalDNS", "ExternalIP"] as const;

/** A query boolean as the reference converts one: `0`, `f` and `false` (any case) are false, anything else true. */
function queryBool(query: URLSearchParams, name: string): boolean {
  const v = query.get(name);
  if (v === null) return false;
  return !(v === "0" || v.toLowerCase() === "f" || v.toLowerCase() === "false");
}

const int64Max = 9223372036854775807n;

/**
 * A query integer as Go's `strconv.ParseInt` reads one, or undefined when absent.
 * @throws StatusError 400 with its message for anything else.
 */
function queryInt(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null) return undefined;
  if (!/^[+-]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  const n = BigInt(v);
  if (n > int64Max || n < -int64Max - 1n) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(n);
}

/** The containers of a pod in the reference's visiting order: init containers, containers, ephemeral containers. */
function containerNames(pod: APIObject): string[] {
  const spec = record(pod["spec"]) ?? {};
  return ["initContainers", "containers", "ephemeralContainers"].flatMap((field) => list(spec[field]).map((c) => str(record(c)?.["name"])));
}

/**
 * The container a request is for: the one given, which the pod must have, or the pod's only
 * container.
 * @throws StatusError 400 with the reference's messages.
 */
export function podContainer(pod: APIObject, container: string): string {
  const name = pod.metadata.name ?? "";
  if (container === "") {
    const containers = list(record(pod["spec"])?.["containers"]);
    if (containers.length === 1) return str(record(containers[0])?.["name"]);
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(" ")}]`);
  }
  if (!containerNames(pod).includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** `host:port`, with an IPv6 host in brackets. */
function joinHostPort(host: string, port: string | number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The address of the agent of node `nodeName`: its first address of the preferred types, and
 * its agent port.
 * @throws StatusError 404 when there is no such Node, 503 when it has no address of those types.
 */
export async function nodeAgentHost(nodeName: string, ctx: StrategyContext): Promise<string> {
  if (!ctx.get) throw new TypeError("locating a node agent needs the server's reads");
  const node = await ctx.get("", "nodes", "", nodeName);
  const status = record(node["status"]) ?? {};
  const addresses = list(status["addresses"]).map((a) => record(a) ?? {});
  let address: string | undefined;
  for (const type of nodeAgentAddressTypes) {
    address ??= addresses.find((a) => a["type"] === type)?.["address"] as string | undefined;
  }
  if (address === undefined) {
    const known = addresses.map((a) => `{${str(a["type"])} ${str(a["address"])}}`).join(" ");
    // Not the caller's fault: 503, as for any backend that cannot be reached.
    throw serviceUnavailable(`no preferred addresses found; known addresses: [${known}]`);
  }
  // The reference spells this field `Port`.
  const port = record(record(status["daemonEndpoints"])?.["kubeletEndpoint"])?.["Port"];
  return joinHostPort(address, typeof port === "number" && port > 0 ? port : defaultNodeAgentPort);
}

async function readPod(namespace: string, name: string, ctx: StrategyContext): Promise<APIObject> {
  if (!ctx.get) throw new TypeError("locating a pod's backend needs the server's reads");
  return ctx.get("", "pods", namespace, name);
}

/** The node a pod runs on, or undefined when it is not scheduled. */
function nodeNameOf(pod: APIObject): string | undefined {
  const node = str(record(pod["spec"])?.["nodeName"]);
  return node === "" ? undefined : node;
}

/** The `log` sub-resource: a pod's container log, streamed from its node agent. */
const logSubresource: ConnectSubresource = {
  kind: "Pod",
  methods: ["GET"],
  read: true,
  options(query, _subpath, name) {
    const options = {
      container: query.get("container") ?? "",
      follow: queryBool(query, "follow"),
      previous: queryBool(query, "previous"),
      timestamps: queryBool(query, "timestamps"),
      sinceSeconds: queryInt(query, "sinceSeconds"),
      sinceTime: query.get("sinceTime") ?? "",
      tailLines: queryInt(query, "tailLines"),
      limitBytes: queryInt(query, "limitBytes"),
    };
    if (options.sinceTime !== "" && Number.isNaN(Date.parse(options.sinceTime))) {
      throw badRequest(
        `parsing time ${JSON.stringify(options.sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(options.sinceTime)} as "2006"`,
      );
    }
    const errors: FieldError[] = [];
    if (options.tailLines !== undefined && options.tailLines < 0) {
      errors.push(invalidField(FieldPath.root("tailLines"), options.tailLines, "must be greater than or equal to 0"));
    }
    if (options.limitBytes !== undefined && options.limitBytes < 1) {
      errors.push(invalidField(FieldPath.root("limitBytes"), options.limitBytes, "must be greater than 0"));
    }
    if (options.sinceSeconds !== undefined && options.sinceTime !== "") {
      errors.push(forbiddenField(FieldPath.root(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"));
    } else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) {
      errors.push(invalidField(FieldPath.root("sinceSeconds"), options.sinceSeconds, "must be greater than 0"));
    }
    if (errors.length > 0) throw invalid({ group: "", kind: "PodLogOptions" }, name, errors);
    return options;
  },
  async locate(namespace, name, options, ctx): Promise<ConnectTarget> {
    const pod = await readPod(namespace, name, ctx);
    const container = podContainer(pod, str(options["container"]));
    const nodeName = nodeNameOf(pod);
    // A pod not yet on a node has no log: the reference answers an empty one.
    if (!nodeName) return { type: "empty", contentType: "text/plain" };
    const host = await nodeAgentHost(nodeName, ctx);
    const params = new URLSearchParams();
    for (const flag of ["follow", "previous", "timestamps"]) if (options[flag] === true) params.set(flag, "true");
    if (options["sinceSeconds"] !== undefined) params.set("sinceSeconds", String(options["sinceSeconds"]));
    if (options["sinceTime"] !== "") params.set("sinceTime", new Date(str(options["sinceTime"])).toISOString().replace(/\.\d{3}Z$/, "Z"));
    for (const n of ["tailLines", "limitBytes"]) if (options[n] !== undefined) params.set(n, String(options[n]));
    const query = params.toString();
    const location = `https://${host}/containerLogs/${namespace}/${name}/${container}${query ? `?${query}` : ""}`;
    return { type: "backend", via: "stream", host, location, upgradeRequired: false };
  },
};

/** The options of `exec` and `attach`: the container, the streams, a TTY, and for `exec` the command. */
function streamOptions(query: URLSearchParams, withCommand: boolean): Record<string, unknown> {
  return {
    container: query.get("container") ?? "",
    stdin: queryBool(query, "stdin"),
    stdout: queryBool(query, "stdout"),
    stderr: queryBool(query, "stderr"),
    tty: queryBool(query, "tty"),
    ...(withCommand ? { command: query.getAll("command") } : {}),
  };
}

/** The node agent URL of an upgraded connection to `pod`'s node, for `path` (`exec`, `attach`, `portForward`). */
async function nodeStream(pod: APIObject, ctx: StrategyContext, path: string, params: URLSearchParams): Promise<ConnectTarget> {
  const name = pod.metadata.name ?? "";
  const nodeName = nodeNameOf(pod);
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const host = await nodeAgentHost(nodeName, ctx);
  const query = params.toString();
  return { type: "backend", via: "dial", host, location: `https://${host}/${path}${query ? `?${query}` : ""}`, upgradeRequired: true };
}

/** The query of an `exec` or `attach` to the node agent. */
function streamParams(options: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams();
  for (const flag of ["stdin", "stdout", "stderr", "tty"]) if (options[flag] === true) params.append(flag === "tty" ? "tty" : flag, "1");
  for (const c of (options["command"] as string[] | undefined) ?? []) params.append("command", c);
  return params;
}

/** `exec` or `attach`: a command or the main process of a container, over an upgraded connection. */
function containerStream(kind: string, path: "exec" | "attach"): ConnectSubresource {
  return {
    kind,
    methods: ["GET", "POST"],
    options: (query) => streamOptions(query, path === "exec"),
    async locate(namespace, name, options, ctx) {
      const pod = await readPod(namespace, name, ctx);
      const container = podContainer(pod, str(options["container"]));
      return nodeStream(pod, ctx, `${path}/${namespace}/${name}/${container}`, streamParams(options));
    },
  };
}

/** The `portforward` sub-resource: streams to ports of a pod, through its node agent. */
const portForwardSubresource: ConnectSubresource = {
  kind: "PodPortForwardOptions",
  methods: ["GET", "POST"],
  options(query) {
    const ports: number[] = [];
    for (const value of query.getAll("ports")) {
      for (const part of value.split(",")) {
        if (!/^\d+$/.test(part)) throw badRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(part)}: invalid syntax`);
        if (Number(part) > 65535) throw badRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${JSON.stringify(part)}: value out of range`);
        ports.push(Number(part));
      }
    }
    return { ports };
  },
  async locate(namespace, name, options, ctx) {
    const pod = await readPod(namespace, name, ctx);
    const params = new URLSearchParams();
    const ports = options["ports"] as number[];
    if (ports.length > 0) params.set("port", ports.join(","));
    return nodeStream(pod, ctx, `portForward/${namespace}/${name}`, params);
  },
};

/** True for an IP address a proxy may reach: a global unicast address (not loopback, link-local, multicast or unspecified). */
export function isGlobalUnicast(ip: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4) {
    const b = v4.slice(1).map(Number) as [number, number, number, number];
    if (b.some((x) => x > 255)) return false;
    if (b[0] === 0 || b[0] === 127 || b[0] >= 224) return false;
    return !(b[0] === 169 && b[1] === 254);
  }
  if (!/^[0-9a-fA-F:.]+$/.test(ip) || !ip.includes(":")) return false;
  const lower = ip.toLowerCase();
  if (lower === "::" || lower === "::1") return false;
  return !/^(ff|fe[89ab])/.test(lower);
}

/** The `proxy` sub-resource: HTTP to the pod's address, `name`, `name:port` or `scheme:name:port`. */
const proxySubresource: ConnectSubresource = {
  kind: "PodProxyOptions",
  methods: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"],
  subpath: true,
  options: (query, subpath) => ({ path: subpath || (query.get("path") ?? "") }),
  async locate(namespace, id, options, ctx) {
    const parts = id.split(":");
    const [scheme, name, port] = parts.length === 3 ? parts : parts.length === 2 ? ["", parts[0], parts[1]] : ["", parts[0], ""];
    if (parts.length > 3 || !name || !["", "http", "https"].includes(scheme ?? "")) throw badRequest(`invalid pod request ${JSON.stringify(id)}`);
    const pod = await readPod(namespace, name, ctx);
    let target = port ?? "";
    if (target === "") {
      for (const c of list(record(pod["spec"])?.["containers"])) {
        const first = record(list(record(c)?.["ports"])[0]);
        if (first) {
          target = String(first["containerPort"]);
          break;
        }
      }
    }
    const ip = str(record(list(record(pod["status"])?.["podIPs"])[0])?.["ip"]);
    if (!isGlobalUnicast(ip)) throw badRequest("address not allowed");
    const host = target === "" ? (ip.includes(":") ? `[${ip}]` : ip) : joinHostPort(ip, target);
    const path = str(options["path"]);
    return { type: "backend", via: "proxy", host, location: `${scheme || "http"}://${host}/${path.replace(/^\//, "")}`, upgradeRequired: false };
  },
};

/** The connect sub-resources of Pod, by name. */
export const podConnectSubresources: Readonly<Record<string, ConnectSubresource>> = {
  log: logSubresource,
  exec: containerStream("PodExecOptions", "exec"),
  attach: containerStream("PodAttachOptions", "attach"),
  portforward: portForwardSubresource,
  proxy: proxySubresource,
};
