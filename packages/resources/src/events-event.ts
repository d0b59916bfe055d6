/**
 * Event of the events group (`events.<domain>/v1`, namespaced, short name `ev`): the same
 * objects as core `v1` Events, stored under the core events' keys (`storedAs`) and converted
 * to and from this group's shape (`note` for `message`, `regarding` for `involvedObject`,
 * `reportingController` for `reportingComponent`, `deprecatedSource`, `deprecatedFirstTimestamp`,
 * `deprecatedLastTimestamp` and `deprecatedCount` for `source`, `firstTimestamp`, `lastTimestamp`
 * and `count`). Writes through this group get the reference's strict rules on top of the legacy
 * ones: a new event has an `eventTime`, a `type` of Normal or Warning, no deprecated fields, and
 * a valid `series`; an update changes nothing but the series and metadata.
 * @module
 */
import { FieldPath, invalidField, requiredField, type APIObject, type FieldError } from "@orch/meta";
import { z } from "zod";
import { eventSourceSchema, eventType, objectReferenceSchema, validateEvent } from "./event.js";
import { jsonEqual, record, str } from "./internal/rules.js";
import type { ResourceType, TableColumn } from "./resource-type.js";
import { int32, microTime, named, optionalString, time } from "./schema/fields.js";
import { kindSchema } from "./schema/object-meta.js";

/** `EventSeries` of events `v1`. */
const eventsV1SeriesSchema = named(
  z
    .object({
      count: int32().optional().describe("count is the number of occurrences in this series up to the last heartbeat time."),
      lastObservedTime: microTime().optional().describe("lastObservedTime is the time when last Event from the series was seen before last heartbeat."),
    })
    .meta({
      description: "EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.",
      required: ["count", "lastObservedTime"],
    }),
  "api.events.v1.EventSeries",
);

/** The zod schema of an Event in events `v1`. */
export const eventsV1EventSchema = kindSchema(
  {
    action: optionalString("action is what action was taken/failed regarding to the regarding object; at most 128 characters."),
    deprecatedCount: int32().optional().describe("deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type."),
    deprecatedFirstTimestamp: time()
      .optional()
      .describe("deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type."),
    deprecatedLastTimestamp: time()
      .optional()
      .describe("deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type."),
    deprecatedSource: eventSourceSchema
      .optional()
      .describe("deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type."),
    eventTime: microTime().optional().describe("eventTime is the time when this Event was first observed. It is required."),
    note: optionalString("note is a human-readable description of the status of this operation; at most 1 kB."),
    reason: optionalString("reason is why the action was taken; at most 128 characters."),
    regarding: objectReferenceSchema.optional().describe("regarding contains the object this Event is about."),
    related: objectReferenceSchema.optional().describe("related is the optional secondary object for more complex actions."),
    reportingController: optionalString("reportingController is the name of the controller that emitted this Event."),
    reportingInstance: optionalString("reportingInstance is the ID of the controller instance; at most 128 characters."),
    series: eventsV1SeriesSchema.optional().describe("series is data about the Event series this event represents."),
    type: optionalString("type is the type of this event (Normal, Warning)."),
  },
  "Event is a report of an event somewhere in the cluster.",
).meta({ required: ["metadata", "eventTime"] });

