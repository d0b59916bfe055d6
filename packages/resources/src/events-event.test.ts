import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { coreToEventsV1, eventsEventType, eventsV1SelectableFields, eventsV1ToCore, validateEventsV1Create, validateEventsV1Update } from "./events-event.js";

const v1Event: APIObject = {
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name: "e", namespace: "default" },
  eventTime: "2026-11-21T20:49:14.000000Z",
  series: { count: 2, lastObservedTime: "2026-11-21T20:50:14.000000Z" },
  regarding: { kind: "Pod", name: "p", namespace: "default" },
  related: { kind: "Node", name: "n" },
  note: "hello",
  reason: "Started",
  action: "Start",
  type: "Normal",
  reportingController: "k8s.io/kubelet",
  reportingInstance: "node-n",
  deprecatedSource: { component: "kubelet" },
  deprecatedFirstTimestamp: "2026-11-21T20:49:14Z",
  deprecatedLastTimestamp: "2026-11-21T20:50:14Z",
  deprecatedCount: 3,
};

describe("events v1 Event", () => {
  it("is served by events.{domain} and stored as core events", () => {
    expect(eventsEventType).toMatchObject({ group: "events.{domain}", resource: "events", kind: "Event", storedAs: { group: "", resource: "events" } });
    expect(eventsEventType.versions.every((v) => !v.storage)).toBe(true);
  });

  it("converts to the core shape and back without losing anything", () => {
    const core = eventsV1ToCore(v1Event);
    expect(core).toEqual({
      apiVersion: "v1",
      kind: "Event",
      metadata: v1Event.metadata,
      eventTime: v1Event["eventTime"],
      series: v1Event["series"],
      involvedObject: v1Event["regarding"],
      related: v1Event["related"],
      message: "hello",
      reason: "Started",
      action: "Start",
      type: "Normal",
      reportingComponent: "k8s.io/kubelet",
      reportingInstance: "node-n",
      source: { component: "kubelet" },
      firstTimestamp: "2026-11-21T20:49:14Z",
      lastTimestamp: "2026-11-21T20:50:14Z",
      count: 3,
    });
    expect(coreToEventsV1(core, "events.k8s.io/v1")).toEqual(v1Event);
  });

  it("requires what a new event needs and refuses the deprecated fields on create", () => {
    const errors = validateEventsV1Create(eventsV1ToCore({ ...v1Event, eventTime: undefined, type: "Odd", series: { count: 1 } }));
    expect(errors.map((e) => `${e.field} ${e.type} ${e.detail}`)).toEqual([
      "series.count FieldValueInvalid should be at least 2",
      "series.lastObservedTime FieldValueRequired ",
      "eventTime FieldValueRequired ",
      "type FieldValueInvalid has invalid value: Odd",
      "firstTimestamp FieldValueInvalid needs to be unset",
      "lastTimestamp FieldValueInvalid needs to be unset",
      "count FieldValueInvalid needs to be unset",
      "source FieldValueInvalid needs to be unset",
    ]);
  });

  it("lets an update change the series only", () => {
    const old = eventsV1ToCore(v1Event);
    expect(validateEventsV1Update(eventsV1ToCore({ ...v1Event, series: { count: 3, lastObservedTime: "2026-11-21T20:51:14.000000Z" } }), old)).toEqual([]);
    expect(validateEventsV1Update(eventsV1ToCore({ ...v1Event, reportingController: "other" }), old)).toEqual([
      expect.objectContaining({ field: "reportingController", detail: "field is immutable" }),
    ]);
  });

  it("selects by the events v1 field names over the stored form", () => {
    expect(eventsV1SelectableFields(eventsV1ToCore(v1Event))).toMatchObject({
      "regarding.kind": "Pod",
      "regarding.name": "p",
      reportingController: "k8s.io/kubelet",
      reason: "Started",
      type: "Normal",
    });
  });
});
