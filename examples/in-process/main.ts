/**
 * orch inside a unit test: an `APIServer` on a `MemoryStore` and a typed client talking to it
 * in-process, with no socket. The same client works over HTTP with `httpTransport`.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { isConflict } from "@orch/meta";
import { APIServer } from "@orch/server";
import { pathToFileURL } from "node:url";

/** Creates a ConfigMap, shows a stale update failing with 409, and returns the final data. */
export async function main(log: (line: string) => void = console.log): Promise<Record<string, string>> {
  const server = new APIServer(); // in memory, domain orch.io
  const client = new Client({ transport: inProcessTransport(server) });

  const created = await client.configMaps.create({ metadata: { name: "settings" }, data: { mode: "fast" } }, { namespace: "default" });
  log(`created ${created.metadata.name} at resourceVersion ${created.metadata.resourceVersion}`);

  await client.configMaps.patch("settings", { data: { mode: "safe" } }, "merge", { namespace: "default" });
  try {
    await client.configMaps.update({ ...created, data: { mode: "stale" } });
  } catch (error) {
    if (isConflict(error)) log(`stale update refused: ${error.code} ${error.reason}`);
    else throw error;
  }
  const current = await client.configMaps.get("settings", { namespace: "default" });
  await server.shutdown();
  return (current.data ?? {}) as Record<string, string>;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
