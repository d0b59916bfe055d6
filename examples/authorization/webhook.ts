/**
 * The SubjectAccessReview webhook (`--authorization-mode Webhook,RBAC` with
 * `--authorization-webhook-config-file`): the server asks a remote service about each request
 * and caches its answers. Here the service is a small `node:http` server on 127.0.0.1: it allows
 * the user `ci` everything in namespace `builds`, denies deleting namespaces, and has no opinion
 * on the rest. When it is gone, it has no opinion either and RBAC decides.
 * @module
 */
import { webhookAuthorizer } from "@orch/authz";
import { Client, inProcessTransport } from "@orch/client";
import { httpsClient } from "@orch/node";
import { APIServer } from "@orch/server";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { refusal } from "./access.js";

interface ReviewSpec {
  user?: string;
  groups?: string[];
  resourceAttributes?: { namespace?: string; verb?: string; group?: string; resource?: string; name?: string };
  nonResourceAttributes?: { path?: string; verb?: string };
}

/** The webhook's policy: a SubjectAccessReview `status` for a `spec`. */
function decide(spec: ReviewSpec): { allowed: boolean; denied?: boolean; reason?: string } {
  const resource = spec.resourceAttributes;
  if (resource?.resource === "namespaces" && resource.verb === "delete")
    return { allowed: false, denied: true, reason: "namespaces are deleted by the platform team's pipeline" };
  if (spec.user === "ci" && resource?.namespace === "builds") return { allowed: true, reason: "ci owns namespace builds" };
  return { allowed: false }; // no opinion: the next authorizer decides
}

/** Serves the policy on 127.0.0.1 (a free port); resolves with the server and its URL. */
async function startWebhook(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const review = JSON.parse(body) as { apiVersion: string; spec: ReviewSpec };
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: "SubjectAccessReview", status: decide(review.spec) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/authorize` };
}

/** What the webhook example saw: each call and its outcome, and the server's log. */
export interface WebhookResult {
  calls: Record<string, string>;
  logged: string[];
}

/** ci writes in builds and tries to delete a namespace; then the webhook stops. */
export async function authorizationWebhook(log: (line: string) => void = console.log): Promise<WebhookResult> {
  const webhook = await startWebhook();
  const logged: string[] = [];
  const server = new APIServer({
    authorization: [
      webhookAuthorizer({
        server: webhook.url,
        http: httpsClient(), // over https, give it the webhook's CA and a client certificate
        version: "v1",
        authorizedTTLMs: 300_000, // --authorization-webhook-cache-authorized-ttl 5m
        unauthorizedTTLMs: 30_000, // --authorization-webhook-cache-unauthorized-ttl 30s
        log: (line) => logged.push(line),
      }),
      "RBAC",
    ],
  });
  await server.ready();
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  await admin.namespaces.create({ metadata: { name: "builds" } });
  const ci = new Client({ transport: inProcessTransport(server, { user: { name: "ci", groups: ["system:authenticated"] } }) });

  const calls: Record<string, string> = {};
  const attempt = async (what: string, call: () => Promise<unknown>) => {
    calls[what] = await call().then(
      () => "ok",
      (error: unknown) => refusal(error),
    );
    log(`${what}: ${calls[what]}`);
  };
  await attempt("ci creates a ConfigMap in builds", () => ci.configMaps.create({ metadata: { name: "build-1" } }, { namespace: "builds" }));
  await attempt("ci deletes namespace builds", () => ci.namespaces.delete("builds"));

  await new Promise<void>((resolve, reject) => webhook.server.close((error) => (error ? reject(error) : resolve())));
  // An allow is cached for 5 minutes: the same question passes without the webhook, and the
  // create reaches storage (409: the name is taken).
  await attempt("webhook gone: ci creates ConfigMap build-1 again", () => ci.configMaps.create({ metadata: { name: "build-1" } }, { namespace: "builds" }));
  // A new question: the call fails, the webhook has no opinion, and RBAC grants ci nothing.
  await attempt("webhook gone: ci reads ConfigMap build-1", () => ci.configMaps.get("build-1", { namespace: "builds" }));
  for (const line of logged) log(`log: ${line}`);
  await server.shutdown();
  return { calls, logged };
}
