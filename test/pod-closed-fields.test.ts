/**
 * The Pod fields that were open objects (probes, security contexts, affinity, ...) through the
 * server: strict field validation refuses unknown fields under them, warn mode warns, every
 * invalid value is a cause of the 422, and a valid probe comes back with its defaults.
 */
import { APIServer } from "@orch/server";
import { describe, expect, it } from "vitest";

async function call(server: APIServer, method: string, url: string, body?: unknown) {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json" }),
    ...(body === undefined ? {} : { body: new TextEncoder().encode(JSON.stringify(body)) }),
  });
  const text = typeof res.body === "string" ? res.body : "";
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

const pods = "/api/v1/namespaces/default/pods";

function pod(container: Record<string, unknown>, spec: Record<string, unknown> = {}) {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx:1.25", ...container }], ...spec } };
}

describe("Pod fields that used to be open objects", () => {
  it("refuses unknown fields under a probe and a security context with fieldValidation=Strict", async () => {
    const server = new APIServer({ admission: [] });
    const body = pod({
      livenessProbe: { periodSeconds: -5, exec: { command: ["true"] }, tcpSocket: { port: 80 }, bogus: 1 },
      securityContext: { runAsUser: -1, bogus: 3 },
    });
    const strict = await call(server, "POST", `${pods}?dryRun=All&fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(strict.json.message).toContain('unknown field "spec.containers[0].livenessProbe.bogus"');
    expect(strict.json.message).toContain('unknown field "spec.containers[0].securityContext.bogus"');
    // Without fieldValidation the unknown fields are dropped; the values are refused.
    const invalid = await call(server, "POST", `${pods}?dryRun=All`, body);
    expect(invalid.status).toBe(422);
    const causes = (invalid.json.details.causes as { field: string; message: string }[]).map((c) => `${c.field}: ${c.message}`);
    expect(causes).toEqual(
      expect.arrayContaining([
        "spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
        "spec.containers[0].livenessProbe.periodSeconds: Invalid value: -5: must be greater than or equal to 0",
        "spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive",
      ]),
    );
    expect((await call(server, "GET", `${pods}/p`)).status).toBe(404);
  });

  it("fills a valid probe's defaults on create and warns about (and drops) an unknown field under it", async () => {
    const server = new APIServer({ admission: [] });
    const created = await call(server, "POST", pods, pod({ readinessProbe: { httpGet: { port: 8080 }, bogus: 1 } }, { securityContext: { runAsUser: 1000 } }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.headers.get("warning")).toContain("spec.containers[0].readinessProbe.bogus");
    expect(created.json.spec.containers[0].readinessProbe).toEqual({
      httpGet: { port: 8080, path: "/", scheme: "HTTP" },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(created.json.spec.securityContext).toEqual({ runAsUser: 1000 });
  });
});

describe("pods/ephemeralcontainers", () => {
  it("adds an ephemeral container (with its defaults) and refuses changing or removing one", async () => {
    const server = new APIServer({ admission: [] });
    const created = await call(server, "POST", pods, pod({}));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const debug = { name: "debug", image: "busybox", targetContainerName: "c", stdin: true, tty: true };
    const added = await call(server, "PUT", `${pods}/p/ephemeralcontainers`, { ...created.json, spec: { ...created.json.spec, ephemeralContainers: [debug] } });
    expect(added.status, JSON.stringify(added.json)).toBe(200);
    expect(added.json.spec.ephemeralContainers).toEqual([
      { ...debug, terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", imagePullPolicy: "Always" },
    ]);
    const changed = await call(server, "PUT", `${pods}/p/ephemeralcontainers`, {
      ...added.json,
      spec: { ...added.json.spec, ephemeralContainers: [{ ...added.json.spec.ephemeralContainers[0], image: "alpine" }] },
    });
    expect(changed.status).toBe(422);
    expect(changed.json.details.causes).toEqual([
      { reason: "FieldValueForbidden", field: "spec.ephemeralContainers", message: 'Forbidden: existing ephemeral containers "debug" may not be changed\n' },
    ]);
    const withPorts = await call(server, "PUT", `${pods}/p/ephemeralcontainers`, {
      ...added.json,
      spec: {
        ...added.json.spec,
        ephemeralContainers: [...added.json.spec.ephemeralContainers, { name: "two", image: "busybox", ports: [{ containerPort: 80 }] }],
      },
    });
    expect(withPorts.status).toBe(422);
    expect(withPorts.json.details.causes[0].field).toBe("spec.ephemeralContainers[1].ports");
    // Through the pod itself the spec stays immutable.
    const viaPod = await call(server, "PUT", `${pods}/p`, { ...added.json, spec: { ...added.json.spec, ephemeralContainers: [] } });
    expect(viaPod.status).toBe(422);
  });
});
