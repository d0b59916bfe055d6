import { formatFieldError, type APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { eventSelectableFields, eventType, validateEvent } from "./event.js";
import { humanDuration } from "./internal/duration.js";
import { decodeObject } from "./validate.js";

const event = (fields: Record<string, unknown>, namespace = "ns"): APIObject => ({ metadata: { name: "e", namespace }, ...fields });
const now = Date.UTC(2026, 0, 1, 1, 0, 0);

describe("Event", () => {
  it("is a namespaced core v1 kind with short name ev", () => {
    expect(eventType).toMatchObject({ group: "", resource: "events", kind: "Event", scope: "Namespaced", shortNames: ["ev"] });
  });

  it.each([
    ["a matching involved namespace", event({ involvedObject: { namespace: "ns" } }), []],
    [
      "a different involved namespace",
      event({ involvedObject: { namespace: "other" } }),
      ['involvedObject.namespace: Invalid value: "other": does not match event.namespace'],
    ],
    ["a cluster object reported in default", event({ involvedObject: { kind: "Node" } }, "default"), []],
    [
      "a cluster object reported elsewhere",
      event({ involvedObject: { kind: "Node" } }),
      ['involvedObject.namespace: Invalid value: "": does not match event.namespace'],
    ],
    [
      "a new-style event without reporting fields",
      event({ eventTime: "2026-01-01T00:00:00.000000Z", involvedObject: { namespace: "ns" } }),
      [
        "reportingComponent: Required value",
        'reportingComponent: Invalid value: "": name part must be non-empty',
        expect.stringContaining('reportingComponent: Invalid value: "": name part must consist of') as unknown as string,
        "reportingInstance: Required value",
        "action: Required value",
        "reason: Required value",
      ],
    ],
    [
      "a complete new-style event",
      event({
        eventTime: "2026-01-01T00:00:00.000000Z",
        involvedObject: { namespace: "ns" },
        reportingComponent: "kubelet",
        reportingInstance: "n1",
        action: "Pull",
        reason: "Pulled",
      }),
      [],
    ],
  ])("validates %s", (_what, object, expected) => {
    expect(validateEvent(object).map(formatFieldError)).toEqual(expected);
  });

  it("offers the reference's selectable fields", () => {
    const fields = eventSelectableFields(
      event({
        involvedObject: { kind: "Pod", name: "p", namespace: "ns", uid: "u" },
        reason: "Started",
        type: "Normal",
        source: { component: "kubelet" },
        reportingComponent: "kubelet",
      }),
    );
    expect(fields).toMatchObject({ "involvedObject.kind": "Pod", "involvedObject.name": "p", reason: "Started", source: "kubelet", type: "Normal" });
    expect(Object.keys(fields).sort()).toEqual([...(eventType.strategy?.selectableFieldNames ?? [])].sort());
  });

  it("renders the whole row as kubectl shows events: Last Seen first, Name at priority 1", () => {
    const strategy = eventType.strategy;
    expect(strategy?.tableColumnsComplete).toBe(true);
    const columns = strategy?.tableColumns ?? [];
    expect(columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(["Last Seen", "Type", "Reason", "Object", "Message"]);
    const object = event({
      involvedObject: { kind: "Pod", name: "web" },
      type: "Warning",
      reason: "BackOff",
      message: " restarting \n",
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:55:00Z",
      count: 3,
      source: { component: "kubelet", host: "node-1" },
    });
    expect(columns.map((c) => c.cell(object, now))).toEqual(["5m", "Warning", "BackOff", "pod/web", "", "kubelet, node-1", "restarting", "60m", 3, "e"]);
  });

  it.each([
    [5_000, "5s"],
    [119_000, "119s"],
    [150_000, "2m30s"],
    [600_000, "10m"],
    [3 * 3600_000 + 60_000, "3h1m"],
    [10 * 3600_000, "10h"],
    [3 * 86400_000 + 3600_000, "3d1h"],
    [30 * 86400_000, "30d"],
    [-5_000, "<invalid>"],
  ])("prints %d ms as %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});

describe("Event decoding", () => {
  it("accepts an event without involvedObject, which validation then reports", () => {
    const decoded = decodeObject(eventType, "v1", { metadata: { name: "e", namespace: "ns" } });
    expect(validateEvent(decoded).map(formatFieldError)).toEqual(['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
  });
});
