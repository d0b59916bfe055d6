/**
 * ImagePolicyWebhook: asks a backend whether the images of a pod may run, by POSTing it an
 * ImageReview (`imagepolicy.<domain>/v1alpha1`), and caches its answers (the reference's
 * `imagepolicy` plugin).
 *
 * Configuration (the plugin's entry in the AdmissionConfiguration):
 * ```yaml
 * imagePolicy:
 *   kubeConfigFile: /etc/orch/image-policy.kubeconfig  # the backend: server, CA, client certificate
 *   allowTTL: 50        # seconds an approval is cached (default 300; -1: not cached)
 *   denyTTL: 50         # seconds a denial is cached (default 30; -1: not cached)
 *   retryBackoff: 500   # milliseconds before the one retry (default 500; -1: none)
 *   defaultAllow: true  # whether pods pass when the backend cannot be reached
 * ```
 * @module
 */
import { ExpiringCache, parseWebhookConfig, type HTTPClient, type HTTPResponse, type PEMSource } from "@orch/authn";
import type { APIObject } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { jsonKind, record, records, str } from "../internal/json.js";
import { podSpecOf } from "../internal/pod-spec.js";
import { admissionForbidden, type AdmissionPlugin, type PluginContext, type PluginFactory, type WebhookTLS } from "../plugin.js";

/** The spec of an ImageReview: the images, the pod's image-policy annotations, its namespace. */
export interface ImageReviewSpec {
  /** One entry per container image reviewed. */
  containers?: { image?: string }[];
  /** The pod's annotations whose key contains `.image-policy.<domain>/`. */
  annotations?: Record<string, string>;
  /** The pod's namespace. */
  namespace?: string;
}

/** The backend's answer in an ImageReview. */
export interface ImageReviewStatus {
  /** Whether every image may run. */
  allowed: boolean;
  /** Why not, when not. */
  reason?: string;
  /** Audit annotations to record, keyed without the plugin's prefix. */
  auditAnnotations?: Record<string, string>;
}

/** An ImageReview (`imagepolicy.<domain>/v1alpha1`), as sent to and read back from the backend. */
export interface ImageReview {
  /** `imagepolicy.<domain>/v1alpha1`. */
  apiVersion: string;
  /** Always `ImageReview`. */
  kind: "ImageReview";
  /** Empty object metadata (`creationTimestamp: null`, as the reference sends it). */
  metadata: Record<string, unknown>;
  /** What is reviewed. */
  spec: ImageReviewSpec;
  /** The backend's answer (`allowed: false` in the request). */
  status: ImageReviewStatus;
}

/** The plugin's settings after defaults and range checks, in milliseconds. */
interface Settings {
  kubeConfigFile: string;
  allowTTLMs: number;
  denyTTLMs: number;
  retryBackoffMs: number;
  defaultAllow: boolean;
}

const nsPerMs = 1_000_000;
const nsPerSecond = 1_000_000_000;
/** How long one call to the backend may take (the reference's webhook request timeout). */
const requestTimeoutMs = 30_000;
/** The most answers cached (the reference's LRU size). */
const cacheSize = 1024;

