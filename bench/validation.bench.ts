/**
 * Validation plus defaulting of typical objects against `JSON.parse` of the same bytes (the
 * baseline): decode (schema types and pruning), metadata rules, the kind's rules and defaults,
 * as the server runs them on every write.
 * @module
 */
import { builtinResources, decodeObject, validateObjectMeta, type ResourceType } from "@orch/resources";
import type { APIObject } from "@orch/meta";

/** One validation case: a kind and the JSON text of a typical object of it. */
export interface ValidationCase {
  name: string;
  type: ResourceType;
  json: string;
}

/** The result of one case: nanoseconds per object for each side, and their ratio. */
export interface ValidationResult {
  name: string;
  validateNs: number;
  parseNs: number;
  ratio: number;
}

function typeOf(kind: string): ResourceType | undefined {
  return builtinResources.find((t) => t.kind === kind);
}

/** A ConfigMap with 100 keys. */
export function configMap100(): string {
  const data: Record<string, string> = {};
  for (let i = 0; i < 100; i++) data[`key-${i}.conf`] = `value number ${i} `.repeat(4);
  return JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", namespace: "default", labels: { app: "web" } }, data });
}

/** A Pod with 20 containers' worth of fields (ports, env, resources, mounts, probes) and volumes. */
export function pod20(): string {
  const containers = Array.from({ length: 20 }, (_, i) => ({
    name: `c${i}`,
    image: `registry.example.com/app:${i}`,
    ports: [{ name: `http-${i}`, containerPort: 8000 + i, protocol: "TCP" }],
    env: [
      { name: "MODE", value: "prod" },
      { name: "INDEX", value: String(i) },
    ],
    resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
    volumeMounts: [{ name: "config", mountPath: `/etc/app-${i}` }],
  }));
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", labels: { app: "web", tier: "frontend" } },
    spec: {
      containers,
      volumes: [
        { name: "config", configMap: { name: "settings", items: [{ key: "a", path: "a.conf" }] } },
        { name: "token", projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] } },
      ],
    },
  });
}

/**
 * A Deployment of 20 full-featured containers (ports, env, resources, mounts, all three probes,
 * a container security context, lifecycle hooks) with a pod security context, node and pod
 * anti-affinity, topology spread constraints, tolerations and volumes.
 */
export function deployment20(): string {
  const probe = (path: string) => ({
    httpGet: { path, port: "http", scheme: "HTTP" },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    timeoutSeconds: 2,
    failureThreshold: 3,
  });
  const containers = Array.from({ length: 20 }, (_, i) => ({
    name: `c${i}`,
    image: `registry.example.com/app:${i}`,
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
    env: [
      { name: "MODE", value: "prod" },
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ],
    envFrom: [{ configMapRef: { name: "settings" } }],
    resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
    volumeMounts: [{ name: "config", mountPath: `/etc/app-${i}`, readOnly: true }],
    livenessProbe: probe("/livez"),
    readinessProbe: probe("/readyz"),
    startupProbe: { tcpSocket: { port: 8080 }, failureThreshold: 30, periodSeconds: 2 },
    lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", "sleep 5"] } } },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: 1000,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
  }));
  const labels = { app: "web", tier: "frontend" };
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", labels },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
      template: {
        metadata: { labels },
        spec: {
          containers,
          securityContext: { runAsNonRoot: true, fsGroup: 2000, seccompProfile: { type: "RuntimeDefault" } },
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64", "arm64"] }] }],
              },
            },
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: labels }, topologyKey: "kubernetes.io/hostname" } },
              ],
            },
          },
          topologySpreadConstraints: [
            { maxSkew: 1, topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway", labelSelector: { matchLabels: labels } },
          ],
          tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }],
          volumes: [{ name: "config", configMap: { name: "settings" } }],
        },
      },
    },
  });
}

/** The cases whose kinds the catalog serves. */
export function validationCases(): ValidationCase[] {
  const cases: ValidationCase[] = [];
  const cm = typeOf("ConfigMap");
  if (cm) cases.push({ name: "ConfigMap with 100 keys", type: cm, json: configMap100() });
  const pod = typeOf("Pod");
  if (pod) cases.push({ name: "Pod with 20 containers", type: pod, json: pod20() });
  const deployment = typeOf("Deployment");
  if (deployment) cases.push({ name: "Deployment with 20 full-featured containers", type: deployment, json: deployment20() });
  return cases;
}

/**
 * Times `rounds` x `n` validations of one case against as many parses, after three untimed rounds
 * of each (so both run optimised code, not the first tiers of the JIT); best round wins.
 */
export function runValidation(c: ValidationCase, n: number, rounds: number): ValidationResult {
  const version = c.type.versions.find((v) => v.storage) ?? c.type.versions[0];
  if (!version) throw new Error(`${c.type.kind} has no version`);
  const ctx = { domain: "orch.io", now: Date.now() };
  let best = { validate: Infinity, parse: Infinity };
  for (let r = -3; r < rounds; r++) {
    let t = performance.now();
    for (let i = 0; i < n; i++) JSON.parse(c.json);
    const parse = performance.now() - t;
    // Decoding works in place on a body it owns, as the server's does: each round parses a fresh
    // body and validates it, and the parse time of the same bytes is taken off below.
    t = performance.now();
    for (let i = 0; i < n; i++) {
      const object = decodeObject(c.type, version, JSON.parse(c.json)) as APIObject;
      c.type.strategy?.defaults?.(object, ctx);
      validateObjectMeta(object, { namespaced: c.type.scope === "Namespaced" }, ctx);
      c.type.strategy?.validate?.(object, ctx);
    }
    const validate = performance.now() - t - parse;
    if (r >= 0) best = { validate: Math.min(best.validate, validate), parse: Math.min(best.parse, parse) };
  }
  return { name: c.name, validateNs: (best.validate * 1e6) / n, parseNs: (best.parse * 1e6) / n, ratio: best.validate / best.parse };
}
