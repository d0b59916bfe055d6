import type { Attributes } from "@orch/authz";
import { describe, expect, it } from "vitest";
import { APIServer } from "../api-server.js";

/** One in-process call; the JSON body when there is one. */
async function call(server: APIServer, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json", ...headers }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : res.body ? new TextDecoder().decode(res.body) : "";
  let json: Record<string, unknown> | undefined;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, contentType: res.headers.get("content-type") };
}

const pods = "/api/v1/namespaces/default/pods";
const upgrade = { connection: "Upgrade", upgrade: "websocket" };

function pod(name: string, containers: string[], extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: containers.map((c) => ({ name: c, image: "busybox" })), ...extra },
  };
}

/** A server with `objects` created (without admission: no ServiceAccount is needed for a pod). */
async function serverWith(...objects: { url: string; body: unknown }[]) {
  const server = new APIServer({ admission: [] });
  for (const o of objects) expect((await call(server, "POST", o.url, o.body)).status).toBe(201);
  return server;
}

const node = (name: string, status: Record<string, unknown> = {}) => ({
  url: "/api/v1/nodes",
  body: { apiVersion: "v1", kind: "Node", metadata: { name }, status },
});

describe("pod log", () => {
  it("answers an empty text log for a pod not yet scheduled", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    const res = await call(server, "GET", `${pods}/p/log`);
    expect(res.status).toBe(200);
    expect(res.text).toBe("");
    expect(res.contentType).toBe("text/plain");
  });

  it("requires a container name when the pod has several, listing init containers too", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["a", "b"], { initContainers: [{ name: "init", image: "busybox" }] }) });
    const res = await call(server, "GET", `${pods}/p/log`);
    expect(res.status).toBe(400);
    expect(res.json?.["message"]).toBe("a container name must be specified for pod p, choose one of: [init a b]");
    expect((await call(server, "GET", `${pods}/p/log?container=zz`)).json?.["message"]).toBe("container zz is not valid for pod p");
    expect((await call(server, "GET", `${pods}/p/log?container=init`)).status).toBe(200);
  });

  it("refuses invalid options with 422 PodLogOptions and unparsable numbers with 400", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    const invalid = await call(server, "GET", `${pods}/p/log?tailLines=-1&limitBytes=0`);
    expect(invalid.status).toBe(422);
    expect(invalid.json?.["message"]).toBe(
      'PodLogOptions "p" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, limitBytes: Invalid value: 0: must be greater than 0]',
    );
    const both = await call(server, "GET", `${pods}/p/log?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z`);
    expect(both.status).toBe(422);
    expect(JSON.stringify(both.json)).toContain("at most one of `sinceTime` or `sinceSeconds` may be specified");
    const bad = await call(server, "GET", `${pods}/p/log?tailLines=ten`);
    expect(bad.status).toBe(400);
    expect(bad.json?.["message"]).toBe('strconv.ParseInt: parsing "ten": invalid syntax');
  });

  it("answers 404 for a missing pod, and for a scheduled pod whose Node does not exist", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"], { nodeName: "n1" }) });
    expect((await call(server, "GET", `${pods}/nope/log`)).json?.["message"]).toBe('pods "nope" not found');
    const res = await call(server, "GET", `${pods}/p/log`);
    expect(res.status).toBe(404);
    expect(res.json?.["message"]).toBe('nodes "n1" not found');
  });

  it("answers 503 naming the node agent's log URL when the pod's node exists", async () => {
    const server = await serverWith(
      node("n1", { addresses: [{ type: "InternalIP", address: "10.0.0.5" }], daemonEndpoints: { kubeletEndpoint: { Port: 10255 } } }),
      { url: pods, body: pod("p", ["c"], { nodeName: "n1" }) },
    );
    const res = await call(server, "GET", `${pods}/p/log?follow=true&tailLines=10`);
    expect(res.status).toBe(503);
    expect(res.json?.["reason"]).toBe("ServiceUnavailable");
    expect(res.json?.["message"]).toMatch(
      /^Get "https:\/\/10\.0\.0\.5:10255\/containerLogs\/default\/p\/c\?follow=true&tailLines=10": dial tcp 10\.0\.0\.5:10255: /,
    );
  });

  it("is read-only: POST is 405", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    expect((await call(server, "POST", `${pods}/p/log`, {})).status).toBe(405);
  });
});

