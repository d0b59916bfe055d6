/**
 * Admission, one example per topic: a plugin of your own, a validating webhook in Express,
 * a ResourceQuota and PodSecurity. Each builds its own `APIServer` and stops it. Run them all
 * with `npx tsx --conditions=@orch/source examples/admission/main.ts`.
 * @module
 */
import { pathToFileURL } from "node:url";
import { customPlugin } from "./custom-plugin.js";
import { podSecurity } from "./pod-security.js";
import { podQuota } from "./quota.js";
import { validatingWebhook } from "./webhook.js";

/** Runs every example in turn, each printing what the server answered. */
export async function main(log: (line: string) => void = console.log): Promise<void> {
  for (const example of [customPlugin, validatingWebhook, podQuota, podSecurity]) {
    log(`# ${example.name}`);
    await example(log);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
