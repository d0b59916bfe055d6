/**
 * A validating admission webhook written with Express: it refuses Pods whose images float
 * (`:latest` or no tag). It serves HTTPS with a certificate of its own CA; the
 * ValidatingWebhookConfiguration that points the server at it carries that CA as `caBundle`.
 * The server calls webhooks through `httpsClient` of `@orch/node` (`orch-apiserver` does so by
 * itself).
 * @module
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import express from "express";
import { defaultAdmissionPlugins } from "@orch/admission";
import { createCertificateAuthority } from "@orch/cli";
import { Client, inProcessTransport } from "@orch/client";
import { httpsClient } from "@orch/node";
import { APIServer } from "@orch/server";
import { pod, pods, refusal, validatingWebhookConfigurations } from "./kinds.js";
import { startInProcessControllers } from "@orch/controllers";

interface Review {
  apiVersion: string;
  request: { uid: string; object?: { spec?: { containers?: { name: string; image: string }[] } } };
}

/** The webhook: an Express app answering AdmissionReviews on `/validate`. */
export function noLatestImages(): express.Express {
  const app = express();
  app.use(express.json({ limit: "3mb" }));
  app.post("/validate", (req, res) => {
    const review = req.body as Review;
    const floating = (review.request.object?.spec?.containers ?? []).filter((c) => c.image.endsWith(":latest") || !c.image.split("/").pop()?.includes(":"));
    const response = floating.length
      ? {
          uid: review.request.uid,
          allowed: false,
          status: { code: 403, message: `images must be pinned: ${floating.map((c) => `${c.name} uses ${c.image}`).join(", ")}` },
        }
      : { uid: review.request.uid, allowed: true };
    res.json({ apiVersion: review.apiVersion, kind: "AdmissionReview", response });
  });
  return app;
}

/** What the example saw. */
export interface WebhookResult {
  pinned: string;
  floating: string;
}

/** Serves the webhook on a free loopback port, registers it, and creates a pinned and a floating Pod. */
export async function validatingWebhook(log: (line: string) => void = console.log): Promise<WebhookResult> {
  const ca = await createCertificateAuthority();
  const serving = await ca.issue({ subject: "CN=no-latest", ips: ["127.0.0.1"], usage: "server" });
  const https: Server = createServer({ key: serving.keyPem, cert: serving.certPem }, noLatestImages());
  await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
  const server = new APIServer({ admission: { plugins: defaultAdmissionPlugins, transport: { client: httpsClient } } });
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  try {
    const client = new Client({ transport: inProcessTransport(server) });
    await client.resource(validatingWebhookConfigurations).create({
      metadata: { name: "no-latest" },
      webhooks: [
        {
          name: "no-latest.images.example.com",
          clientConfig: { url: `https://127.0.0.1:${(https.address() as AddressInfo).port}/validate`, caBundle: Buffer.from(ca.certPem).toString("base64") },
          rules: [{ operations: ["CREATE", "UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          failurePolicy: "Fail",
        },
      ],
    });
    // A new configuration takes effect within moments (the server watches them): wait for it.
    let floating = "created";
    for (let i = 0; floating === "created" && i < 100; i++) {
      floating = await client
        .resource(pods)
        .create(pod(`floating-${i}`, "nginx:latest"), { namespace: "default" })
        .then(() => "created", refusal);
      if (floating === "created") {
        await client.resource(pods).delete(`floating-${i}`, { namespace: "default" });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    log(`floating: ${floating}`);
    const pinned = await client
      .resource(pods)
      .create(pod("pinned", "nginx:1.27.3"), { namespace: "default" })
      .then(() => "created", refusal);
    log(`pinned: ${pinned}`);
    return { pinned, floating };
  } finally {
    await controllers.stop();
    await server.shutdown();
    https.closeAllConnections();
    await new Promise((resolve) => https.close(resolve));
  }
}
