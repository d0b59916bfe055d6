/**
 * ComponentStatus (core `v1`, cluster-scoped, short name `cs`, deprecated): the health of the
 * server's own components, computed on every read (`get` and `list` only, nothing stored).
 * Each object carries one `Healthy` condition with `status`, `message` and `error`.
 * @module
 */
import { listType, patchStrategy, type APIObject } from "@orch/meta";
import { z } from "zod";
import { record, str } from "./internal/rules.js";
import type { ComputedContext, ResourceType } from "./resource-type.js";
import { named } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ComponentCondition`: one condition of a component. */
export const componentConditionSchema = named(
  z
    .object({
      error: z.string().optional().describe("Condition error code for a component, for example a health check error code."),
      message: z.string().optional().describe("Message about the condition for a component, for example information about a health check."),
      status: z.string().optional().describe("Status of the condition for a component: True, False or Unknown."),
      type: z.string().optional().describe("Type of condition for a component; the only valid value is Healthy."),
    })
    .meta({ description: "Information about the condition of a component.", required: ["type", "status"] }),
  "api.core.v1.ComponentCondition",
);

/** The zod schema of a ComponentStatus in `v1`. */
export const componentStatusV1Schema = kindSchema(
  {
    conditions: patchStrategy(listType(z.array(componentConditionSchema), "map", ["type"]), "merge", "type")
      .optional()
      .describe("List of component conditions observed."),
  },
  "ComponentStatus (and ComponentStatusList) holds the cluster validation info. Deprecated: This API is deprecated in v1.19+",
);

/**
 * A ComponentStatus object for a component named `name`: healthy with `message`, or unhealthy
 * with `error`. What {@link componentStatuses} returns per component.
 */
export function componentStatus(name: string, health: { healthy: true; message?: string } | { healthy: false; error: string; message?: string }): APIObject {
  const condition: Record<string, unknown> = { type: "Healthy", status: health.healthy ? "True" : "False" };
  if (health.message !== undefined) condition["message"] = health.message;
  if (!health.healthy) condition["error"] = health.error;
  return { apiVersion: "v1", kind: "ComponentStatus", metadata: { name }, conditions: [condition] };
}

// ComponentStatus keeps its conditions at the top level, not under `status`.
function findCondition(object: APIObject, type: string): Record<string, unknown> | undefined {
  const conditions = object["conditions"];
  return Array.isArray(conditions) ? conditions.map(record).find((c) => c?.["type"] === type) : undefined;
}

/**
 * The components of a server and their health: `controller-manager` (its controllers run) and
 * `storage` (its store answers), unhealthy with an empty message and an error that says why.
 */
export async function componentStatuses(ctx: ComputedContext): Promise<APIObject[]> {
  const storeHealthy = await ctx.storeHealthy();
  return [
    componentStatus(
      "controller-manager",
      ctx.controllersRunning() ? { healthy: true, message: "ok" } : { healthy: false, message: "", error: "the namespace controller is not running" },
    ),
    componentStatus("storage", storeHealthy ? { healthy: true, message: "ok" } : { healthy: false, message: "", error: "the store does not answer" }),
  ];
}

/** The ComponentStatus resource type: computed by {@link componentStatuses}, `get` and `list` only. */
export const componentStatusType: ResourceType = {
  group: "",
  resource: "componentstatuses",
  singular: "componentstatus",
  kind: "ComponentStatus",
  shortNames: ["cs"],
  scope: "Cluster",
  versions: [{ name: "v1", schema: componentStatusV1Schema, storage: true }],
  verbs: ["get", "list"],
  computed: componentStatuses,
  strategy: {
    tableColumns: [
      {
        name: "Status",
        type: "string",
        description: "Healthy, Unhealthy or Unknown.",
        priority: 0,
        cell: (object) => {
          const healthy = findCondition(object, "Healthy");
          if (!healthy) return "Unknown";
          return healthy["status"] === "True" ? "Healthy" : "Unhealthy";
        },
      },
      {
        name: "Message",
        type: "string",
        description: "The message of the Healthy condition.",
        priority: 0,
        cell: (object) => str(findCondition(object, "Healthy")?.["message"]),
      },
      {
        name: "Error",
        type: "string",
        description: "The error of the Healthy condition.",
        priority: 0,
        cell: (object) => str(findCondition(object, "Healthy")?.["error"]),
      },
    ],
  },
};
