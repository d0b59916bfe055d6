/**
 * Server-side apply against update of the same change to a Pod-sized object (20 containers),
 * both through `@orch/merge` on the real Pod schema, timed in the same run; and the size of the
 * `managedFields` of a Pod two managers applied to, relative to the object.
 * @module
 */
import { apply, typeInfoOf, updateManagedFields, type JSONObject } from "@orch/merge";
import { builtinResources, decodeObject, podV1Schema } from "@orch/resources";
import { pod20 } from "./validation.bench.js";

function best(fn: () => void, iterations: number, rounds: number): number {
  let min = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    min = Math.min(min, (performance.now() - start) / iterations);
  }
  return min;
}

/** Changes the image of container 7 (the change both operations make). */
function changed(pod: JSONObject, tag: string): JSONObject {
  const spec = pod["spec"] as JSONObject;
  const containers = (spec["containers"] as JSONObject[]).map((c, i) => (i === 7 ? { ...c, image: `registry.example.com/app:${tag}` } : c));
  return { ...pod, spec: { ...spec, containers } };
}

/**
 * Runs the benchmarks and returns printable lines: apply vs update time per operation (target
 * apply at most 2x update) and managedFields size for two appliers (target under 60%).
 */
export async function applyBenchmarks(quick: boolean): Promise<string[]> {
  const typeInfo = typeInfoOf(podV1Schema);
  const podType = builtinResources.find((t) => t.kind === "Pod");
  if (!podType) return ["apply: no Pod in the catalog"];
  const stored = (o: JSONObject): JSONObject => decodeObject(podType, "v1", o) as unknown as JSONObject;
  const config = JSON.parse(pod20()) as JSONObject;
  const now = Date.UTC(2026, 10, 21);
  // The stored objects, defaulted as the server stores them: one created by an apply, one by a
  // create (an Update entry), so each operation starts from what it would meet.
  const appliedLive = stored(apply({ live: undefined, applied: config, manager: "kubectl", force: false, apiVersion: "v1", now, typeInfo }).object);
  const createdLive = stored(updateManagedFields({ live: undefined, next: stored(config), manager: "kubectl", apiVersion: "v1", now, typeInfo }).object);
  const iterations = quick ? 200 : 1000;
  const rounds = quick ? 3 : 7;
  // Request bodies are freshly parsed JSON that shares nothing with the stored object: prepare
  // them outside the timing. Apply sends the configuration; update sends the whole object back
  // (a GET-modify-PUT), managedFields included.
  const applyBodies = Array.from({ length: iterations }, (_, i) => changed(structuredClone(config), String(i & 1)));
  const updateBodies = Array.from({ length: iterations }, (_, i) => changed(structuredClone(createdLive), String(i & 1)));
  let ai = 0;
  let ui = 0;
  const applyNs =
    best(
      () => {
        apply({ live: appliedLive, applied: applyBodies[ai++ % iterations] as JSONObject, manager: "kubectl", force: false, apiVersion: "v1", now, typeInfo });
      },
      iterations,
      rounds,
    ) * 1e6;
  const updateNs =
    best(
      () => {
        updateManagedFields({ live: createdLive, next: updateBodies[ui++ % iterations] as JSONObject, manager: "kubectl", apiVersion: "v1", now, typeInfo });
      },
      iterations,
      rounds,
    ) * 1e6;
  const ratio = applyNs / updateNs;

  // Two managers: the user applied the whole Pod, a second tool applied a label and one image.
  const second: JSONObject = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", labels: { "injected-by": "tool" } },
    spec: { containers: [{ name: "c3", image: "registry.example.com/app:3" }] },
  };
  const both = stored(apply({ live: appliedLive, applied: second, manager: "tool", force: false, apiVersion: "v1", now, typeInfo }).object);
  const { managedFields, ...rest } = both["metadata"] as JSONObject;
  const storedBytes = JSON.stringify(both).length;
  const bareBytes = JSON.stringify({ ...both, metadata: rest }).length;
  const managedBytes = JSON.stringify(managedFields).length;
  const share = managedBytes / storedBytes;

  return [
    `apply vs update of one image change to a stored 20-container Pod (target apply ≤2x update)`,
    `${"apply".padEnd(10)} ${(applyNs / 1000).toFixed(1).padStart(8)} µs   update ${(updateNs / 1000).toFixed(1).padStart(8)} µs   ${ratio.toFixed(2)}x ${ratio <= 2 ? "ok" : "OVER"}`,
    `managedFields of that Pod after two managers applied: ${managedBytes} of ${storedBytes} stored bytes, ${(share * 100).toFixed(1)}% (target <60%) ${share < 0.6 ? "ok" : "OVER"}` +
      ` (${((managedBytes / bareBytes) * 100).toFixed(0)}% of the object without them)`,
  ];
}
