import { formatFieldError, type APIObject, type FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultDeployment, deploymentType, validateDeployment, validateDeploymentUpdate } from "./deployment.js";
import { decodeObject } from "./validate.js";

const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);

/** A defaulted Deployment `web` selecting `app=web`, with `spec` overrides. */
function deployment(spec: Record<string, unknown> = {}): APIObject {
  const object: APIObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx" }] } },
      ...spec,
    },
  };
  defaultDeployment(object);
  return object;
}

describe("Deployment", () => {
  it("is a namespaced apps/v1 kind with status and scale", () => {
    expect(deploymentType).toMatchObject({
      group: "apps",
      resource: "deployments",
      kind: "Deployment",
      scope: "Namespaced",
      shortNames: ["deploy"],
      subresources: ["status", "scale"],
    });
    expect(deploymentType.strategy?.scale).toEqual({
      specReplicasPath: "spec.replicas",
      statusReplicasPath: "status.replicas",
      labelSelectorPath: "spec.selector",
    });
  });

  it("defaults replicas, history, deadline, the rolling update and the pod template", () => {
    const spec = deployment()["spec"] as Record<string, unknown>;
    expect(spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: { spec: { restartPolicy: "Always", dnsPolicy: "ClusterFirst", containers: [{ imagePullPolicy: "Always" }] } },
    });
  });

  it("keeps what is set and adds no rollingUpdate to Recreate", () => {
    const spec = deployment({ replicas: 0, strategy: { type: "Recreate" } })["spec"] as Record<string, unknown>;
    expect(spec["replicas"]).toBe(0);
    expect(spec["strategy"]).toEqual({ type: "Recreate" });
  });

  it("decodes maxSurge as an int or a string", () => {
    const decoded = decodeObject(
      deploymentType,
      "v1",
      deployment({ strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 2, maxUnavailable: "10%" } } }),
    );
    expect((decoded["spec"] as Record<string, unknown>)["strategy"]).toEqual({ type: "RollingUpdate", rollingUpdate: { maxSurge: 2, maxUnavailable: "10%" } });
  });

  it("accepts a valid deployment", () => {
    expect(validateDeployment(deployment())).toEqual([]);
  });

  it("requires spec.selector", () => {
    expect(causes(validateDeployment(deployment({ selector: undefined })))).toEqual([["spec.selector", "FieldValueRequired"]]);
  });

  it("refuses an empty selector", () => {
    const errors = validateDeployment(deployment({ selector: {} }));
    expect(errors.map(formatFieldError)).toEqual(["spec.selector: Invalid value: {}: empty selector is invalid for deployment"]);
  });

  it("requires the selector to match the template's labels", () => {
    const errors = validateDeployment(deployment({ selector: { matchLabels: { app: "other" } } }));
    expect(errors.map(formatFieldError)).toEqual(['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']);
  });

  it("refuses negative replicas", () => {
    const errors = validateDeployment(deployment({ replicas: -1 }));
    expect(errors.map(formatFieldError)).toEqual(["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]);
  });

  it("validates the template's pod spec under spec.template", () => {
    const object = deployment();
    (object["spec"] as { template: { spec: Record<string, unknown> } }).template.spec["containers"] = [];
    expect(causes(validateDeployment(object))).toEqual([["spec.template.spec.containers", "FieldValueRequired"]]);
  });

  it("allows only restartPolicy Always in the template", () => {
    const object = deployment();
    (object["spec"] as { template: { spec: Record<string, unknown> } }).template.spec["restartPolicy"] = "Never";
    expect(validateDeployment(object).map(formatFieldError)).toEqual([
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });

  it("validates the strategy type and forbids rollingUpdate with Recreate", () => {
    expect(causes(validateDeployment(deployment({ strategy: { type: "Blue" } })))).toEqual([["spec.strategy.type", "FieldValueNotSupported"]]);
    expect(causes(validateDeployment(deployment({ strategy: { type: "Recreate", rollingUpdate: {} } })))).toEqual([
      ["spec.strategy.rollingUpdate", "FieldValueForbidden"],
    ]);
  });

  it("makes spec.selector immutable", () => {
    const old = deployment();
    expect(validateDeploymentUpdate(deployment({ replicas: 5 }), old)).toEqual([]);
    const errors = validateDeploymentUpdate(deployment({ selector: { matchLabels: { app: "web", tier: "x" } } }), old);
    expect(causes(errors)).toEqual([["spec.selector", "FieldValueInvalid"]]);
    expect(errors[0]?.detail).toBe("field is immutable");
  });

  it("shows READY, UP-TO-DATE and AVAILABLE", () => {
    const object = deployment({ replicas: 3 });
    object["status"] = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 1 };
    const columns = deploymentType.strategy?.tableColumns ?? [];
    expect(columns.map((c) => c.name)).toEqual(["Ready", "Up-to-date", "Available"]);
    expect(columns.map((c) => c.cell(object))).toEqual(["2/3", 3, 1]);
  });
});
