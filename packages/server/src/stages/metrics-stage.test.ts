import { forbidden, tooManyRequests, unauthorized } from "@orch/meta";
import { describe, expect, it } from "vitest";
import type { APIResponse } from "../api-request.js";
import { noopMetrics, type MetricsRecorder, type RequestKind, type RequestLabels } from "../metrics.js";
import { withMetrics } from "./metrics-stage.js";
import { withErrorResponses, withRequestInfo } from "./request-info-stage.js";
import { chain, type Handler, type ServerRequest } from "./stage.js";

/** A recorder that keeps what it is told, with the in-flight and long-running counts. */
function fakeRecorder() {
  const finished: { verb: string; resource: string; subresource: string; scope: string; component: string; code: number; seconds: number }[] = [];
  const inflight: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  const longRunning = new Map<string, number>();
  const recorder: MetricsRecorder = {
    ...noopMetrics,
    requestStarted: (kind) => inflight[kind]++,
    requestEnded: (kind) => inflight[kind]--,
    requestFinished: (l: RequestLabels, code, seconds) =>
      finished.push({ verb: l.verb, resource: l.resource, subresource: l.subresource, scope: l.scope, component: l.component, code, seconds }),
    longRunning: (l, delta) => longRunning.set(l.resource, (longRunning.get(l.resource) ?? 0) + delta),
    storageObjects: () => undefined,
  };
  return { recorder, finished, inflight, longRunning };
}

const ok: Handler = async () => ({ status: 200, headers: new Headers() });

function request(method: string, url: string, headers: Record<string, string> = {}): ServerRequest {
  return { method, url, headers: new Headers(headers) };
}

/** A clock that moves 250 ms each time it is read. */
function steppingClock(): () => number {
  let t = 0;
  return () => (t += 250);
}

