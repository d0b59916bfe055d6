/**
 * Whether a Pod template fits a Node, as the `daemonset` loop decides it (the reference's
 * `NodeShouldRunDaemonPod` without resource fit): `nodeSelector`, the required node affinity
 * (`matchExpressions` on labels, `matchFields` on `metadata.name`) and the Node's `NoSchedule`
 * and `NoExecute` taints against the tolerations.
 * @module
 */
import type { APIObject } from "@orch/meta";
import { arr, rec, specOf } from "./object-fields.js";

/** True when one node-selector requirement (`key`, `operator`, `values`) holds for `value` (absent when undefined). */
function requirementHolds(requirement: Record<string, unknown>, value: string | undefined): boolean {
  const values = arr(requirement["values"]).map(String);
  switch (requirement["operator"]) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      const have = Number(value);
      const want = Number(values[0]);
      if (value === undefined || !Number.isInteger(have) || !Number.isInteger(want)) return false;
      return requirement["operator"] === "Gt" ? have > want : have < want;
    }
    default:
      return false;
  }
}

/** True when a `NodeSelectorTerm` matches `node` (an empty term matches nothing). */
function termMatches(term: Record<string, unknown>, node: APIObject): boolean {
  const expressions = arr(term["matchExpressions"]).map((r) => rec(r) ?? {});
  const fields = arr(term["matchFields"]).map((r) => rec(r) ?? {});
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    expressions.every((r) => requirementHolds(r, labels[String(r["key"])])) &&
    fields.every((r) => r["key"] === "metadata.name" && requirementHolds(r, node.metadata.name))
  );
}

/** True when `node` passes the pod spec's `nodeSelector` and required node affinity. */
export function nodeMatches(podSpec: Record<string, unknown>, node: APIObject): boolean {
  const labels = node.metadata.labels ?? {};
  const selector = (rec(podSpec["nodeSelector"]) ?? {}) as Record<string, string>;
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const required = rec(rec(rec(podSpec["affinity"])?.["nodeAffinity"])?.["requiredDuringSchedulingIgnoredDuringExecution"]);
  if (!required) return true;
  return arr(required["nodeSelectorTerms"]).some((t) => termMatches(rec(t) ?? {}, node));
}

/** True when `toleration` tolerates `taint`. */
function tolerates(toleration: Record<string, unknown>, taint: Record<string, unknown>): boolean {
  if (toleration["effect"] !== undefined && toleration["effect"] !== "" && toleration["effect"] !== taint["effect"]) return false;
  const key = toleration["key"];
  if (key !== undefined && key !== "" && key !== taint["key"]) return false;
  if (toleration["operator"] === "Exists") return true;
  if ((key === undefined || key === "") && toleration["operator"] !== "Exists") return false;
  return (toleration["value"] ?? "") === (taint["value"] ?? "");
}

/** True when every `NoSchedule` and `NoExecute` taint of `node` is tolerated by the pod spec. */
export function taintsTolerated(podSpec: Record<string, unknown>, node: APIObject): boolean {
  const tolerations = arr(podSpec["tolerations"]).map((t) => rec(t) ?? {});
  return arr(specOf(node)["taints"])
    .map((t) => rec(t) ?? {})
    .filter((t) => t["effect"] === "NoSchedule" || t["effect"] === "NoExecute")
    .every((taint) => tolerations.some((t) => tolerates(t, taint)));
}
