/**
 * Authorization, one example per topic: RBAC for a team, the embedded default, an embedder's own
 * authorizer, the SubjectAccessReview webhook, impersonation, escalation prevention and the
 * access reviews. Each builds its own `APIServer` and stops it. Run them all with
 * `npx tsx --conditions=@orch/source examples/authorization/main.ts`.
 * @module
 */
import { pathToFileURL } from "node:url";
import { businessHours } from "./business-hours.js";
import { defaultMode } from "./default-mode.js";
import { escalation } from "./escalation.js";
import { impersonation } from "./impersonation.js";
import { rbacForATeam } from "./rbac-team.js";
import { subjectAccessReviews } from "./subject-access-review.js";
import { authorizationWebhook } from "./webhook.js";

/** Runs every example in turn, each printing what the server answered. */
export async function main(log: (line: string) => void = console.log): Promise<void> {
  for (const example of [rbacForATeam, defaultMode, businessHours, authorizationWebhook, impersonation, escalation, subjectAccessReviews]) {
    log(`# ${example.name}`);
    await example(log);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
