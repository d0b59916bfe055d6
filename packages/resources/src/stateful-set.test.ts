import { type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultStatefulSet, statefulSetType, validateStatefulSet, validateStatefulSetUpdate } from "./stateful-set.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

/** A defaulted StatefulSet `db` selecting `app=db`, with `spec` overrides. */
function statefulSet(spec: Record<string, unknown> = {}): APIObject {
  const object: APIObject = {
    metadata: { name: "db", namespace: "ns" },
    spec: {
      serviceName: "db",
      selector: { matchLabels: { app: "db" } },
      template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "pg", image: "postgres" }] } },
      ...spec,
    },
  };
  defaultStatefulSet(object);
  return object;
}

describe("StatefulSet", () => {
  it("is a namespaced apps/v1 kind with status and scale", () => {
    expect(statefulSetType).toMatchObject({ group: "apps", resource: "statefulsets", shortNames: ["sts"], subresources: ["status", "scale"] });
  });

  it("defaults replicas, the pod management policy, the update strategy and history", () => {
    expect(statefulSet()["spec"]).toMatchObject({
      replicas: 1,
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    });
  });

  it.each([
    ["a valid stateful set", {}, []],
    ["a missing selector", { selector: undefined }, [["spec.selector", "FieldValueRequired"]]],
    ["a selector that misses the labels", { selector: { matchLabels: { app: "x" } } }, [["spec.template.metadata.labels", "FieldValueInvalid"]]],
    ["negative replicas", { replicas: -1 }, [["spec.replicas", "FieldValueInvalid"]]],
    ["an unknown pod management policy", { podManagementPolicy: "Random" }, [["spec.podManagementPolicy", "FieldValueNotSupported"]]],
    ["an unknown update strategy", { updateStrategy: { type: "Blue" } }, [["spec.updateStrategy.type", "FieldValueNotSupported"]]],
    [
      "a negative partition",
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: -1 } } },
      [["spec.updateStrategy.rollingUpdate.partition", "FieldValueInvalid"]],
    ],
  ])("validates %s", (_what, spec, expected) => {
    expect(causes(validateStatefulSet(statefulSet(spec)))).toEqual(expected);
  });

  it("lets replicas and the template change but not the selector or the service name", () => {
    const old = statefulSet();
    expect(validateStatefulSetUpdate(statefulSet({ replicas: 4 }), old)).toEqual([]);
    expect(causes(validateStatefulSetUpdate(statefulSet({ selector: { matchLabels: { app: "db", x: "y" } } }), old))).toEqual([
      ["spec.selector", "FieldValueInvalid"],
    ]);
    const errors = validateStatefulSetUpdate(statefulSet({ serviceName: "other" }), old);
    expect(causes(errors)).toEqual([["spec", "FieldValueForbidden"]]);
    expect(errors[0]?.detail).toMatch(/^updates to statefulset spec for fields other than 'replicas'/);
  });

  it("shows READY", () => {
    const object = statefulSet({ replicas: 3 });
    object["status"] = { replicas: 3, readyReplicas: 2 };
    const columns = statefulSetType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => [c.name, c.cell(object)])).toEqual([["Ready", "2/3"]]);
  });
});
