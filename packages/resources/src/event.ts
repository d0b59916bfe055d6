/**
 * Event (core `v1`, namespaced, short name `ev`): a report of something that happened to an
 * object. Validated as the reference validates core `v1` events (its legacy rules); shown by
 * `kubectl get events` with `Last Seen` first and no leading Name column.
 * @module
 */
import {
  FieldPath,
  invalidField,
  requiredField,
  structType,
  validateDNS1123Subdomain,
  validateQualifiedName,
  type APIObject,
  type FieldError,
} from "@orch/meta";
import { z } from "zod";
import { ageOf } from "./internal/duration.js";
import { record, str } from "./internal/rules.js";
import type { ResourceType } from "./resource-type.js";
import { int32, microTime, named, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `ObjectReference`: a reference to an object (atomic as a struct). */
export const objectReferenceSchema = named(
  structType(
    z
      .object({
        apiVersion: z.string().optional().describe("API version of the referent."),
        fieldPath: z.string().optional().describe("If referring to a piece of an object instead of an entire object, the field path."),
        kind: z.string().optional().describe("Kind of the referent."),
        name: z.string().optional().describe("Name of the referent."),
        namespace: z.string().optional().describe("Namespace of the referent."),
        resourceVersion: z.string().optional().describe("Specific resourceVersion to which this reference is made, if any."),
        uid: z.string().optional().describe("UID of the referent."),
      })
      .meta({ description: "ObjectReference contains enough information to let you inspect or modify the referred object." }),
    "atomic",
  ),
  "api.core.v1.ObjectReference",
);

/** `EventSource`. */
export const eventSourceSchema = named(
  z
    .object({
      component: z.string().optional().describe("Component from which the event is generated."),
      host: z.string().optional().describe("Node name on which the event is generated."),
    })
    .meta({ description: "EventSource contains information for an event." }),
  "api.core.v1.EventSource",
);

/** `EventSeries`. */
export const eventSeriesSchema = named(
  z
    .object({
      count: int32().optional().describe("Number of occurrences in this series up to the last heartbeat time."),
      lastObservedTime: microTime().optional().describe("Time of the last occurrence observed."),
    })
    .meta({ description: "EventSeries contain information on series of events." }),
  "api.core.v1.EventSeries",
);

/** The zod schema of an Event in `v1`. */
export const eventV1Schema = kindSchema(
  {
    action: z.string().optional().describe("What action was taken/failed regarding to the Regarding object."),
    count: int32().optional().describe("The number of times this event has occurred."),
    eventTime: microTime().optional().describe("Time when this Event was first observed."),
    firstTimestamp: time().optional().describe("The time at which the event was first recorded."),
    involvedObject: objectReferenceSchema.optional().describe("The object that this event is about."),
    lastTimestamp: time().optional().describe("The time at which the most recent occurrence of this event was recorded."),
    message: z.string().optional().describe("A human-readable description of the status of this operation."),
    reason: z.string().optional().describe("Short, machine understandable string that gives the reason for the transition."),
    related: objectReferenceSchema.optional().describe("Optional secondary object for more complex actions."),
    reportingComponent: z.string().optional().describe("Name of the controller that emitted this Event."),
    reportingInstance: z.string().optional().describe("ID of the controller instance."),
    series: eventSeriesSchema.optional().describe("Data about the Event series this event represents."),
    source: eventSourceSchema.optional().describe("The component reporting this event."),
    type: z.string().optional().describe("Type of this event (Normal, Warning)."),
  },
  "Event is a report of an event somewhere in the cluster.",
).meta({ required: ["metadata", "involvedObject"] });

const lengthLimit = 128;
const noteLengthLimit = 1024;

/**
 * The Event rules beyond metadata (pair with `validateObjectMeta`), for create and update alike:
 * the reference's legacy rules, which it applies to core `v1`: `involvedObject.namespace`
 * must match `metadata.namespace` (an empty one allows only `default` or no namespace); events
 * with an `eventTime` need `reportingComponent`, `reportingInstance`, `action` and `reason` (each
 * at most 128 characters) and a `message` of at most 1024; the namespace is a DNS subdomain.
 * `reportingComponentField` names `reportingComponent` in errors (`reportingController` for
 * objects written through events `v1`).
 */
export function validateEvent(object: APIObject, reportingComponentField = "reportingComponent"): FieldError[] {
  const errors: FieldError[] = [];
  const namespace = object.metadata?.namespace ?? "";
  const involved = record(object["involvedObject"]) ?? {};
  const involvedNamespace = str(involved["namespace"]);
  const involvedPath = FieldPath.root("involvedObject").child("namespace");
  if (!object["eventTime"]) {
    if (involvedNamespace === "") {
      if (namespace !== "" && namespace !== "default") errors.push(invalidField(involvedPath, involvedNamespace, "does not match event.namespace"));
    } else if (namespace !== involvedNamespace) {
      errors.push(invalidField(involvedPath, involvedNamespace, "does not match event.namespace"));
    }
  } else {
    if (involvedNamespace === "" && namespace !== "default" && namespace !== "kube-system") {
      errors.push(invalidField(involvedPath, involvedNamespace, "does not match event.namespace"));
    }
    const controller = str(object["reportingComponent"]);
    if (!controller) errors.push(requiredField(reportingComponentField));
    errors.push(...validateQualifiedName(controller, reportingComponentField));
    const checks: [string, number][] = [
      ["reportingInstance", lengthLimit],
      ["action", lengthLimit],
      ["reason", lengthLimit],
    ];
    for (const [field, limit] of checks) {
      const value = str(object[field]);
      if (!value) errors.push(requiredField(field));
      if (value.length > limit) errors.push(invalidField(field, "", `can have at most ${limit} characters`));
    }
    if (str(object["message"]).length > noteLengthLimit) {
      errors.push(invalidField("message", "", `can have at most ${noteLengthLimit} characters`));
    }
  }
  if (namespace !== "") errors.push(...validateDNS1123Subdomain(namespace, "namespace"));
  return errors;
}

function firstSeen(object: APIObject, now: number): string {
  return object["firstTimestamp"] ? ageOf(object["firstTimestamp"], now) : ageOf(object["eventTime"], now);
}

function lastSeen(object: APIObject, now: number): string {
  const series = record(object["series"]);
  if (series) return ageOf(series["lastObservedTime"], now);
  return object["lastTimestamp"] ? ageOf(object["lastTimestamp"], now) : firstSeen(object, now);
}

function target(object: APIObject): string {
  const involved = record(object["involvedObject"]) ?? {};
  const kind = str(involved["kind"]).toLowerCase();
  const name = str(involved["name"]);
  return name ? `${kind}/${name}` : kind;
}

function source(object: APIObject): string {
  const src = record(object["source"]) ?? {};
  const component = str(src["component"]) || str(object["reportingComponent"]);
  const instance = str(src["host"]) || str(object["reportingInstance"]);
  return instance ? `${component}, ${instance}` : component;
}

function count(object: APIObject): number {
  const series = record(object["series"]);
  if (series) return typeof series["count"] === "number" ? series["count"] : 0;
  const c = object["count"];
  return typeof c === "number" && c !== 0 ? c : 1;
}

/** The field-selector fields of an Event beyond `metadata.name` and `metadata.namespace`. */
export function eventSelectableFields(object: APIObject): Record<string, string> {
  const involved = record(object["involvedObject"]) ?? {};
  return {
    "involvedObject.kind": str(involved["kind"]),
    "involvedObject.namespace": str(involved["namespace"]),
    "involvedObject.name": str(involved["name"]),
    "involvedObject.uid": str(involved["uid"]),
    "involvedObject.apiVersion": str(involved["apiVersion"]),
    "involvedObject.resourceVersion": str(involved["resourceVersion"]),
    "involvedObject.fieldPath": str(involved["fieldPath"]),
    reason: str(object["reason"]),
    reportingComponent: str(object["reportingComponent"]),
    source: str(record(object["source"])?.["component"]),
    type: str(object["type"]),
  };
}

/** The Event resource type. */
export const eventType: ResourceType = {
  group: "",
  resource: "events",
  singular: "event",
  kind: "Event",
  shortNames: ["ev"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: eventV1Schema, storage: true }],
  strategy: {
    validate: (object) => validateEvent(object),
    selectableFields: eventSelectableFields,
    selectableFieldNames: [
      "involvedObject.kind",
      "involvedObject.namespace",
      "involvedObject.name",
      "involvedObject.uid",
      "involvedObject.apiVersion",
      "involvedObject.resourceVersion",
      "involvedObject.fieldPath",
      "reason",
      "reportingComponent",
      "source",
      "type",
    ],
    tableColumnsComplete: true,
    tableColumns: [
      {
        name: "Last Seen",
        type: "string",
        description: "The time at which the most recent occurrence of this event was recorded.",
        priority: 0,
        cell: (o, now) => lastSeen(o, now ?? Date.now()),
      },
      { name: "Type", type: "string", description: "Type of this event (Normal, Warning).", priority: 0, cell: (o) => str(o["type"]) },
      {
        name: "Reason",
        type: "string",
        description: "The reason for the transition into the object's current status.",
        priority: 0,
        cell: (o) => str(o["reason"]),
      },
      { name: "Object", type: "string", description: "The object that this event is about.", priority: 0, cell: target },
      {
        name: "Subobject",
        type: "string",
        description: "The field path of the object this event is about.",
        priority: 1,
        cell: (o) => str(record(o["involvedObject"])?.["fieldPath"]),
      },
      { name: "Source", type: "string", description: "The component reporting this event.", priority: 1, cell: source },
      {
        name: "Message",
        type: "string",
        description: "A human-readable description of the status of this operation.",
        priority: 0,
        cell: (o) => str(o["message"]).trim(),
      },
      {
        name: "First Seen",
        type: "string",
        description: "The time at which the event was first recorded.",
        priority: 1,
        cell: (o, now) => firstSeen(o, now ?? Date.now()),
      },
      { name: "Count", type: "string", description: "The number of times this event has occurred.", priority: 1, cell: count },
      {
        name: "Name",
        type: "string",
        format: "name",
        description: "Name must be unique within a namespace.",
        priority: 1,
        cell: (o) => o.metadata?.name ?? "",
      },
    ],
  },
};
