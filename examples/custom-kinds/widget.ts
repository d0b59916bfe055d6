/**
 * The embedder's own kind: `Widget` in group `example.com`, version `v1`, namespaced. Its zod
 * schema describes the JSON (types, an enum, merge markers for strategic merge patch and
 * server-side apply); its strategy adds what a schema cannot say: defaults, rules with field
 * paths, Table columns and field selectors.
 * @module
 */
import { FieldPath, invalidField, listType, patchStrategy, type APIObject, type FieldError } from "@orch/meta";
import type { SchemaObject } from "@orch/client";
import { int32, kindSchema, type ResourceType } from "@orch/resources";
import { z } from "zod";

/** The colours a widget comes in: anything else is refused with 422 `Unsupported value`. */
export const widgetColors = ["red", "green", "blue"] as const;

/** One part of a widget; `parts` is a list keyed by `name`. */
const partSchema = z
  .object({
    name: z.string().describe("The part's name, unique in the widget."),
    count: int32().optional().describe("How many of the part the widget holds."),
  })
  .describe("A part of a widget.");

/** `WidgetSpec`: what the user asks for. */
const widgetSpecSchema = z
  .object({
    color: z.enum(widgetColors).describe("The widget's colour."),
    size: int32().optional().describe("The widget's size, 1 to 10; 1 when not given."),
    // A list merged by `name` (strategic merge patch) and owned item by item (server-side apply).
    parts: patchStrategy(listType(z.array(partSchema), "map", ["name"]), "merge", "name")
      .optional()
      .describe("The widget's parts, by name."),
  })
  .describe("WidgetSpec is what the user asks of a widget.");

/** `WidgetStatus`: what the widget's controller reports, written through `/status`. */
const widgetStatusSchema = z
  .object({
    phase: z.enum(["Pending", "Ready"]).optional().describe("Where the widget is in its life."),
  })
  .describe("WidgetStatus is what the controller observed.");

/** The zod schema of a Widget in `v1`. */
export const widgetV1Schema = kindSchema(
  {
    spec: widgetSpecSchema.optional().describe("What the user asks for."),
    status: widgetStatusSchema.optional().describe("What the controller observed; written through the status sub-resource."),
  },
  "Widget is an example of an embedder's own kind.",
);

/** A Widget as the typed client reads and writes it. */
export type Widget = SchemaObject<typeof widgetV1Schema>;

function specOf(object: APIObject): Record<string, unknown> {
  const spec = object["spec"];
  return typeof spec === "object" && spec !== null ? (spec as Record<string, unknown>) : {};
}

/** The rules beyond the schema, as field errors with full paths (the 422's causes). */
export function validateWidget(object: APIObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = FieldPath.root("spec");
  const size = specOf(object)["size"];
  if (typeof size === "number" && (size < 1 || size > 10)) errors.push(invalidField(spec.child("size"), size, "must be between 1 and 10"));
  return errors;
}

/**
 * The Widget resource type, declared with `satisfies` so that `client.forType(widgetType)` is
 * typed by its schema.
 */
export const widgetType = {
  group: "example.com",
  resource: "widgets",
  singular: "widget",
  kind: "Widget",
  shortNames: ["wd"],
  categories: ["all"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: widgetV1Schema, storage: true }],
  // Writes to the widget ignore `status`; writes to `widgets/<name>/status` change only it.
  subresources: ["status"],
  strategy: {
    defaults: (object) => {
      const spec = specOf(object);
      if (object["spec"] !== undefined && spec["size"] === undefined) spec["size"] = 1;
    },
    prepareForCreate: (object) => {
      object["status"] = { phase: "Pending" };
    },
    validate: (object) => validateWidget(object),
    // `kubectl get widgets` shows NAME, these, then AGE; priority 1 shows with `-o wide` only.
    tableColumns: [
      { name: "Color", type: "string", description: "The widget's colour.", priority: 0, cell: (object) => specOf(object)["color"] ?? "" },
      { name: "Size", type: "integer", description: "The widget's size.", priority: 0, cell: (object) => specOf(object)["size"] ?? 1 },
      {
        name: "Phase",
        type: "string",
        description: "Where the widget is in its life.",
        priority: 0,
        cell: (object) => (object["status"] as { phase?: string } | undefined)?.phase ?? "",
      },
      {
        name: "Parts",
        type: "integer",
        description: "How many kinds of part the widget has.",
        priority: 1,
        cell: (object) => (Array.isArray(specOf(object)["parts"]) ? (specOf(object)["parts"] as unknown[]).length : 0),
      },
    ],
    // `--field-selector spec.color=blue`, beside metadata.name and metadata.namespace.
    selectableFields: (object) => ({ "spec.color": String(specOf(object)["color"] ?? "") }),
    selectableFieldNames: ["spec.color"],
  },
} satisfies ResourceType;