describe("withMetrics", () => {
  it("reports verbs and scopes as the reference's metrics do", async () => {
    const fake = fakeRecorder();
    const handler = chain([withRequestInfo, withMetrics(fake.recorder)], ok);
    const cases: [string, string, Record<string, string>?][] = [
      ["GET", "/api/v1/namespaces"],
      ["GET", "/api/v1/namespaces/dev/configmaps"],
      ["GET", "/api/v1/namespaces/dev/configmaps/settings"],
      ["POST", "/api/v1/namespaces/dev/configmaps"],
      ["PUT", "/api/v1/namespaces/dev/configmaps/settings"],
      ["PATCH", "/api/v1/namespaces/dev/configmaps/settings", { "content-type": "application/merge-patch+json" }],
      ["PATCH", "/api/v1/namespaces/dev/configmaps/settings", { "content-type": "application/apply-patch+yaml" }],
      ["DELETE", "/api/v1/namespaces/dev/configmaps"],
      ["DELETE", "/api/v1/namespaces/dev/configmaps/settings"],
      ["PUT", "/apis/apps/v1/namespaces/dev/deployments/web/scale"],
      ["GET", "/version"],
    ];
    for (const [method, url, headers] of cases) await handler(request(method, url, headers));
    expect(fake.finished.map((f) => [f.verb, f.resource, f.subresource, f.scope, f.component, f.code])).toEqual([
      ["LIST", "namespaces", "", "cluster", "apiserver", 200],
      ["LIST", "configmaps", "", "namespace", "apiserver", 200],
      ["GET", "configmaps", "", "resource", "apiserver", 200],
      ["POST", "configmaps", "", "resource", "apiserver", 200],
      ["PUT", "configmaps", "", "resource", "apiserver", 200],
      ["PATCH", "configmaps", "", "resource", "apiserver", 200],
      ["APPLY", "configmaps", "", "resource", "apiserver", 200],
      ["DELETE", "configmaps", "", "namespace", "apiserver", 200],
      ["DELETE", "configmaps", "", "resource", "apiserver", 200],
      ["PUT", "deployments", "scale", "resource", "apiserver", 200],
      ["GET", "", "", "", "apiserver", 200],
    ]);
  });

  it("counts the final code of refusals thrown by later stages (401, 403, 429) and of failures", async () => {
    const fake = fakeRecorder();
    const errors = [unauthorized("Unauthorized"), forbidden({ group: "", resource: "pods" }, "web", "no"), tooManyRequests("slow down", 1), new Error("boom")];
    for (const error of errors) {
      const response = await chain([withErrorResponses, withRequestInfo, withMetrics(fake.recorder)], async () => {
        throw error;
      })(request("GET", "/api/v1/namespaces/dev/pods/web"));
      expect(response.status).toBe(fake.finished.at(-1)?.code);
    }
    expect(fake.finished.map((f) => f.code)).toEqual([401, 403, 429, 500]);
    expect(fake.inflight).toEqual({ readOnly: 0, mutating: 0 });
  });

  it("keeps the in-flight gauge of the request's kind while it runs, and brings it back to 0", async () => {
    const fake = fakeRecorder();
    const seen: Record<RequestKind, number>[] = [];
    const handler = chain([withRequestInfo, withMetrics(fake.recorder, { now: steppingClock() })], async () => {
      seen.push({ ...fake.inflight });
      return { status: 201, headers: new Headers() };
    });
    await handler(request("GET", "/api/v1/namespaces/dev/configmaps/x"));
    await handler(request("POST", "/api/v1/namespaces/dev/configmaps"));
    expect(seen).toEqual([
      { readOnly: 1, mutating: 0 },
      { readOnly: 0, mutating: 1 },
    ]);
    expect(fake.inflight).toEqual({ readOnly: 0, mutating: 0 });
    expect(fake.finished.map((f) => f.seconds)).toEqual([0.25, 0.25]);
  });

  it("counts a watch as long-running while its stream is open, and finishes it when the stream ends", async () => {
    const fake = fakeRecorder();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* events(): AsyncIterable<string> {
      yield '{"type":"ADDED"}\n';
      await gate;
      yield '{"type":"DELETED"}\n';
    }
    const watch: Handler = async (): Promise<APIResponse> => ({ status: 200, headers: new Headers(), stream: events() });
    const response = await chain([withRequestInfo, withMetrics(fake.recorder)], watch)(request("GET", "/api/v1/namespaces/dev/configmaps?watch=1"));
    expect(fake.longRunning.get("configmaps")).toBe(1);
    expect(fake.inflight).toEqual({ readOnly: 0, mutating: 0 });
    expect(fake.finished).toEqual([]);
    const chunks: string[] = [];
    const iterator = response.stream![Symbol.asyncIterator]();
    chunks.push(((await iterator.next()) as IteratorResult<string>).value as string);
    expect(fake.longRunning.get("configmaps")).toBe(1);
    release();
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) chunks.push(r.value);
    expect(chunks).toHaveLength(2);
    expect(fake.longRunning.get("configmaps")).toBe(0);
    expect(fake.finished.map((f) => [f.verb, f.scope, f.code])).toEqual([["WATCH", "namespace", 200]]);
  });

  it("ends a watch the client leaves early, once", async () => {
    const fake = fakeRecorder();
    async function* forever(): AsyncIterable<string> {
      for (;;) yield "{}\n";
    }
    const response = await chain([withRequestInfo, withMetrics(fake.recorder)], async () => ({ status: 200, headers: new Headers(), stream: forever() }))(
      request("GET", "/api/v1/pods?watch=true"),
    );
    for await (const chunk of response.stream!) {
      expect(chunk).toBe("{}\n");
      break;
    }
    expect(fake.longRunning.get("pods")).toBe(0);
    expect(fake.finished.map((f) => [f.verb, f.scope])).toEqual([["WATCH", "cluster"]]);
  });

  it("finishes a refused watch at once", async () => {
    const fake = fakeRecorder();
    await chain([withErrorResponses, withRequestInfo, withMetrics(fake.recorder)], async () => {
      throw forbidden({ group: "", resource: "pods" }, "", "no");
    })(request("GET", "/api/v1/pods?watch=1"));
    expect(fake.longRunning.get("pods")).toBe(0);
    expect(fake.finished.map((f) => [f.verb, f.code])).toEqual([["WATCH", 403]]);
  });
});
