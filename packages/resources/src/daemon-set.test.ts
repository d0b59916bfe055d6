import { type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { daemonSetType, defaultDaemonSet, validateDaemonSet } from "./daemon-set.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

/** A defaulted DaemonSet `agent` selecting `app=agent`, with `spec` overrides. */
function daemonSet(spec: Record<string, unknown> = {}): APIObject {
  const object: APIObject = {
    metadata: { name: "agent", namespace: "ns" },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      template: { metadata: { labels: { app: "agent" } }, spec: { containers: [{ name: "a", image: "agent" }] } },
      ...spec,
    },
  };
  defaultDaemonSet(object);
  return object;
}

describe("DaemonSet", () => {
  it("is a namespaced apps/v1 kind with status and no scale", () => {
    expect(daemonSetType).toMatchObject({ group: "apps", resource: "daemonsets", shortNames: ["ds"], subresources: ["status"] });
    expect(daemonSetType.strategy?.scale).toBeUndefined();
  });

  it("defaults a rolling update of one unavailable pod and the history", () => {
    expect(daemonSet()["spec"]).toMatchObject({
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    });
  });

  it.each([
    ["a valid daemon set", {}, []],
    ["a missing selector", { selector: undefined }, [["spec.selector", "FieldValueRequired"]]],
    ["a selector that misses the labels", { selector: { matchLabels: { app: "x" } } }, [["spec.template.metadata.labels", "FieldValueInvalid"]]],
    ["an unknown update strategy", { updateStrategy: { type: "Blue" } }, [["spec.updateStrategy.type", "FieldValueNotSupported"]]],
  ])("validates %s", (_what, spec, expected) => {
    expect(causes(validateDaemonSet(daemonSet(spec)))).toEqual(expected);
  });

  it("makes spec.selector immutable", () => {
    const errors =
      daemonSetType.strategy?.validateUpdate?.(daemonSet({ selector: { matchLabels: { app: "agent", x: "y" } } }), daemonSet(), {
        domain: "orch.io",
        now: 0,
      }) ?? [];
    expect(causes(errors)).toEqual([["spec.selector", "FieldValueInvalid"]]);
  });

  it("shows the counts and the node selector", () => {
    const object = daemonSet();
    object["status"] = { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 };
    const columns = daemonSetType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => c.cell(object))).toEqual([3, 3, 2, 3, 2, "<none>"]);
  });
});