describe("pod exec, attach and portforward", () => {
  it("refuses a pod without a node with 400 does not have a host assigned", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    for (const sub of ["exec?command=ls", "attach", "portforward?ports=80"]) {
      const res = await call(server, "POST", `${pods}/p/${sub}`, undefined, upgrade);
      expect(res.status).toBe(400);
      expect(res.json?.["message"]).toBe("pod p does not have a host assigned");
    }
  });

  it("checks the container before the node", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["a", "b"]) });
    const res = await call(server, "GET", `${pods}/p/exec?command=ls`, undefined, upgrade);
    expect(res.json?.["message"]).toBe("a container name must be specified for pod p, choose one of: [a b]");
  });

  it("refuses a request that does not upgrade with 400, and answers 503 error dialing backend to one that does", async () => {
    const server = await serverWith(node("n1", { addresses: [{ type: "Hostname", address: "worker-1" }] }), {
      url: pods,
      body: pod("p", ["c"], { nodeName: "n1" }),
    });
    const plain = await call(server, "POST", `${pods}/p/exec?command=ls&stdout=true`);
    expect(plain.status).toBe(400);
    expect(plain.json?.["message"]).toBe("Upgrade request required");
    const upgraded = await call(server, "GET", `${pods}/p/exec?command=ls&stdout=true`, undefined, upgrade);
    expect(upgraded.status).toBe(503);
    expect(upgraded.json?.["message"]).toMatch(/^error dialing backend: dial tcp worker-1:10250: /);
  });

  it("refuses ports that do not convert, a dryRun and methods other than GET and POST", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    const bad = await call(server, "POST", `${pods}/p/portforward?ports=http`);
    expect(bad.status).toBe(400);
    expect(bad.json?.["message"]).toBe('cannot convert to []int32: strconv.ParseUint: parsing "http": invalid syntax');
    expect((await call(server, "POST", `${pods}/p/exec?dryRun=All`)).json?.["message"]).toBe("dryRun is not supported");
    expect((await call(server, "PUT", `${pods}/p/exec`, {})).status).toBe(405);
  });

  it("answers 503 when the Node has no address of the preferred types", async () => {
    const server = await serverWith(node("n1"), { url: pods, body: pod("p", ["c"], { nodeName: "n1" }) });
    const res = await call(server, "POST", `${pods}/p/attach`, undefined, upgrade);
    expect(res.status).toBe(503);
    expect(res.json?.["message"]).toBe("no preferred addresses found; known addresses: []");
  });
});

describe("pod proxy", () => {
  it("refuses a pod without an address, and a malformed name", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    const res = await call(server, "GET", `${pods}/p/proxy/metrics`);
    expect(res.status).toBe(400);
    expect(res.json?.["message"]).toBe("address not allowed");
    expect((await call(server, "GET", `${pods}/ftp:p:80/proxy`)).json?.["message"]).toBe('invalid pod request "ftp:p:80"');
    expect((await call(server, "GET", `${pods}/q:80/proxy`)).json?.["message"]).toBe('pods "q" not found');
  });

  it("answers 503 error trying to reach service for a pod with an address, on every method", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    const current = await call(server, "GET", `${pods}/p`);
    const withIP = { ...current.json, status: { podIP: "10.244.0.7", podIPs: [{ ip: "10.244.0.7" }] } };
    expect((await call(server, "PUT", `${pods}/p/status`, withIP)).status).toBe(200);
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const res = await call(server, method, `${pods}/p:8080/proxy/a/b`);
      expect(res.status).toBe(503);
      expect(res.json?.["message"]).toMatch(/^error trying to reach service: dial tcp 10\.244\.0\.7:8080: /);
    }
  });

  it("finds no route for a path after a sub-resource that takes none", async () => {
    const server = await serverWith({ url: pods, body: pod("p", ["c"]) });
    expect((await call(server, "GET", `${pods}/p/log/extra`)).status).toBe(404);
    expect((await call(server, "GET", `${pods}/p/status/extra`)).status).toBe(404);
  });
});

describe("discovery of the connect sub-resources", () => {
  it("lists them in /api/v1 with their kinds and verbs", async () => {
    const server = new APIServer();
    const list = await call(server, "GET", "/api/v1");
    const resources = (list.json?.["resources"] as { name: string; kind: string; verbs: string[] }[]).filter((r) => r.name.startsWith("pods/"));
    const byName = Object.fromEntries(resources.map((r) => [r.name, { kind: r.kind, verbs: r.verbs }]));
    expect(byName["pods/log"]).toEqual({ kind: "Pod", verbs: ["get"] });
    expect(byName["pods/exec"]).toEqual({ kind: "PodExecOptions", verbs: ["create", "get"] });
    expect(byName["pods/attach"]).toEqual({ kind: "PodAttachOptions", verbs: ["create", "get"] });
    expect(byName["pods/portforward"]).toEqual({ kind: "PodPortForwardOptions", verbs: ["create", "get"] });
    expect(byName["pods/proxy"]).toEqual({ kind: "PodProxyOptions", verbs: ["create", "delete", "get", "patch", "update"] });
  });
});

describe("authorization of the connect sub-resources", () => {
  it("asks with the request's verb (get for GET, create for POST), resource pods and the sub-resource", async () => {
    const seen: Attributes[] = [];
    const server = new APIServer({
      admission: [],
      authorization: [
        {
          authorize: async (attributes: Attributes) => {
            if (attributes.resourceRequest && attributes.resource === "pods" && attributes.subresource) seen.push(attributes);
            return { decision: attributes.subresource === "exec" ? "deny" : "allow", reason: "" };
          },
        },
      ],
    });
    expect((await call(server, "POST", pods, pod("p", ["c"]))).status).toBe(201);
    expect((await call(server, "GET", `${pods}/p/log`)).status).toBe(200);
    expect((await call(server, "POST", `${pods}/p/exec?command=ls`, undefined, upgrade)).status).toBe(403);
    expect((await call(server, "DELETE", `${pods}/p:80/proxy/x`)).status).toBe(400);
    expect(seen.map((a) => [a.verb, a.resource, a.subresource, a.name, a.namespace])).toEqual([
      ["get", "pods", "log", "p", "default"],
      ["create", "pods", "exec", "p", "default"],
      ["delete", "pods", "proxy", "p:80", "default"],
    ]);
  });
});
