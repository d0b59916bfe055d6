/**
 * `orch-apiserver --authorization-mode=RBAC,Webhook` with a real HTTPS SubjectAccessReview
 * webhook started here: what RBAC does not allow is asked of the webhook, whose answers are
 * cached; a webhook that is down is no opinion (403), never a hang.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCA, servingCertificate } from "../packages/node/src/internal/test-pki.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { httpsCall } from "./support/authentication.js";

interface Review {
  apiVersion: string;
  kind: string;
  spec: {
    user?: string;
    group?: string[];
    resourceAttributes?: { verb?: string; resource?: string; namespace?: string };
    nonResourceAttributes?: { path?: string };
  };
}

let dir: string;
let webhook: Server;
let server: RunningAPIServer;
let ca: string;
const reviews: Review[] = [];
let down = false;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-authz-webhook-"));
  const webhookCA = await selfSignedCA("CN=authz-webhook-ca");
  const serving = await servingCertificate(webhookCA);
  webhook = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (down) {
        res.writeHead(500, { "content-type": "text/plain" });
        res.end("down");
        return;
      }
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
      reviews.push(review);
      // The webhook lets carol read configmaps, and nothing else.
      const allowed =
        review.spec.user === "carol" && review.spec.resourceAttributes?.resource === "configmaps" && review.spec.resourceAttributes.verb === "list";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          apiVersion: review.apiVersion,
          kind: "SubjectAccessReview",
          status: { allowed, ...(allowed ? {} : { reason: "the webhook says no" }) },
        }),
      );
    });
  });
  await new Promise<void>((r) => webhook.listen(0, "127.0.0.1", r));
  const url = `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/authorize`;
  await writeFile(join(dir, "webhook-ca.crt"), webhookCA.cert);
  await writeFile(
    join(dir, "authz-webhook.yaml"),
    `apiVersion: v1\nkind: Config\nclusters:\n- name: authz\n  cluster:\n    server: ${url}\n    certificate-authority: webhook-ca.crt\nusers:\n- name: orch\n  user: {}\ncontexts:\n- name: authz\n  context: {cluster: authz, user: orch}\ncurrent-context: authz\n`,
  );
  await writeFile(join(dir, "tokens.csv"), "carol-token,carol,carol-uid,devs\n");
  server = await startAPIServer({
    flags: [
      "--token-auth-file",
      join(dir, "tokens.csv"),
      "--authorization-mode",
      "RBAC,Webhook",
      "--authorization-webhook-config-file",
      join(dir, "authz-webhook.yaml"),
      "--authorization-webhook-cache-unauthorized-ttl",
      "0s",
    ],
  });
  ca = await readFile(join(server.dataDir, "ca.crt"), "utf8");
}, 60_000);

afterAll(async () => {
  await server?.stop();
  webhook?.closeAllConnections();
  await new Promise<void>((r) => webhook?.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

const asCarol = (path: string) => httpsCall(server.url, ca, { path, token: "carol-token" });

describe("orch-apiserver --authorization-mode=RBAC,Webhook", () => {
  it("asks the webhook what RBAC does not allow, in a v1beta1 SubjectAccessReview, and follows its answer", async () => {
    expect((await asCarol("/api/v1/namespaces/default/configmaps")).status).toBe(200);
    const review = reviews.find((r) => r.spec.resourceAttributes?.resource === "configmaps");
    expect(review).toMatchObject({
      apiVersion: "authorization.orch.io/v1beta1",
      kind: "SubjectAccessReview",
      spec: { user: "carol", group: ["devs", "system:authenticated"], resourceAttributes: { verb: "list", resource: "configmaps", namespace: "default" } },
    });
    const secrets = await asCarol("/api/v1/namespaces/default/secrets");
    expect(secrets.status).toBe(403);
    expect((secrets.json as { message: string }).message).toBe(
      'secrets is forbidden: User "carol" cannot list resource "secrets" in API group "" in the namespace "default": the webhook says no',
    );
  });

  it("does not ask the webhook what RBAC allows (discovery), and caches what it allowed", async () => {
    const before = reviews.length;
    expect((await asCarol("/api")).status).toBe(200);
    expect((await asCarol("/api/v1/namespaces/default/configmaps")).status).toBe(200);
    expect(reviews.length).toBe(before);
  });

  it("treats a failing webhook as no opinion: 403, at once", async () => {
    down = true;
    try {
      const started = Date.now();
      expect((await asCarol("/api/v1/namespaces/default/pods")).status).toBe(403);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      down = false;
    }
  });
});