/** The fields events `v1` names differently from core `v1`: `[events v1, core v1]`. */
const renamedFields: readonly (readonly [string, string])[] = [
  ["note", "message"],
  ["regarding", "involvedObject"],
  ["reportingController", "reportingComponent"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

function renamed(object: APIObject, apiVersion: string, from: 0 | 1): APIObject {
  const out: Record<string, unknown> = { ...object, apiVersion };
  for (const pair of renamedFields) {
    const source = pair[from];
    const target = pair[from === 0 ? 1 : 0];
    delete out[target];
    if (source in object) out[target] = object[source];
    delete out[source];
  }
  return out as APIObject;
}

/** An events `v1` Event as the core `v1` Event it is stored as. */
export function eventsV1ToCore(object: APIObject): APIObject {
  return renamed(object, "v1", 0);
}

/**
 * A stored core `v1` Event in events `v1`, with `apiVersion` (`events.orch.io/v1` when not
 * given: the stored object does not carry the domain).
 */
export function coreToEventsV1(object: APIObject, apiVersion = "events.orch.io/v1"): APIObject {
  return renamed(object, apiVersion, 1);
}

const eventTypes = ["Normal", "Warning"];

/** The reference's series rules of events `v1` (on the stored form): a count of at least 2 and a last observed time. */
function validateSeries(object: APIObject): FieldError[] {
  const series = record(object["series"]);
  if (!series) return [];
  const errors: FieldError[] = [];
  const count = series["count"];
  if (typeof count !== "number" || count < 2) errors.push(invalidField("series.count", "", "should be at least 2"));
  if (!series["lastObservedTime"]) errors.push(requiredField("series.lastObservedTime"));
  return errors;
}

/**
 * The rules a create through events `v1` adds to the legacy ones (on the stored, core form, with
 * the reference's core field paths): an `eventTime`, a `type` of Normal or Warning, a valid
 * `series`, and none of `firstTimestamp`, `lastTimestamp`, `count` and `source`.
 */
export function validateEventsV1Create(object: APIObject): FieldError[] {
  const errors = validateSeries(object);
  if (!object["eventTime"]) errors.push(requiredField("eventTime"));
  const type = str(object["type"]);
  if (!eventTypes.includes(type)) errors.push(invalidField("type", "", `has invalid value: ${type}`));
  if (object["firstTimestamp"]) errors.push(invalidField("firstTimestamp", "", "needs to be unset"));
  if (object["lastTimestamp"]) errors.push(invalidField("lastTimestamp", "", "needs to be unset"));
  if (typeof object["count"] === "number" && object["count"] !== 0) errors.push(invalidField("count", "", "needs to be unset"));
  const source = record(object["source"]);
  if (str(source?.["component"]) !== "" || str(source?.["host"]) !== "") errors.push(invalidField("source", "", "needs to be unset"));
  return errors;
}

/** The fields an update through events `v1` may not change, with the path each is reported at. */
const immutableFields: readonly (readonly [string, string])[] = [
  ["involvedObject", "involvedObject"],
  ["reason", "reason"],
  ["message", "message"],
  ["source", "source"],
  ["firstTimestamp", "firstTimestamp"],
  ["lastTimestamp", "lastTimestamp"],
  ["count", "count"],
  ["type", "type"],
  ["eventTime", "eventTime"],
  ["action", "action"],
  ["related", "related"],
  ["reportingComponent", "reportingController"],
  ["reportingInstance", "reportingInstance"],
];

/**
 * The rules an update through events `v1` adds (on the stored form): a changed `series` is valid,
 * and nothing else of the event changes (`field is immutable`).
 */
export function validateEventsV1Update(object: APIObject, old: APIObject): FieldError[] {
  const errors = jsonEqual(object["series"], old["series"]) ? [] : validateSeries(object);
  for (const [field, path] of immutableFields) {
    if (!jsonEqual(object[field], old[field])) errors.push(invalidField(FieldPath.root(path), object[field] ?? null, "field is immutable"));
  }
  return errors;
}

/** The field selectors of events `v1` and the stored field each reads. */
const selectableFieldMap: Readonly<Record<string, string>> = {
  "regarding.kind": "involvedObject.kind",
  "regarding.namespace": "involvedObject.namespace",
  "regarding.name": "involvedObject.name",
  "regarding.uid": "involvedObject.uid",
  "regarding.apiVersion": "involvedObject.apiVersion",
  "regarding.resourceVersion": "involvedObject.resourceVersion",
  "regarding.fieldPath": "involvedObject.fieldPath",
  reason: "reason",
  reportingController: "reportingComponent",
  type: "type",
};

/** The field-selector fields of an Event in events `v1` (read from the stored, core form). */
export function eventsV1SelectableFields(object: APIObject): Record<string, string> {
  const core = eventType.strategy?.selectableFields?.(object) ?? {};
  return Object.fromEntries(Object.entries(selectableFieldMap).map(([name, field]) => [name, core[field] ?? ""]));
}

/** The core Event's columns, computed on the core form of an events `v1` Event. */
const tableColumns: readonly TableColumn[] = (eventType.strategy?.tableColumns ?? []).map((column) => ({
  ...column,
  cell: (object: APIObject, now?: number) => column.cell(eventsV1ToCore(object), now),
}));

/** The Event resource type of the events group, stored as core `v1` Events. */
export const eventsEventType: ResourceType = {
  group: "events.{domain}",
  resource: "events",
  singular: "event",
  kind: "Event",
  shortNames: ["ev"],
  scope: "Namespaced",
  storedAs: { group: "", resource: "events" },
  versions: [
    {
      name: "v1",
      schema: eventsV1EventSchema,
      storage: false,
      toStorage: eventsV1ToCore,
      fromStorage: (object, served) => coreToEventsV1(object, served?.apiVersion),
    },
  ],
  strategy: {
    validate: (object) => validateEvent(object, "reportingController"),
    validateCreate: (object) => validateEventsV1Create(object),
    validateUpdate: (object, old) => validateEventsV1Update(object, old),
    selectableFields: eventsV1SelectableFields,
    selectableFieldNames: Object.keys(selectableFieldMap),
    tableColumnsComplete: true,
    tableColumns,
  },
};
