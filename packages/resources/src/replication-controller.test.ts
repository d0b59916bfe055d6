import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import {
  defaultReplicationController,
  replicationControllerType,
  validateReplicationController,
  validateReplicationControllerStatus,
} from "./replication-controller.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);
const rc = (spec: Record<string, unknown>, labels?: Record<string, string>): APIObject => {
  const object: APIObject = { apiVersion: "v1", kind: "ReplicationController", metadata: { name: "rc", namespace: "ns", ...(labels ? { labels } : {}) }, spec };
  defaultReplicationController(object);
  return object;
};
const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [{ name: "c", image: "i" }], ...spec },
});

describe("ReplicationController", () => {
  it("is a core v1 kind with status, scale and short name rc", () => {
    expect(replicationControllerType).toMatchObject({ group: "", resource: "replicationcontrollers", shortNames: ["rc"], subresources: ["status", "scale"] });
    expect(replicationControllerType.strategy?.scale).toEqual({
      specReplicasPath: "spec.replicas",
      statusReplicasPath: "status.replicas",
      labelSelectorPath: "spec.selector",
    });
  });

  it("defaults the selector and labels from the template, and replicas to 1", () => {
    const object = rc({ template: template({ app: "web" }) });
    expect(object["spec"]).toMatchObject({ replicas: 1, selector: { app: "web" }, template: { spec: { restartPolicy: "Always" } } });
    expect(object.metadata.labels).toEqual({ app: "web" });
    expect(rc({ selector: { app: "web" }, template: template({ app: "web", v: "1" }) }, { own: "x" }).metadata.labels).toEqual({ own: "x" });
    expect(validateReplicationController(object)).toEqual([]);
  });

  it("requires a matching selector and an Always restart policy without a deadline", () => {
    expect(
      causes(
        validateReplicationController(
          rc({ selector: { app: "x" }, template: template({ app: "y" }, { restartPolicy: "OnFailure", activeDeadlineSeconds: 5 }) }),
        ),
      ),
    ).toEqual([
      ["spec.template.metadata.labels", "FieldValueInvalid"],
      ["spec.template.spec.restartPolicy", "FieldValueNotSupported"],
      ["spec.template.spec.activeDeadlineSeconds", "FieldValueInvalid"],
    ]);
    expect(causes(validateReplicationController(rc({})))).toEqual([
      ["spec.selector", "FieldValueRequired"],
      ["spec.template", "FieldValueRequired"],
    ]);
  });

  it("keeps status counts under status.replicas", () => {
    const object = { ...rc({ template: template({ app: "web" }) }), status: { replicas: 1, readyReplicas: 2, availableReplicas: 3 } };
    expect(causes(validateReplicationControllerStatus(object))).toEqual([
      ["status.readyReplicas", "FieldValueInvalid"],
      ["status.availableReplicas", "FieldValueInvalid"],
      ["status.availableReplicas", "FieldValueInvalid"],
    ]);
  });
});
