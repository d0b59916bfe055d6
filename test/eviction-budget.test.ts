/**
 * The eviction of a pod against the PodDisruptionBudgets that select it, over HTTP: a budget
 * that allows no disruption refuses with 429 and the reference's cause, one that allows some
 * counts the eviction down in its status, an unobserved budget refuses too, two budgets are a
 * 500, and pods no budget protects (or that are not running) go.
 */
import { serve, type ServedServer } from "@orch/node";
import { APIServer } from "@orch/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let served: ServedServer;

beforeAll(async () => {
  served = await serve(new APIServer({ domain: "orch.io", admission: [] }), { port: 0 });
});
afterAll(async () => {
  await served.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function http(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${served.url}${path}`, {
    method,
    headers: { "content-type": "application/json", accept: "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const pods = "/api/v1/namespaces/default/pods";
const pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";

/** A running, ready pod labelled `app`. */
async function runningPod(name: string, app: string, ready = true): Promise<void> {
  const created = await http("POST", pods, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app } },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  expect(created.status).toBe(201);
  const status = { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False" }] };
  const put = await http("PUT", `${pods}/${name}/status`, { ...created.json, status });
  expect(put.status, JSON.stringify(put.json)).toBe(200);
}

/** A budget selecting `app` whose status the disruption controller would have written. */
async function budget(name: string, app: string, status: Record<string, unknown>, observed = true): Promise<void> {
  const created = await http("POST", pdbs, {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name },
    spec: { minAvailable: 1, selector: { matchLabels: { app } } },
  });
  expect(created.status).toBe(201);
  const full = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, observedGeneration: observed ? 1 : 0, ...status };
  const put = await http("PUT", `${pdbs}/${name}/status`, { ...created.json, status: full });
  expect(put.status, JSON.stringify(put.json)).toBe(200);
}

const evict = (name: string, extra: Record<string, unknown> = {}) =>
  http("POST", `${pods}/${name}/eviction`, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name }, ...extra });

describe("pods/eviction with PodDisruptionBudgets", () => {
  it("refuses with 429 when the budget allows no disruption, and keeps the pod", async () => {
    await runningPod("a-1", "a");
    await budget("a", "a", { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 });
    const res = await evict("a-1");
    expect(res.status).toBe(429);
    expect(res.json).toMatchObject({
      kind: "Status",
      reason: "TooManyRequests",
      code: 429,
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: "DisruptionBudget", message: "The disruption budget a needs 1 healthy pods and has 1 currently" }] },
    });
    expect((await http("GET", `${pods}/a-1`)).status).toBe(200);
  });

  it("evicts when the budget allows it and counts the disruption down in the budget's status", async () => {
    await runningPod("b-1", "b");
    await budget("b", "b", { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    const res = await evict("b-1");
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json).toMatchObject({ kind: "Status", status: "Success" });
    expect((await http("GET", `${pods}/b-1`)).status).toBe(404);
    const pdb = await http("GET", `${pdbs}/b`);
    expect(pdb.json.status.disruptionsAllowed).toBe(0);
    expect(Object.keys(pdb.json.status.disruptedPods)).toEqual(["b-1"]);
    expect(pdb.json.status.conditions).toEqual([expect.objectContaining({ type: "DisruptionAllowed", status: "False", reason: "InsufficientPods" })]);
  });

  it("changes nothing on a dry run", async () => {
    await runningPod("c-1", "c");
    await budget("c", "c", { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 });
    const res = await http("POST", `${pods}/c-1/eviction?dryRun=All`, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: "c-1" } });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect((await http("GET", `${pods}/c-1`)).status).toBe(200);
    expect((await http("GET", `${pdbs}/c`)).json.status.disruptionsAllowed).toBe(1);
  });

  it("refuses with 429 while the budget's generation is not observed", async () => {
    await runningPod("d-1", "d");
    await budget("d", "d", { disruptionsAllowed: 1 }, false);
    const res = await evict("d-1");
    expect(res.status).toBe(429);
    expect(res.json.details).toMatchObject({
      retryAfterSeconds: 10,
      causes: [{ reason: "DisruptionBudget", message: "The disruption budget d is still being processed by the server." }],
    });
  });

  it("answers 500 when two budgets select the pod", async () => {
    await runningPod("e-1", "e");
    await budget("e1", "e", { disruptionsAllowed: 1 });
    await budget("e2", "e", { disruptionsAllowed: 1 });
    const res = await evict("e-1");
    expect(res.status).toBe(500);
    expect(res.json.message).toBe("Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.");
  });

  it("evicts an unready pod while the budget is healthy, or under AlwaysAllow", async () => {
    await runningPod("f-1", "f", false);
    await budget("f", "f", { disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 3 });
    expect((await evict("f-1")).status).toBe(201);
    expect((await http("GET", `${pods}/f-1`)).status).toBe(404);
  });

  it("evicts a pod no budget selects, and a pending one whatever its budget", async () => {
    await runningPod("g-1", "g");
    expect((await evict("g-1")).status).toBe(201);
    const pending = await http("POST", pods, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "a-pending", labels: { app: "a" } },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    expect(pending.status).toBe(201);
    expect((await evict("a-pending")).status).toBe(201);
  });
});
