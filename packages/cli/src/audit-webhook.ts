/**
 * The audit webhook backend of `orch-apiserver` (`--audit-webhook-config-file`): the HTTPS half.
 * The kubeconfig names the server and its TLS material; each batch is POSTed as an
 * `audit.<domain>/v1` EventList. Batching, the buffer and the retries are `batchingSink`'s.
 * @module
 */
import type { HTTPClient } from "@orch/authn";
import { loadWebhookConfig } from "@orch/node";
import { batchingSink, type AuditEvent, type BatchingSink, type MetricsRecorder } from "@orch/server";
import type { Clock } from "@orch/store";
import type { AuditWebhookFlags } from "./audit-flags.js";

const unrefClock: Clock = {
  now: () => Date.now(),
  setTimer: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Where and how the webhook is reached. */
export interface AuditWebhookTarget {
  /** The webhook's URL. */
  server: string;
  /** The HTTPS client (with the kubeconfig's CA and client certificate). */
  http: HTTPClient;
  /** Sent as `Authorization: Bearer` when present. */
  bearerToken?: string;
}

/**
 * The transport of the webhook backend: POSTs `events` to `target` as one EventList in JSON.
 * @throws Error when the webhook cannot be reached or answers anything but 2xx (the batch is then retried).
 */
export function postEventList(target: AuditWebhookTarget, domain: string): (events: readonly AuditEvent[]) => Promise<void> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (target.bearerToken !== undefined) headers["authorization"] = `Bearer ${target.bearerToken}`;
  return async (events) => {
    const body = JSON.stringify({ kind: "EventList", apiVersion: `audit.${domain}/v1`, metadata: {}, items: events });
    const response = await target.http(target.server, { method: "POST", headers, body });
    if (response.status < 200 || response.status > 299) throw new Error(`the audit webhook ${target.server} answered ${response.status}`);
  };
}

/**
 * The webhook backend of `flags`: reads the kubeconfig and returns a {@link BatchingSink} that
 * POSTs EventLists to its server in the flags' mode, batch size, wait, buffer and back-off.
 * Dropped events are counted in `metrics` (`apiserver_audit_error_total{plugin="webhook"}`).
 * @throws Error naming `--audit-webhook-config-file` and the file (and the line, for YAML that
 *   does not parse) when the kubeconfig cannot be read or used.
 */
export async function loadAuditWebhook(
  flags: AuditWebhookFlags,
  options: { domain: string; metrics?: MetricsRecorder; log?: (message: string) => void },
): Promise<BatchingSink> {
  let target: AuditWebhookTarget;
  try {
    const config = await loadWebhookConfig(flags.configFile);
    target = { server: config.server, http: config.http, ...(config.bearerToken !== undefined ? { bearerToken: config.bearerToken } : {}) };
  } catch (error) {
    throw new Error(`--audit-webhook-config-file: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return batchingSink({
    send: postEventList(target, options.domain),
    mode: flags.mode,
    maxBatchSize: flags.batchMaxSize,
    maxWaitMs: flags.batchMaxWaitMs,
    bufferSize: flags.bufferSize,
    initialBackoffMs: flags.initialBackoffMs,
    plugin: "webhook",
    // Timers that do not hold the process: a webhook that is down must not delay the exit.
    clock: unrefClock,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
}
