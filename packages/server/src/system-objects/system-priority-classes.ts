/**
 * The built-in PriorityClasses (`system-node-critical`, `system-cluster-critical`), created at
 * start as the reference's scheduling post-start hook creates them; one that exists is left as
 * it is (their value and `globalDefault` cannot be changed, validation keeps them).
 * @module
 */
import type { APIObject } from "@orch/meta";
import { systemPriorityClasses } from "@orch/resources";
import type { ControllerInput } from "../control-loop.js";
import { createIfMissing, readStored } from "./system-write.js";

/** The reference's descriptions of the two classes, by name. */
const descriptions: Readonly<Record<string, string>> = {
  "system-node-critical": "Used for system critical pods that must not be moved from their current node.",
  "system-cluster-critical": "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
};

/** The built-in PriorityClasses of `domain` (`scheduling.<domain>/v1`). */
export function systemPriorityClassObjects(domain: string): APIObject[] {
  return systemPriorityClasses.map((c) => ({
    apiVersion: `scheduling.${domain}/v1`,
    kind: "PriorityClass",
    metadata: { name: c.name },
    value: c.value,
    globalDefault: c.globalDefault,
    description: descriptions[c.name] ?? "",
  }));
}

/** Creates the built-in PriorityClasses that do not exist; nothing when the catalog has no PriorityClass. */
export async function ensureSystemPriorityClasses(input: ControllerInput): Promise<void> {
  const served = input.served(`scheduling.${input.domain}`, "priorityclasses");
  if (!served) return;
  for (const object of systemPriorityClassObjects(input.domain)) {
    if (await readStored(input.store, served, "", object.metadata.name ?? "")) continue;
    await createIfMissing(input.objects, served, { ...object, apiVersion: served.apiVersion }, input.domain);
  }
}
