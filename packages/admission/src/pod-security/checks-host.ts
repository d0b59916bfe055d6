/**
 * The baseline checks on what a pod shares with its host: host namespaces, host ports, hosts in
 * probes and lifecycle handlers (from v1.34), and Windows host processes.
 * @module
 */
import { list, record, str } from "../internal/json.js";
import { containersPhrase, joinQuote, pluralize, settersPhrase, sortedSet, type Check, type PodView, type Violation } from "./check.js";

function hostNamespaces(pod: PodView): Violation | undefined {
  const shared = (["hostNetwork", "hostPID", "hostIPC"] as const).filter((f) => pod.spec[f] === true).map((f) => `${f}=true`);
  return shared.length ? { reason: "host namespaces", detail: shared.join(", ") } : undefined;
}

function hostPorts(pod: PodView): Violation | undefined {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const c of pod.containers) {
    let uses = false;
    for (const port of list(c.container["ports"])) {
      const hostPort = record(port)?.["hostPort"];
      if (typeof hostPort === "number" && hostPort !== 0) {
        uses = true;
        ports.add(String(hostPort));
      }
    }
    if (uses) bad.push(c.name);
  }
  if (!bad.length) return undefined;
  const sorted = sortedSet(ports);
  return {
    reason: "hostPort",
    detail: `${containersPhrase(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", sorted.length)} ${sorted.join(", ")}`,
  };
}

/** The `host` values set in the httpGet and tcpSocket of a probe or lifecycle handler. */
function handlerHosts(handler: unknown): string[] {
  const h = record(handler);
  if (!h) return [];
  return [str(record(h["httpGet"])?.["host"]), str(record(h["tcpSocket"])?.["host"])].filter((host) => host !== "");
}

function hostProbesAndHostLifecycle(pod: PodView): Violation | undefined {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  for (const c of pod.containers) {
    const lifecycle = record(c.container["lifecycle"]);
    const handlers = [
      c.container["livenessProbe"],
      c.container["readinessProbe"],
      c.container["startupProbe"],
      lifecycle?.["postStart"],
      lifecycle?.["preStop"],
    ];
    for (const handler of handlers) {
      const found = handlerHosts(handler);
      if (!found.length) continue;
      bad.add(c.name);
      for (const host of found) hosts.add(host);
    }
  }
  if (!bad.size) return undefined;
  const names = sortedSet(bad);
  const list = sortedSet(hosts);
  return {
    reason: "probe or lifecycle host",
    detail: `${containersPhrase(names)} ${pluralize("uses", "use", names.length)} ${pluralize("probe or lifecycle host", "probe or lifecycle hosts", list.length)} ${joinQuote(list)}`,
  };
}

function hostProcess(context: Record<string, unknown> | undefined): boolean {
  return record(context?.["windowsOptions"])?.["hostProcess"] === true;
}

function windowsHostProcess(pod: PodView): Violation | undefined {
  const bad = pod.containers.filter((c) => hostProcess(c.securityContext)).map((c) => c.name);
  const setters = settersPhrase(hostProcess(pod.securityContext), bad);
  if (!setters.length) return undefined;
  return { reason: "hostProcess", detail: `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true` };
}

/** The host checks. */
export const hostChecks: readonly Check[] = [
  { id: "hostNamespaces", level: "baseline", versions: [{ since: 0, check: hostNamespaces }] },
  { id: "hostPorts", level: "baseline", versions: [{ since: 0, check: hostPorts }] },
  { id: "hostProbesAndHostLifecycle", level: "baseline", versions: [{ since: 34, check: hostProbesAndHostLifecycle }] },
  { id: "windowsHostProcess", level: "baseline", versions: [{ since: 0, check: windowsHostProcess }] },
];
