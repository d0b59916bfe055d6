/**
 * Clients: connecting in-process and over HTTPS, with a kubeconfig and a credential plugin,
 * the typed accessors and sub-resources, the embedder's own kinds, and informers. The examples
 * that need HTTPS serve on 127.0.0.1, on a free port, and stop. Run them all with
 * `npx tsx --conditions=@orch/source examples/clients/main.ts`.
 * @module
 */
import { pathToFileURL } from "node:url";
import { connect } from "./connect.js";
import { execPlugin } from "./exec-plugin.js";
import { informer } from "./informer.js";
import { kubeconfig } from "./kubeconfig.js";
import { ownKinds, typedAccessors } from "./typed.js";

/** Runs every example in turn, each printing what it did. */
export async function main(log: (line: string) => void = console.log): Promise<void> {
  for (const example of [connect, kubeconfig, execPlugin, typedAccessors, ownKinds, informer]) {
    await example(log);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
