/**
 * A kind stored as another resource (`storedAs`): events `v1` Events are core `v1` Events, one
 * set of objects read, listed, watched and written through either group.
 */
import { describe, expect, it } from "vitest";
import { APIServer } from "./api-server.js";

async function call(server: APIServer, method: string, url: string, body?: unknown, contentType = "application/json") {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": contentType, accept: "application/json" }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, json: text ? (JSON.parse(text) as any) : undefined };
}

/** The first event line of a watch of `url` that `accept` takes, read from the stream. */
async function firstWatchEvent(server: APIServer, url: string, accept: (event: { type: string; object: { metadata: { name: string } } }) => boolean) {
  const res = await server.fetch(new Request(`http://x${url}`));
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error("the watch ended before the event");
      buffered += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { metadata: { name: string } } & Record<string, unknown> };
        buffered = buffered.slice(nl + 1);
        if (accept(event)) return event;
      }
    }
  } finally {
    await reader.cancel();
  }
}

const coreEvents = "/api/v1/namespaces/default/events";

/** A core Event named `<pod>.1` about Pod `pod` in `default` (a kubelet's "Started"), with `extra` members. */
function startedEvent(pod: string, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${pod}.1` },
    involvedObject: { kind: "Pod", name: pod, namespace: "default" },
    reason: "Started",
    message,
    type: "Normal",
    ...extra,
  };
}

describe("a kind stored as another resource (events v1)", () => {
  it("serves a core Event through events.k8s.io/v1 in that group's shape, and lists and watches it", async () => {
    const server = new APIServer({ domain: "k8s.io" });
    const eventsV1 = "/apis/events.k8s.io/v1/namespaces/default/events";
    const created = await call(
      server,
      "POST",
      coreEvents,
      startedEvent("pod-a", "Started container", { count: 2, firstTimestamp: "2026-11-21T20:49:14Z", source: { component: "kubelet", host: "node-1" } }),
    );
    expect(created.status).toBe(201);
    const got = await call(server, "GET", `${eventsV1}/pod-a.1`);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "pod-a.1", uid: created.json.metadata.uid, resourceVersion: created.json.metadata.resourceVersion },
      regarding: { kind: "Pod", name: "pod-a" },
      note: "Started container",
      deprecatedCount: 2,
      deprecatedFirstTimestamp: "2026-11-21T20:49:14Z",
      deprecatedSource: { component: "kubelet", host: "node-1" },
    });
    expect(got.json).not.toHaveProperty("message");
    expect(got.json).not.toHaveProperty("involvedObject");
    const list = await call(server, "GET", `${eventsV1}?fieldSelector=regarding.name%3Dpod-a`);
    expect(list.json.kind).toBe("EventList");
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["pod-a.1"]);
    expect(list.json.items[0].note).toBe("Started container");
    const unsupported = await call(server, "GET", `${eventsV1}?fieldSelector=involvedObject.name%3Dpod-a`);
    expect(unsupported.status).toBe(400);

    const watched = firstWatchEvent(
      server,
      `${eventsV1}?watch=1&resourceVersion=${created.json.metadata.resourceVersion}&timeoutSeconds=20`,
      (e) => e.object.metadata.name === "pod-a.2",
    );
    await call(server, "POST", coreEvents, { ...created.json, metadata: { name: "pod-a.2" } });
    const event = await watched;
    expect(event).toMatchObject({ type: "ADDED", object: { apiVersion: "events.k8s.io/v1", note: "Started container", regarding: { name: "pod-a" } } });
  });

  it("answers the same converted JSON for an unchanged object, and the new one after a write through the other group", async () => {
    const server = new APIServer({ domain: "k8s.io" });
    const eventsV1 = "/apis/events.k8s.io/v1/namespaces/default/events";
    const raw = async (url: string): Promise<string> => {
      const res = await server.handle({ method: "GET", url, headers: new Headers({ accept: "application/json" }) });
      expect(res.status).toBe(200);
      return res.body as string;
    };
    const created = await call(server, "POST", coreEvents, startedEvent("pod-b", "first"));
    const first = await raw(`${eventsV1}/pod-b.1`);
    expect(await raw(`${eventsV1}/pod-b.1`)).toBe(first);
    expect(JSON.parse(first)).toMatchObject({ apiVersion: "events.k8s.io/v1", note: "first" });
    const updated = await call(server, "PUT", `${coreEvents}/pod-b.1`, { ...created.json, message: "second" });
    expect(updated.status).toBe(200);
    const second = JSON.parse(await raw(`${eventsV1}/pod-b.1`)) as { note: string; metadata: { resourceVersion: string } };
    expect(second).toMatchObject({ note: "second", metadata: { resourceVersion: updated.json.metadata.resourceVersion } });
    const listed = JSON.parse(await raw(eventsV1)) as { items: { note: string }[] };
    expect(listed.items.map((i) => i.note)).toEqual(["second"]);
  });

  it("stores an events v1 Event as the core Event that /api/v1 reads, and keeps the strict rules for its writes", async () => {
    const server = new APIServer();
    const eventsV1 = "/apis/events.orch.io/v1/namespaces/default/events";
    const created = await call(server, "POST", eventsV1, {
      apiVersion: "events.orch.io/v1",
      kind: "Event",
      metadata: { name: "n.1" },
      eventTime: "2026-11-21T20:49:14.000000Z",
      regarding: { kind: "Node", name: "n" },
      related: { kind: "Pod", name: "p", namespace: "default" },
      reason: "Rebooted",
      action: "Reboot",
      note: "node rebooted",
      type: "Warning",
      reportingController: "orch.io/nodeagent",
      reportingInstance: "node-n",
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ apiVersion: "events.orch.io/v1", note: "node rebooted", regarding: { name: "n" } });
    const core = await call(server, "GET", `${coreEvents}/n.1`);
    expect(core.json).toMatchObject({
      apiVersion: "v1",
      kind: "Event",
      message: "node rebooted",
      involvedObject: { kind: "Node", name: "n" },
      related: { kind: "Pod", name: "p" },
      reportingComponent: "orch.io/nodeagent",
      reportingInstance: "node-n",
      eventTime: "2026-11-21T20:49:14.000000Z",
    });
    expect(core.json).not.toHaveProperty("note");
    const coreList = await call(server, "GET", `${coreEvents}?fieldSelector=reportingComponent%3Dorch.io%2Fnodeagent`);
    expect(coreList.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["n.1"]);

    // A core write may change what an events v1 write may not.
    const changedCore = await call(server, "PATCH", `${coreEvents}/n.1`, { message: "changed" }, "application/merge-patch+json");
    expect(changedCore.status).toBe(200);
    const changedV1 = await call(server, "PATCH", `${eventsV1}/n.1`, { note: "again" }, "application/merge-patch+json");
    expect(changedV1.status).toBe(422);
    expect(changedV1.json.details.causes).toEqual([expect.objectContaining({ field: "message", message: 'Invalid value: "again": field is immutable' })]);
    const series = await call(
      server,
      "PATCH",
      `${eventsV1}/n.1`,
      { series: { count: 2, lastObservedTime: "2026-11-21T20:50:00.000000Z" } },
      "application/merge-patch+json",
    );
    expect(series.status, JSON.stringify(series.json)).toBe(200);
    expect((await call(server, "GET", `${coreEvents}/n.1`)).json.series).toEqual({ count: 2, lastObservedTime: "2026-11-21T20:50:00.000000Z" });

    expect((await call(server, "DELETE", `${eventsV1}/n.1`)).status).toBe(200);
    expect((await call(server, "GET", `${coreEvents}/n.1`)).status).toBe(404);
  });

  it("applies an events v1 Event server-side, stored as a core Event", async () => {
    const server = new APIServer();
    const applied = await call(
      server,
      "PATCH",
      "/apis/events.orch.io/v1/namespaces/default/events/applied.1?fieldManager=tester",
      {
        apiVersion: "events.orch.io/v1",
        kind: "Event",
        metadata: { name: "applied.1" },
        eventTime: "2026-11-21T20:49:14.000000Z",
        regarding: { kind: "Node", name: "n" },
        reason: "Applied",
        action: "Apply",
        note: "applied",
        type: "Normal",
        reportingController: "orch.io/tester",
        reportingInstance: "t",
      },
      "application/apply-patch+yaml",
    );
    expect(applied.status, JSON.stringify(applied.json)).toBe(201);
    expect(applied.json).toMatchObject({ apiVersion: "events.orch.io/v1", note: "applied" });
    expect(applied.json.metadata.managedFields).toEqual([expect.objectContaining({ manager: "tester", operation: "Apply", apiVersion: "events.orch.io/v1" })]);
    expect((await call(server, "GET", "/api/v1/namespaces/default/events/applied.1")).json).toMatchObject({
      message: "applied",
      reportingComponent: "orch.io/tester",
    });
  });

  it("lists the events group in discovery with the Event resource", async () => {
    const server = new APIServer({ domain: "k8s.io" });
    const resources = await call(server, "GET", "/apis/events.k8s.io/v1");
    expect(resources.json.resources).toEqual(expect.arrayContaining([expect.objectContaining({ name: "events", kind: "Event", namespaced: true })]));
  });
});
