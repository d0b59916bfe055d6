/**
 * Authentication, one example per authenticator: each builds an `APIServer` with it and asks
 * the server who the caller is (a SelfSubjectReview). Those that need HTTPS serve on 127.0.0.1,
 * on a free port, and stop. Run them all with
 * `npx tsx --conditions=@orch/source examples/authentication/main.ts`.
 * @module
 */
import { pathToFileURL } from "node:url";
import { anonymousRequests } from "./anonymous.js";
import { badCredentials } from "./bad-credentials.js";
import { bootstrapTokens } from "./bootstrap-tokens.js";
import { clientCertificates } from "./client-certificates.js";
import { inProcessUser } from "./in-process-user.js";
import { oidc } from "./oidc.js";
import { requestHeader } from "./request-header.js";
import { serviceAccountTokens } from "./service-account-tokens.js";
import { staticTokens } from "./static-tokens.js";
import { tokenReview } from "./token-review.js";
import { tokenWebhook } from "./token-webhook.js";

/** Runs every example in turn, each printing what the server answered. */
export async function main(log: (line: string) => void = console.log): Promise<void> {
  for (const example of [
    clientCertificates,
    staticTokens,
    serviceAccountTokens,
    bootstrapTokens,
    oidc,
    tokenWebhook,
    requestHeader,
    anonymousRequests,
    inProcessUser,
    tokenReview,
    badCredentials,
  ]) {
    await example(log);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
