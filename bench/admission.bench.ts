/**
 * Admission benchmark, in process (`APIServer.handle`, no HTTP in front):
 * - Pod creates with the default plugin set on (NamespaceLifecycle, LimitRanger, ServiceAccount,
 *   PodSecurity, Priority, ..., ResourceQuota) against the same server with admission off
 *   (`admission: []`) given the Pods as admission leaves them (with the ServiceAccount plugin's
 *   token volume, so both store objects of one size), rounds alternated in one run; target: at
 *   least 0.8 of the throughput without admission. Then the same with a LimitRange and a ResourceQuota in the namespace,
 *   where every create also charges the quota (a second write), for the record;
 * - one matching validating webhook on a local HTTPS server: the latency a ConfigMap create
 *   gains from it, against the webhook's own round trip (the same AdmissionReview POSTed by this
 *   process over the same kind of keep-alive connection); target: at most 2x.
 * Figures are printed, never asserted. Run it alone with
 * `npx tsx --conditions=@orch/source bench/admission.bench.ts [--quick]`.
 * @module
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { createCertificateAuthority } from "@orch/cli";
import { httpsClient } from "@orch/node";
import { APIServer, type APIServerOptions } from "@orch/server";
import { median } from "./cpu-target.js";

const namespace = "bench";

async function call(server: APIServer, method: string, url: string, body: unknown): Promise<number> {
  const res = await server.handle({
    method,
    url,
    headers: new Headers({ "content-type": "application/json" }),
    body: new TextEncoder().encode(JSON.stringify(body)),
  });
  return res.status;
}

async function mustCall(server: APIServer, method: string, url: string, body: unknown): Promise<void> {
  const status = await call(server, method, url, body);
  if (status >= 300) throw new Error(`${method} ${url}: ${status}`);
}

/**
 * A server with the bench namespace (PodSecurity `baseline` enforced) and its default
 * ServiceAccount; with `policies`, a LimitRange and a roomy ResourceQuota in it too.
 */
