import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultReplicaSet, replicaSetType, validateReplicaSet } from "./replica-set.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

/** A defaulted ReplicaSet `web` selecting `app=web`, with `spec` overrides. */
function replicaSet(spec: Record<string, unknown> = {}): APIObject {
  const object: APIObject = {
    metadata: { name: "web", namespace: "ns" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1" }] } },
      ...spec,
    },
  };
  defaultReplicaSet(object);
  return object;
}

describe("ReplicaSet", () => {
  it("is a namespaced apps/v1 kind with status and scale", () => {
    expect(replicaSetType).toMatchObject({ group: "apps", resource: "replicasets", shortNames: ["rs"], subresources: ["status", "scale"] });
    expect(replicaSetType.strategy?.scale?.specReplicasPath).toBe("spec.replicas");
  });

  it("defaults replicas to 1 and the template as a pod", () => {
    expect(replicaSet()["spec"]).toMatchObject({
      replicas: 1,
      template: { spec: { restartPolicy: "Always", containers: [{ imagePullPolicy: "IfNotPresent" }] } },
    });
  });

  it.each([
    ["a valid replica set", {}, []],
    ["a missing selector", { selector: undefined }, [["spec.selector", "FieldValueRequired"]]],
    ["a selector that misses the labels", { selector: { matchLabels: { app: "db" } } }, [["spec.template.metadata.labels", "FieldValueInvalid"]]],
    ["negative replicas", { replicas: -2 }, [["spec.replicas", "FieldValueInvalid"]]],
    ["negative minReadySeconds", { minReadySeconds: -1 }, [["spec.minReadySeconds", "FieldValueInvalid"]]],
  ])("validates %s", (_what, spec, expected) => {
    expect(causes(validateReplicaSet(replicaSet(spec)))).toEqual(expected);
  });

  it("makes spec.selector immutable", () => {
    const errors =
      replicaSetType.strategy?.validateUpdate?.(replicaSet({ selector: { matchLabels: { app: "web", x: "y" } } }), replicaSet(), {
        domain: "orch.io",
        now: 0,
      }) ?? [];
    expect(errors.map(formatFieldError)).toEqual(['spec.selector: Invalid value: {"matchLabels":{"app":"web","x":"y"}}: field is immutable']);
  });

  it("shows DESIRED, CURRENT and READY", () => {
    const object = replicaSet({ replicas: 3 });
    object["status"] = { replicas: 2, readyReplicas: 1 };
    const columns = replicaSetType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Desired", "Current", "Ready"]);
    expect(columns.map((c) => c.cell(object))).toEqual([3, 2, 1]);
  });
});
