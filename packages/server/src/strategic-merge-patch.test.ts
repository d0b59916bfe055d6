import type { APIObject } from "@orch/meta";
import { afterEach, describe, expect, it } from "vitest";
import type { APIResponse } from "./api-request.js";
import { createDefaultServiceAccount } from "./internal/testing.js";
import { APIServer } from "./api-server.js";
import { applyPatch } from "./patch.js";

const servers: APIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.shutdown();
});

interface Call {
  status: number;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function call(server: APIServer, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Call> {
  const bytes = body === undefined ? undefined : new TextEncoder().encode(typeof body === "string" ? body : JSON.stringify(body));
  const res: APIResponse = await server.handle({ method, url, headers: new Headers(headers), ...(bytes ? { body: bytes } : {}) });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

const strategic = { "content-type": "application/strategic-merge-patch+json" };
const podURL = "/api/v1/namespaces/default/pods/web";

const web = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "web",
    labels: { app: "web" },
    ownerReferences: [
      { apiVersion: "v1", kind: "ConfigMap", name: "one", uid: "11111111-1111-1111-1111-111111111111" },
      { apiVersion: "v1", kind: "ConfigMap", name: "two", uid: "22222222-2222-2222-2222-222222222222" },
    ],
  },
  spec: {
    containers: [
      { name: "app", image: "nginx:1.25", ports: [{ name: "http", containerPort: 80 }], env: [{ name: "MODE", value: "prod" }] },
      { name: "sidecar", image: "busybox:1.36", args: ["sleep", "3600"] },
    ],
  },
};

async function serverWithPod(): Promise<APIServer> {
  const server = new APIServer();
  servers.push(server);
  await createDefaultServiceAccount(server);
  const created = await call(server, "POST", "/api/v1/namespaces/default/pods", web);
  expect(created.status).toBe(201);
  return server;
}

describe("PATCH with application/strategic-merge-patch+json", () => {
  it("changes a container's image by name and keeps the rest of the container and the other containers", async () => {
    const server = await serverWithPod();
    const res = await call(server, "PATCH", podURL, { spec: { containers: [{ name: "sidecar", image: "busybox:1.37" }] } }, strategic);
    expect(res.status).toBe(200);
    expect(res.json.spec.containers.map((c: { name: string; image: string }) => [c.name, c.image])).toEqual([
      ["app", "nginx:1.25"],
      ["sidecar", "busybox:1.37"],
    ]);
    expect(res.json.spec.containers[0].env).toEqual([{ name: "MODE", value: "prod" }]);
    expect(res.json.spec.containers[1].args).toEqual(["sleep", "3600"]);
    expect((await call(server, "GET", podURL)).json.spec.containers[1].image).toBe("busybox:1.37");
  });

  it("merges labels key by key and deletes one with null", async () => {
    const server = await serverWithPod();
    const res = await call(server, "PATCH", podURL, { metadata: { labels: { tier: "front" } } }, strategic);
    expect(res.status).toBe(200);
    expect(res.json.metadata.labels).toEqual({ app: "web", tier: "front" });
    const removed = await call(server, "PATCH", podURL, { metadata: { labels: { app: null } } }, strategic);
    expect(removed.json.metadata.labels).toEqual({ tier: "front" });
  });

  it("deletes a container with $patch: delete, which pod validation then refuses as the reference does (422)", async () => {
    const server = await serverWithPod();
    const res = await call(server, "PATCH", podURL, { spec: { containers: [{ name: "sidecar", $patch: "delete" }] } }, strategic);
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ kind: "Status", reason: "Invalid" });
    expect(res.json.message).toBe('Pod "web" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers');
    expect((await call(server, "GET", podURL)).json.spec.containers).toHaveLength(2);
  });

  it("deletes an element of a merge list by its key with $patch: delete (ownerReferences by uid)", async () => {
    const server = await serverWithPod();
    const res = await call(
      server,
      "PATCH",
      podURL,
      { metadata: { ownerReferences: [{ uid: "11111111-1111-1111-1111-111111111111", $patch: "delete" }] } },
      strategic,
    );
    expect(res.status).toBe(200);
    expect(res.json.metadata.ownerReferences.map((o: { name: string }) => o.name)).toEqual(["two"]);
  });

  it("answers a malformed directive with a 400 and leaves the pod as it was", async () => {
    const server = await serverWithPod();
    const before = (await call(server, "GET", podURL)).json;
    const res = await call(server, "PATCH", podURL, { spec: { containers: [{ name: "app", $patch: "frobnicate" }] } }, strategic);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ kind: "Status", reason: "BadRequest", message: "unknown patch type: frobnicate in map: map[$patch:frobnicate name:app]" });
    const missingKey = await call(server, "PATCH", podURL, { spec: { containers: [{ image: "x" }] } }, strategic);
    expect(missingKey.status).toBe(400);
    expect(missingKey.json.message).toBe("map: map[image:x] does not contain declared merge key: name");
    const notAnObject = await call(server, "PATCH", podURL, "[1]", strategic);
    expect(notAnObject.status).toBe(400);
    expect((await call(server, "GET", podURL)).json).toEqual(before);
  });
});

describe("applyPatch", () => {
  const current = { apiVersion: "v1", kind: "Thing", metadata: { name: "x" } } as APIObject;
  const body = new TextEncoder().encode("{}");

  it("answers 415 for strategic merge patch of a kind without a schema, naming the patch types it takes", () => {
    let error: unknown;
    try {
      applyPatch("application/strategic-merge-patch+json", body, current, undefined);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: 415,
      status: {
        reason: "UnsupportedMediaType",
        message:
          "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
      },
    });
  });
});