async function podServer(options: APIServerOptions, policies: boolean): Promise<APIServer> {
  const server = new APIServer(options);
  await server.ready();
  await mustCall(server, "POST", "/api/v1/namespaces", { metadata: { name: namespace, labels: { "pod-security.orch.io/enforce": "baseline" } } });
  await call(server, "POST", `/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name: "default" } });
  if (!policies) return server;
  await mustCall(server, "POST", `/api/v1/namespaces/${namespace}/limitranges`, {
    metadata: { name: "limits" },
    spec: { limits: [{ type: "Container", defaultRequest: { cpu: "100m" }, default: { cpu: "200m" } }] },
  });
  await mustCall(server, "POST", `/api/v1/namespaces/${namespace}/resourcequotas`, {
    metadata: { name: "quota" },
    spec: { hard: { pods: "1000000", "requests.cpu": "100000" } },
  });
  return server;
}

const pod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, labels: { app: "bench" } },
  spec: { containers: [{ name: "app", image: "registry.example/app:1.0", ports: [{ containerPort: 8080 }] }] },
});

/**
 * The Pod as the ServiceAccount plugin leaves it (its account and token volume, mounted): what
 * the server without admission is given, so that both servers store objects of one size and the
 * difference is admission's work, not the size of what is stored.
 */
const admittedPod = (name: string) => {
  const mount = { name: "orch-api-access-bench", mountPath: "/var/run/secrets/orch.io/serviceaccount", readOnly: true };
  const volume = {
    name: "orch-api-access-bench",
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
        { configMap: { name: "orch-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    },
  };
  const base = pod(name);
  return {
    ...base,
    spec: { serviceAccountName: "default", volumes: [volume], containers: base.spec.containers.map((c) => ({ ...c, volumeMounts: [mount] })) },
  };
};

/** Creates per second of `count` Pods (made by `make`), one after the other. */
async function podCreates(server: APIServer, prefix: string, count: number, make: (name: string) => object): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await mustCall(server, "POST", `/api/v1/namespaces/${namespace}/pods`, make(`${prefix}-${i}`));
  return count / ((performance.now() - started) / 1000);
}

/**
 * Pod creates with the default plugins against none (`policies`: with a LimitRange and a
 * ResourceQuota to apply): the median over rounds of the within-round share.
 */
export async function podCreateShare(count: number, rounds: number, policies: boolean): Promise<{ on: number; off: number; share: number }> {
  const on = await podServer({}, policies);
  const off = await podServer({ admission: [] }, policies);
  try {
    await podCreates(on, "warm", Math.min(count, 500), pod);
    await podCreates(off, "warm", Math.min(count, 500), admittedPod);
    const shares: number[] = [];
    const ons: number[] = [];
    const offs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const first = r % 2 === 0;
      const a = first ? await podCreates(on, `r${r}`, count, pod) : 0;
      const b = await podCreates(off, `r${r}`, count, admittedPod);
      const c = first ? a : await podCreates(on, `r${r}`, count, pod);
      ons.push(c);
      offs.push(b);
      shares.push(c / b);
    }
    return { on: median(ons), off: median(offs), share: median(shares) };
  } finally {
    await on.shutdown();
    await off.shutdown();
  }
}

/** A local HTTPS webhook that allows every review; answers `{ port, ca, close }`. */
async function startWebhook(): Promise<{ port: number; ca: string; server: Server }> {
  const ca = await createCertificateAuthority();
  const cert = await ca.issue({ subject: "CN=webhook", ips: ["127.0.0.1"], usage: "server" });
  const server = createServer({ key: cert.keyPem, cert: cert.certPem, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { apiVersion: string; request: { uid: string } };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: (server.address() as AddressInfo).port, ca: ca.certPem, server };
}

/** Mean microseconds of `count` sequential runs of `fn`. */
async function meanMicros(count: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await fn(i);
  return ((performance.now() - started) * 1000) / count;
}

/** The latency one matching validating webhook adds to a create, against its own round trip. */
export async function webhookOverhead(count: number, rounds: number): Promise<{ added: number; roundTrip: number; ratio: number }> {
  const webhook = await startWebhook();
  const transport = { client: httpsClient };
  const withHook = new APIServer({ admission: { plugins: ["ValidatingAdmissionWebhook"], transport } });
  const without = new APIServer({ admission: { plugins: ["ValidatingAdmissionWebhook"], transport } });
  try {
    await withHook.ready();
    await without.ready();
    await mustCall(withHook, "POST", "/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations", {
      metadata: { name: "bench" },
      webhooks: [
        {
          name: "allow.bench.orch.io",
          clientConfig: { url: `https://127.0.0.1:${webhook.port}/`, caBundle: Buffer.from(webhook.ca).toString("base64") },
          rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    });
    // The configuration takes effect through a watch: wait until a create reaches the webhook.
    let reached = false;
    webhook.server.once("request", () => (reached = true));
    for (let i = 0; !reached && i < 200; i++) {
      await mustCall(withHook, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: `probe-${i}` } });
      if (!reached) await new Promise((r) => setTimeout(r, 10));
    }
    if (!reached) throw new Error("the webhook configuration never took effect");
    const client = httpsClient({ ca: webhook.ca });
    const review = (uid: string) =>
      JSON.stringify({
        apiVersion: "admission.orch.io/v1",
        kind: "AdmissionReview",
        request: { uid, operation: "CREATE", object: { metadata: { name: uid } } },
      });
    const added: number[] = [];
    const trips: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const withMs = await meanMicros(count, (i) => mustCall(withHook, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: `w${r}-${i}` } }));
      const withoutMs = await meanMicros(count, (i) =>
        mustCall(without, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: `w${r}-${i}` } }),
      );
      const trip = await meanMicros(count, (i) =>
        client(`https://127.0.0.1:${webhook.port}/`, { method: "POST", headers: { "content-type": "application/json" }, body: review(`t${r}-${i}`) }),
      );
      added.push(withMs - withoutMs);
      trips.push(trip);
    }
    const a = median(added);
    const t = median(trips);
    return { added: a, roundTrip: t, ratio: a / t };
  } finally {
    await withHook.shutdown();
    await without.shutdown();
    webhook.server.closeAllConnections();
    await new Promise((resolve) => webhook.server.close(resolve));
  }
}

/** Both measurements, as printed lines. */
export async function admissionBenchmark(quick: boolean): Promise<string[]> {
  const creates = await podCreateShare(quick ? 1000 : 3000, quick ? 3 : 5, false);
  const charged = await podCreateShare(quick ? 1000 : 3000, quick ? 3 : 5, true);
  const hook = await webhookOverhead(quick ? 200 : 1000, quick ? 3 : 5);
  return [
    `pod creates, default plugins      ${creates.on.toFixed(0).padStart(7)} creates/s   admission off ${creates.off.toFixed(0).padStart(7)} creates/s   ` +
      `${creates.share.toFixed(2)} of it (target ≥0.8) ${creates.share >= 0.8 ? "ok" : "UNDER"}`,
    `  with a LimitRange and a quota   ${charged.on.toFixed(0).padStart(7)} creates/s   admission off ${charged.off.toFixed(0).padStart(7)} creates/s   ` +
      `${charged.share.toFixed(2)} of it (each create also writes the quota's status)`,
    `one validating webhook (HTTPS)    adds ${hook.added.toFixed(0).padStart(5)} µs per create   its own round trip ${hook.roundTrip.toFixed(0).padStart(5)} µs   ` +
      `${hook.ratio.toFixed(2)}x (target ≤2x) ${hook.ratio <= 2 ? "ok" : "OVER"}`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const line of await admissionBenchmark(process.argv.includes("--quick"))) console.log(line);
}
