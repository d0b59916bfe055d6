/**
 * The resources the admission examples write, and how they print a refusal.
 * @module
 */
import type { ResourceRef } from "@orch/client";

/** Pods (core `v1`, namespaced). */
export const pods: ResourceRef = { group: "", version: "v1", resource: "pods", kind: "Pod", namespaced: true };
/** ResourceQuotas (core `v1`, namespaced). */
export const resourceQuotas: ResourceRef = { group: "", version: "v1", resource: "resourcequotas", kind: "ResourceQuota", namespaced: true };
/** ValidatingWebhookConfigurations (`admissionregistration.{domain}/v1`, cluster-scoped). */
export const validatingWebhookConfigurations: ResourceRef = {
  group: "admissionregistration.{domain}",
  version: "v1",
  resource: "validatingwebhookconfigurations",
  kind: "ValidatingWebhookConfiguration",
  namespaced: false,
};

/** A client error as `<code> <message>`, the way the examples print refusals. */
export function refusal(error: unknown): string {
  const status = error as { code?: number; message?: string };
  return `${status.code ?? "?"} ${status.message ?? String(error)}`;
}

/** A Pod running one container of `image`. */
export function pod(name: string, image = "registry.example/app:1.0"): { metadata: { name: string }; spec: { containers: { name: string; image: string }[] } } {
  return { metadata: { name }, spec: { containers: [{ name: "app", image }] } };
}