/** Go's `time.Duration.String()` of `ns` nanoseconds (`1h0m0s`, `1.5s`, `500ms`, `1ns`). */
function formatGoDuration(ns: number): string {
  if (ns === 0) return "0s";
  if (ns < 0) return `-${formatGoDuration(-ns)}`;
  const fraction = (value: number, unit: number, suffix: string) => {
    const whole = Math.floor(value / unit);
    const rest = value % unit;
    const digits = String(unit).length - 1;
    const tail = rest === 0 ? "" : `.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
    return `${whole}${tail}${suffix}`;
  };
  if (ns < 1000) return `${ns}ns`;
  if (ns < nsPerMs) return fraction(ns, 1000, "µs");
  if (ns < nsPerSecond) return fraction(ns, nsPerMs, "ms");
  const hours = Math.floor(ns / (3600 * nsPerSecond));
  const minutes = Math.floor((ns % (3600 * nsPerSecond)) / (60 * nsPerSecond));
  const seconds = fraction(ns % (60 * nsPerSecond), nsPerSecond, "s");
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

/** One duration setting: its unit, range and default, in nanoseconds. */
interface DurationRule {
  name: string;
  scaleNs: number;
  minNs: number;
  maxNs: number;
  defaultNs: number;
}

const retryBackoffRule: DurationRule = { name: "retryBackoff", scaleNs: nsPerMs, minNs: 1, maxNs: 5 * 60 * nsPerSecond, defaultNs: 500 * nsPerMs };
const allowTTLRule: DurationRule = {
  name: "allowTTL",
  scaleNs: nsPerSecond,
  minNs: nsPerSecond,
  maxNs: 30 * 60 * nsPerSecond,
  defaultNs: 5 * 60 * nsPerSecond,
};
const denyTTLRule: DurationRule = { name: "denyTTL", scaleNs: nsPerSecond, minNs: nsPerSecond, maxNs: 30 * 60 * nsPerSecond, defaultNs: 30 * nsPerSecond };

/**
 * A duration setting in milliseconds, as the reference normalizes it: -1 disables (0), 0 or
 * absent takes the default, anything else is scaled and range-checked.
 * @throws Error `valid value is between <min> and <max>, got <value>`.
 */
function normalizeDuration(value: unknown, rule: DurationRule): number {
  if (value === undefined || value === null || value === 0) return rule.defaultNs / nsPerMs;
  if (typeof value !== "number" || !Number.isInteger(value)) throw new Error(`ImagePolicyWebhook: imagePolicy.${rule.name} must be an integer`);
  if (value === -1) return 0;
  const ns = value * rule.scaleNs;
  if (ns < rule.minNs || ns > rule.maxNs) {
    throw new Error(
      `ImagePolicyWebhook: imagePolicy.${rule.name}: valid value is between ${formatGoDuration(rule.minNs)} and ${formatGoDuration(rule.maxNs)}, got ${formatGoDuration(ns)}`,
    );
  }
  return ns / nsPerMs;
}

/**
 * Reads the plugin's configuration (`{ imagePolicy: {...} }`).
 * @throws Error for a missing configuration or kubeConfigFile, or a setting out of range.
 */
function readSettings(configuration: unknown): Settings {
  const root = record(configuration);
  if (!root) throw new Error("ImagePolicyWebhook: no config specified");
  const policy = record(root["imagePolicy"]);
  if (!policy) throw new Error("ImagePolicyWebhook: the configuration has no imagePolicy");
  const kubeConfigFile = str(policy["kubeConfigFile"]);
  if (kubeConfigFile === "") throw new Error("ImagePolicyWebhook: imagePolicy.kubeConfigFile is required");
  const defaultAllow = policy["defaultAllow"] ?? false;
  if (typeof defaultAllow !== "boolean") throw new Error("ImagePolicyWebhook: imagePolicy.defaultAllow must be a boolean");
  return {
    kubeConfigFile,
    allowTTLMs: normalizeDuration(policy["allowTTL"], allowTTLRule),
    denyTTLMs: normalizeDuration(policy["denyTTL"], denyTTLRule),
    retryBackoffMs: normalizeDuration(policy["retryBackoff"], retryBackoffRule),
    defaultAllow,
  };
}

/** The backend: where the review goes, and the client (with its TLS) that takes it there. */
interface Backend {
  server: string;
  http: HTTPClient;
  token: string | undefined;
}

/** `path` against the directory of `base` (paths in a kubeconfig are relative to the kubeconfig). */
function besides(base: string, path: string): string {
  if (path.startsWith("/")) return path;
  const slash = base.lastIndexOf("/");
  return slash === -1 ? path : `${base.slice(0, slash + 1)}${path}`;
}

/**
 * Reads the backend's kubeconfig and builds its client.
 * @throws Error without a transport or file reader, or for a kubeconfig it cannot use.
 */
function connect(ctx: PluginContext, kubeConfigFile: string): Backend {
  if (!ctx.transport) throw new Error("ImagePolicyWebhook: no webhook transport: the server must supply one to call the image policy backend");
  const readFile = ctx.readFile;
  if (!readFile) throw new Error(`ImagePolicyWebhook: cannot read ${kubeConfigFile}: this runtime reads no files`);
  const config = parseWebhookConfig(readFile(kubeConfigFile), kubeConfigFile);
  if (config.insecureSkipTLSVerify) throw new Error(`ImagePolicyWebhook: ${kubeConfigFile}: insecure-skip-tls-verify is not supported`);
  const pem = (source: PEMSource | undefined) => (source === undefined ? undefined : (source.data ?? readFile(besides(kubeConfigFile, source.file ?? ""))));
  const tls: WebhookTLS = {};
  const ca = pem(config.certificateAuthority);
  const cert = pem(config.clientCertificate);
  const key = pem(config.clientKey);
  if (ca !== undefined) tls.ca = ca;
  if (cert !== undefined) tls.cert = cert;
  if (key !== undefined) tls.key = key;
  if (config.tlsServerName !== undefined) tls.servername = config.tlsServerName;
  return { server: config.server, http: ctx.transport.client(tls), token: config.token };
}

/** The images reviewed: containers then init containers, or the ephemeral ones for `pods/ephemeralcontainers`. */
function imagesOf(pod: APIObject, subresource: string): { image?: string }[] {
  const spec = podSpecOf(pod);
  const lists = subresource === "ephemeralcontainers" ? ["ephemeralContainers"] : ["containers", "initContainers"];
  return lists.flatMap((field) => records(spec?.[field])).map((c) => (str(c["image"]) === "" ? {} : { image: str(c["image"]) }));
}

/** The reason a call failed: for the log, the refusal, and whether to retry. */
class BackendError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

/**
 * Checks the backend's answer: an ImageReview (`kind` and `apiVersion`, when given, must be
 * the plugin's) whose `status` has a boolean `allowed`, a string `reason` and string
 * `auditAnnotations` (the shape the reference decodes into).
 * @throws BackendError naming what is wrong.
 */
function decodeStatus(response: HTTPResponse, apiVersion: string): ImageReviewStatus {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(response.body));
  } catch (error) {
    throw new BackendError(`failed to decode the ImageReview: ${error instanceof Error ? error.message : String(error)}`, false);
  }
  const review = record(body);
  if (!review)
    throw new BackendError(`failed to decode the ImageReview: json: cannot unmarshal ${jsonKind(body)} into Go value of type v1alpha1.ImageReview`, false);
  const kind = review["kind"];
  if (kind !== undefined && kind !== "ImageReview") throw new BackendError(`the webhook answered with kind ${JSON.stringify(kind)}, not ImageReview`, false);
  const version = review["apiVersion"];
  if (version !== undefined && version !== apiVersion)
    throw new BackendError(`the webhook answered with apiVersion ${JSON.stringify(version)}, not ${apiVersion}`, false);
  const status = review["status"] ?? {};
  const fields = record(status);
  const bad = (field: string, type: string, value: unknown) =>
    new BackendError(
      `failed to decode the ImageReview: json: cannot unmarshal ${jsonKind(value)} into Go struct field ImageReview.status${field} of type ${type}`,
      false,
    );
  if (!fields) throw bad("", "v1alpha1.ImageReviewStatus", status);
  const allowed = fields["allowed"] ?? false;
  if (typeof allowed !== "boolean") throw bad(".allowed", "bool", allowed);
  const out: ImageReviewStatus = { allowed };
  const reason = fields["reason"] ?? "";
  if (typeof reason !== "string") throw bad(".reason", "string", reason);
  if (reason !== "") out.reason = reason;
  const annotations = fields["auditAnnotations"] ?? {};
  const map = record(annotations);
  if (!map) throw bad(".auditAnnotations", "map[string]string", annotations);
  for (const value of Object.values(map)) if (typeof value !== "string") throw bad(".auditAnnotations", "string", value);
  if (Object.keys(map).length > 0) out.auditAnnotations = map as Record<string, string>;
  return out;
}

/**
 * The ImagePolicyWebhook plugin as the server sees it: besides admitting pods, it answers an
 * ImageReview created through the API (`imagepolicy.<domain>/v1alpha1`) with its backend and
 * cache; a backend that cannot be reached answers as `defaultAllow` says.
 */
export interface ImageReviewer extends AdmissionPlugin {
  /** The backend's decision on `spec`. */
  reviewImages(spec: ImageReviewSpec): Promise<ImageReviewStatus>;
}

/** True when `plugin` answers ImageReviews (the ImagePolicyWebhook plugin). */
export function isImageReviewer(plugin: AdmissionPlugin): plugin is ImageReviewer {
  return typeof (plugin as Partial<ImageReviewer>).reviewImages === "function";
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The ImagePolicyWebhook plugin (validating phase; CREATE and UPDATE of pods and of
 * `pods/ephemeralcontainers`). The review lists the image of every container and init
 * container (for `ephemeralcontainers`, of every ephemeral container), the pod annotations whose
 * key contains `.image-policy.<domain>/`, and the namespace. Answers are cached by review spec,
 * approvals for `allowTTL`, denials for `denyTTL`. The backend's `auditAnnotations` are
 * recorded under `imagepolicywebhook.image-policy.<domain>/`.
 *
 * A denial is 403 `image policy webhook backend denied one or more images: <reason>` (without a
 * reason: `one or more images rejected by webhook backend`). A backend that cannot be reached,
 * answers 429 or 5xx is asked once more after `retryBackoff`; when it still fails (or answers
 * another non-2xx status, or something that is not an ImageReview), `defaultAllow` decides: the
 * pod passes with the audit annotation `imagepolicywebhook.image-policy.<domain>/failed-open`
 * and the pod annotation `alpha.image-policy.<domain>/failed-open` set to `"true"`, or is
 * refused with 403 and the failure's message.
 * @throws Error at construction without a configuration, a `kubeConfigFile`, a webhook
 *   transport or a file reader, or for settings out of range.
 */
export const imagePolicyWebhook: PluginFactory = (ctx) => {
  const { services } = ctx;
  const settings = readSettings(ctx.configuration);
  const backend = connect(ctx, settings.kubeConfigFile);
  const domain = services.domain;
  const apiVersion = `imagepolicy.${domain}/v1alpha1`;
  const annotationMarker = `.image-policy.${domain}/`;
  const auditPrefix = `imagepolicywebhook.image-policy.${domain}/`;
  const failedOpenAnnotation = `alpha.image-policy.${domain}/failed-open`;
  const cache = new ExpiringCache<string, ImageReviewStatus>({ now: () => services.now() }, cacheSize);

  function reviewSpec(attrs: AdmissionAttributes, pod: APIObject): ImageReviewSpec {
    const spec: ImageReviewSpec = {};
    const containers = imagesOf(pod, attrs.subresource);
    if (containers.length > 0) spec.containers = containers;
    const annotations = Object.entries(pod.metadata.annotations ?? {})
      .filter(([k]) => k.includes(annotationMarker))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (annotations.length > 0) spec.annotations = Object.fromEntries(annotations);
    if (attrs.namespace !== "") spec.namespace = attrs.namespace;
    return spec;
  }

  async function callOnce(body: string): Promise<ImageReviewStatus> {
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
    if (backend.token !== undefined) headers["Authorization"] = `Bearer ${backend.token}`;
    let response: HTTPResponse;
    try {
      response = await backend.http(backend.server, { method: "POST", headers, body, signal: AbortSignal.timeout(requestTimeoutMs) });
    } catch (error) {
      throw new BackendError(`Post ${JSON.stringify(backend.server)}: ${error instanceof Error ? error.message : String(error)}`, true);
    }
    if (response.status < 200 || response.status >= 300) {
      throw new BackendError(`Error contacting webhook: ${response.status}`, response.status === 429 || response.status >= 500);
    }
    return decodeStatus(response, apiVersion);
  }

  /** Asks the backend, once more after the backoff when the first failure is transient. */
  async function call(spec: ImageReviewSpec): Promise<ImageReviewStatus> {
    const review: ImageReview = { apiVersion, kind: "ImageReview", metadata: { creationTimestamp: null }, spec, status: { allowed: false } };
    const body = JSON.stringify(review);
    try {
      return await callOnce(body);
    } catch (error) {
      if (!(error instanceof BackendError) || !error.retriable) throw error;
      if (settings.retryBackoffMs > 0) await sleep(settings.retryBackoffMs);
      return callOnce(body);
    }
  }

  /** Fails open (annotating) or closed (refusing), as `defaultAllow` says. */
  function backendFailed(attrs: AdmissionAttributes, pod: APIObject, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    services.log(`ImagePolicyWebhook: error contacting webhook backend: ${message}`);
    if (!settings.defaultAllow) throw admissionForbidden(attrs, message);
    attrs.auditAnnotations[`${auditPrefix}failed-open`] = "true";
    pod.metadata.annotations = { ...pod.metadata.annotations, [failedOpenAnnotation]: "true" };
  }

  /** The backend's answer for `spec`, from the cache when it is there. */
  async function decide(spec: ImageReviewSpec): Promise<ImageReviewStatus> {
    const key = JSON.stringify(spec);
    let status = cache.get(key);
    if (status === undefined) {
      status = await call(spec);
      cache.set(key, status, status.allowed ? settings.allowTTLMs : settings.denyTTLMs);
    }
    return status;
  }

  const plugin: ImageReviewer = {
    name: "ImagePolicyWebhook",
    operations: ["CREATE", "UPDATE"],
    async reviewImages(spec) {
      try {
        return await decide(spec);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        services.log(`ImagePolicyWebhook: error contacting webhook backend: ${message}`);
        return settings.defaultAllow ? { allowed: true, auditAnnotations: { "failed-open": "true" } } : { allowed: false, reason: message };
      }
    },
    async validate(attrs: AdmissionAttributes) {
      const pod = attrs.object;
      if (!pod || attrs.resource.group !== "" || attrs.resource.resource !== "pods") return;
      if (attrs.subresource !== "" && !isResource(attrs, "", "pods", "ephemeralcontainers")) return;
      let status: ImageReviewStatus;
      try {
        status = await decide(reviewSpec(attrs, pod));
      } catch (error) {
        backendFailed(attrs, pod, error);
        return;
      }
      for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) attrs.auditAnnotations[`${auditPrefix}${k}`] = v;
      if (!status.allowed) {
        throw admissionForbidden(
          attrs,
          status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : "one or more images rejected by webhook backend",
        );
      }
    },
  };
  return plugin;
};
