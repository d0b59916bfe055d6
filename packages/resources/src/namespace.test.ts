import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  builtinNamespaces,
  namespaceFinalizer,
  namespaceType,
  validateNamespace,
  validateNamespaceFinalize,
  validateNamespaceStatusUpdate,
} from "./namespace.js";

const ctx = { domain: "orch.io", now: 0 };
const ns = (fields: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): APIObject => ({ metadata: { name: "team", ...meta }, ...fields });
const strategy = namespaceType.strategy ?? {};

describe("Namespace", () => {
  it("is a cluster-scoped core v1 kind with short name ns and status and finalize sub-resources", () => {
    expect(namespaceType).toMatchObject({ group: "", resource: "namespaces", scope: "Cluster", shortNames: ["ns"], subresources: ["status", "finalize"] });
    expect(namespaceType.verbs).not.toContain("deletecollection");
  });

  it.each([
    ["orch.io", ["default", "orch-system", "orch-public"]],
    ["k8s.io", ["default", "kube-system", "kube-public"]],
  ])("names the built-in namespaces of %s", (domain, builtin) => {
    expect(builtinNamespaces(domain)).toEqual(builtin);
  });

  it("names namespaces with DNS labels", () => {
    expect(strategy.nameIsLabel).toBe(true);
  });

  it.each([
    ["orch.io", "orch"],
    ["k8s.io", "kubernetes"],
  ])("adds the finalizer of domain %s on create and sets phase Active", (domain, finalizer) => {
    expect(namespaceFinalizer(domain)).toBe(finalizer);
    const object = ns({ spec: { finalizers: ["example.com/x"] }, status: { phase: "Terminating" } });
    strategy.prepareForCreate?.(object, { domain, now: 0 });
    expect(object["spec"]).toEqual({ finalizers: ["example.com/x", finalizer] });
    expect(object["status"]).toEqual({ phase: "Active" });
  });

  it("labels a namespace with its name and defaults the phase", () => {
    const object = ns({ status: {} });
    strategy.defaults?.(object, ctx);
    expect(object.metadata.labels).toEqual({ "orch.io/metadata.name": "team" });
    expect(object["status"]).toEqual({ phase: "Active" });
  });

  it("keeps spec.finalizers and status of the stored namespace on an update of the main resource", () => {
    const old = ns({ spec: { finalizers: ["orch"] }, status: { phase: "Active" } });
    const object = ns({ spec: { finalizers: [] }, status: { phase: "Terminating" } });
    strategy.prepareForUpdate?.(object, old, ctx);
    expect(object).toEqual(old);
  });

  it("keeps the spec on a status update", () => {
    const old = ns({ spec: { finalizers: ["orch"] }, status: { phase: "Active" } });
    const object = ns({ spec: { finalizers: [] }, status: { phase: "Active", conditions: [] } });
    strategy.prepareForStatusUpdate?.(object, old, ctx);
    expect(object).toEqual(ns({ spec: { finalizers: ["orch"] }, status: { phase: "Active", conditions: [] } }));
  });

  it("changes only the finalizers through finalize", () => {
    const old = ns({ spec: { finalizers: ["orch"] }, status: { phase: "Terminating" } });
    const object = ns({ spec: { finalizers: [] }, status: { phase: "Active" } });
    strategy.subresourceStrategies?.["finalize"]?.prepareForUpdate?.(object, old, ctx);
    expect(object).toEqual(ns({ spec: { finalizers: [] }, status: { phase: "Terminating" } }));
  });

  it("validates spec.finalizers names", () => {
    expect(validateNamespace(ns({ spec: { finalizers: ["orch", "a.io/b", "orphan"] } }), ctx)).toEqual([]);
    expect(validateNamespace(ns({ spec: { finalizers: ["kubernetes"] } }), ctx).map(formatFieldError)).toEqual([
      'spec.finalizers: Invalid value: "kubernetes": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    expect(validateNamespaceFinalize(ns({ spec: { finalizers: ["a.io/b", "bad"] } }), ctx).map((e) => e.field)).toEqual(["spec.finalizers[1]"]);
  });

  it.each([
    [undefined, "Active", []],
    [undefined, "Terminating", ["status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"]],
    ["2026-01-01T00:00:00Z", "Terminating", []],
    ["2026-01-01T00:00:00Z", "Active", ["status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"]],
  ])("with deletionTimestamp %s allows phase %s only when it agrees", (deletionTimestamp, phase, expected) => {
    const object = ns({ status: { phase } }, deletionTimestamp ? { deletionTimestamp } : {});
    expect(validateNamespaceStatusUpdate(object).map(formatFieldError)).toEqual(expected);
  });

  it("is selectable by status.phase and shows a Status column", () => {
    const object = ns({ status: { phase: "Active" } });
    expect(strategy.selectableFields?.(object)).toEqual({ "status.phase": "Active", name: "team" });
    expect(strategy.tableColumns?.map((c) => [c.name, c.cell(object)])).toEqual([["Status", "Active"]]);
  });
});
