/**
 * The admission webhook plugins over real TLS: local `node:https` webhook servers on 127.0.0.1,
 * reached through `httpsClient` of `@orch/node` as the plugins' transport, by URL (a serving
 * certificate for 127.0.0.1) and by service reference (resolved to the loopback server, its
 * certificate checked against `<name>.<namespace>.svc`). Every failure a webhook can cause is
 * checked under both failure policies.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin, type ServiceResolver } from "@orch/admission";
import { StatusError, type APIObject } from "@orch/meta";
import { httpsClient } from "@orch/node";
import { configMapType } from "@orch/resources";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attributesFor, fakeServices, type FakeServices } from "../packages/admission/src/internal/testing.js";
import { encodePatch, putWebhooks, type WebhookSpec } from "../packages/admission/src/internal/webhook-testing.js";
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from "../packages/admission/src/webhook/index.js";
import { certificateAuthority, issue } from "../packages/authn/src/internal/test-pki.js";
import { clientCertificate, selfSignedCA, servingCertificate, type Issued } from "../packages/node/src/internal/test-pki.js";

/** What a webhook server saw of one request. */
interface Seen {
  server: "url" | "service";
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  clientCN: string | undefined;
  review: { apiVersion: string; request: { uid: string; dryRun: boolean; object: APIObject | null } };
}

type Reply = { status?: number; body: unknown; delayMs?: number };

const servers: Server[] = [];
const seen: Seen[] = [];
let ca: Issued;
let otherCA: Issued;
let apiserverClient: Issued;
let serviceCA: string;
let urlBase: string;
let servicePort: number;
let refusedPort: number;

const allow = (review: Seen["review"], response: Record<string, unknown> = {}): Reply => ({
  body: { apiVersion: review.apiVersion, kind: "AdmissionReview", response: { uid: review.request.uid, allowed: true, ...response } },
});
const patch = (review: Seen["review"], operations: unknown[]): Reply => allow(review, { patchType: "JSONPatch", patch: encodePatch(operations) });

/** The webhooks the servers play, by path. */
const routes: Record<string, (review: Seen["review"]) => Reply> = {
  "/allow": (r) => allow(r),
  "/label": (r) => patch(r, [{ op: "add", path: "/metadata/labels", value: { webhook: "yes" } }]),
  "/deny": (r) => allow(r, { allowed: false, status: { code: 422, reason: "Invalid", message: "no config maps today" } }),
  "/not-json": () => ({ body: "<html>not json</html>" }),
  "/v1beta1": (r) => ({ body: { apiVersion: "admission.orch.io/v1beta1", kind: "AdmissionReview", response: { uid: r.request.uid, allowed: true } } }),
  "/uid": (r) => ({ body: { apiVersion: r.apiVersion, kind: "AdmissionReview", response: { uid: "not-the-request", allowed: true } } }),
  "/merge-patch": (r) => allow(r, { patchType: "MergePatch", patch: Buffer.from('{"data":{"b":"2"}}').toString("base64") }),
  "/schema": (r) => patch(r, [{ op: "replace", path: "/data", value: 42 }]),
  "/500": () => ({ status: 500, body: "internal trouble" }),
  "/slow": (r) => ({ ...allow(r), delayMs: 1500 }),
  // Reinvocation: `if-needed` records whether it saw `later`'s change; `later` adds it.
  "/if-needed": (r) =>
    patch(r, [{ op: "add", path: "/data/sawLater", value: String((r.request.object?.["data"] as Record<string, string>)["later"] === "yes") }]),
  "/later": (r) => patch(r, [{ op: "add", path: "/data/later", value: "yes" }]),
};

function handler(server: Seen["server"]) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "https://webhook");
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Seen["review"];
      const cn: unknown = (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
      seen.push({ server, path: url.pathname, query: url.search, headers: req.headers, clientCN: typeof cn === "string" ? cn : undefined, review });
      const reply = (routes[url.pathname] ?? ((r) => allow(r)))(review);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { "content-type": "application/json" });
        res.end(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  };
}

async function listen(options: Parameters<typeof createServer>[0], server: Seen["server"]): Promise<number> {
  const s = createServer(options, handler(server));
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  return (s.address() as AddressInfo).port;
}

function pem(label: string, der: ArrayBuffer): string {
  const lines =
    Buffer.from(der)
      .toString("base64")
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

beforeAll(async () => {
  ca = await selfSignedCA("CN=webhook-ca");
  otherCA = await selfSignedCA("CN=other-ca");
  apiserverClient = await clientCertificate(ca, "CN=orch-apiserver");
  const serving = await servingCertificate(ca);
  urlBase = `https://127.0.0.1:${await listen({ key: serving.key, cert: serving.cert, ca: ca.cert, requestCert: true, rejectUnauthorized: false }, "url")}`;

  // The service's certificate names only the service's DNS name (as its common name).
  const svcCA = await certificateAuthority("CN=service-ca");
  const svc = await issue("CN=hook.webhooks.svc", svcCA, {});
  serviceCA = svcCA.pem;
  servicePort = await listen({ key: pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", svc.keys.privateKey)), cert: svc.pem }, "service");

  const closed = createServer({ key: serving.key, cert: serving.cert });
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  refusedPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

const caBundle = (pemText: string) => Buffer.from(pemText).toString("base64");
const resolveService: ServiceResolver = (ref) => `https://127.0.0.1:${ref.namespace === "webhooks" ? servicePort : refusedPort}`;

function plugin(kind: "Mutating" | "Validating", webhooks: WebhookSpec[], configuration?: unknown): { plugin: AdmissionPlugin; services: FakeServices } {
  const services = fakeServices();
  putWebhooks(services, kind, "config", webhooks);
  const context = { services, configuration, transport: { client: httpsClient, resolveService } };
  return { plugin: kind === "Mutating" ? mutatingAdmissionWebhook(context) : validatingAdmissionWebhook(context), services };
}

/** A webhook at `path` of the URL server, trusting its CA. */
function atURL(name: string, path: string, extra: Record<string, unknown> = {}): WebhookSpec {
  return { name, clientConfig: { url: `${urlBase}${path}`, caBundle: caBundle(ca.cert) }, ...extra };
}

const configMap = (): APIObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "team" }, data: { a: "1" } });
const create = (dryRun = false): AdmissionAttributes => attributesFor({ operation: "CREATE", type: configMapType, object: configMap(), dryRun });

/** The Status a step refused with, or "admitted". */
async function outcome(step: Promise<void> | void | undefined): Promise<StatusError | "admitted"> {
  try {
    await step;
    return "admitted";
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
}

function seenSince(before: number): Seen[] {
  return seen.slice(before);
}

describe("admission webhooks over TLS", () => {
  it("a mutating webhook's JSON patch is applied; the review is POSTed as JSON with the timeout parameter", async () => {
    const before = seen.length;
    const { plugin: p } = plugin("Mutating", [atURL("label.example.com", "/label")]);
    const attrs = create();
    expect(await outcome(p.admit?.(attrs))).toBe("admitted");
    expect(attrs.object?.metadata.labels).toEqual({ webhook: "yes" });
    const [request] = seenSince(before);
    expect(request?.query).toBe("?timeout=10s");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["accept"]).toBe("application/json");
    expect(request?.review.apiVersion).toBe("admission.orch.io/v1");
    expect(request?.review.request.object).toEqual(configMap());
  }, 10_000);

  it("a validating webhook's denial carries its code and message", async () => {
    const { plugin: p } = plugin("Validating", [atURL("deny.example.com", "/deny"), atURL("allow.example.com", "/allow")]);
    const result = await outcome(p.validate?.(create()));
    expect(result).toBeInstanceOf(StatusError);
    expect((result as StatusError).status).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: 'admission webhook "deny.example.com" denied the request: no config maps today',
    });
  }, 10_000);

  it("the webhook's certificate must chain to the caBundle: another CA or none (the system roots) fails", async () => {
    for (const clientConfig of [{ url: `${urlBase}/allow`, caBundle: caBundle(otherCA.cert) }, { url: `${urlBase}/allow` }]) {
      const failing = await outcome(plugin("Validating", [{ name: "tls.example.com", clientConfig }]).plugin.validate?.(create()));
      expect((failing as StatusError).code).toBe(500);
      expect((failing as StatusError).message).toContain(
        `failed calling webhook "tls.example.com": failed to call webhook: Post "${urlBase}/allow?timeout=10s": `,
      );
      expect(await outcome(plugin("Validating", [{ name: "tls.example.com", clientConfig, failurePolicy: "Ignore" }]).plugin.validate?.(create()))).toBe(
        "admitted",
      );
    }
  }, 10_000);

  it("a service reference is resolved through the transport and its certificate checked for <name>.<namespace>.svc", async () => {
    const before = seen.length;
    const good = { name: "svc.example.com", clientConfig: { service: { namespace: "webhooks", name: "hook", path: "/label" }, caBundle: caBundle(serviceCA) } };
    const attrs = create();
    expect(await outcome(plugin("Mutating", [good]).plugin.admit?.(attrs))).toBe("admitted");
    expect(attrs.object?.metadata.labels).toEqual({ webhook: "yes" });
    expect(seenSince(before).map((s) => [s.server, s.path])).toEqual([["service", "/label"]]);

    // The same server under another service name: its certificate does not name it.
    const wrongName = {
      name: "svc.example.com",
      clientConfig: { service: { namespace: "webhooks", name: "other", path: "/allow" }, caBundle: caBundle(serviceCA) },
    };
    const failing = await outcome(plugin("Validating", [wrongName]).plugin.validate?.(create()));
    expect((failing as StatusError).message).toContain("other.webhooks.svc");
  }, 10_000);

  it("presents the credentials of the webhook's host: a bearer token to a service, a client certificate to a URL", async () => {
    const before = seen.length;
    const configuration = {
      credentials: [
        { name: "hook.webhooks.svc", token: "s3cret" },
        { name: `127.0.0.1:${new URL(urlBase).port}`, cert: apiserverClient.cert, key: apiserverClient.key },
      ],
    };
    const hooks = [
      { name: "svc.example.com", clientConfig: { service: { namespace: "webhooks", name: "hook", path: "/allow" }, caBundle: caBundle(serviceCA) } },
      atURL("url.example.com", "/allow"),
    ];
    expect(await outcome(plugin("Validating", hooks, configuration).plugin.validate?.(create()))).toBe("admitted");
    const bySever = new Map(seenSince(before).map((s) => [s.server, s]));
    expect(bySever.get("service")?.headers["authorization"]).toBe("Bearer s3cret");
    expect(bySever.get("url")?.headers["authorization"]).toBeUndefined();
    expect(bySever.get("url")?.clientCN).toBe("orch-apiserver");
  }, 10_000);

  describe("failures under failurePolicy Fail (500) and Ignore (skipped, logged)", () => {
    // Specs and causes are made when the test runs: the servers' ports are known only then.
    const cases: [string, () => WebhookSpec, () => string][] = [
      ["a body that is not JSON", () => atURL("bad.example.com", "/not-json"), () => "failed to call webhook: the response is not JSON: "],
      [
        "an AdmissionReview of another version",
        () => atURL("bad.example.com", "/v1beta1"),
        () =>
          "received invalid webhook response: expected webhook response of admission.orch.io/v1, Kind=AdmissionReview, got admission.orch.io/v1beta1, Kind=AdmissionReview",
      ],
      ["a response for another uid", () => atURL("bad.example.com", "/uid"), () => 'received invalid webhook response: expected response.uid="'],
      ["a patch that is not a JSON patch", () => atURL("bad.example.com", "/merge-patch"), () => 'unsupported patch type "MergePatch"'],
      ["a patch that breaks the schema", () => atURL("bad.example.com", "/schema"), () => "the patched object is not a valid ConfigMap v1: data: "],
      ["an HTTP 500", () => atURL("bad.example.com", "/500"), () => "failed to call webhook: the server responded with HTTP 500: internal trouble"],
      [
        "a refused connection",
        () => ({ name: "bad.example.com", clientConfig: { url: `https://127.0.0.1:${refusedPort}/`, caBundle: caBundle(ca.cert) } }),
        () => `failed to call webhook: Post "https://127.0.0.1:${refusedPort}/?timeout=10s": connect ECONNREFUSED`,
      ],
      [
        "an answer slower than timeoutSeconds",
        () => atURL("bad.example.com", "/slow", { timeoutSeconds: 1 }),
        () => `failed to call webhook: Post "${urlBase}/slow?timeout=1s": context deadline exceeded`,
      ],
    ];

    for (const [what, spec, cause] of cases) {
      it(
        what,
        async () => {
          const started = Date.now();
          const failing = await outcome(plugin("Mutating", [spec()]).plugin.admit?.(create()));
          expect(failing).toBeInstanceOf(StatusError);
          expect((failing as StatusError).status).toMatchObject({ code: 500, reason: "InternalError" });
          expect((failing as StatusError).message).toContain(`Internal error occurred: failed calling webhook "bad.example.com": ${cause()}`);

          const { plugin: ignoring, services } = plugin("Mutating", [{ ...spec(), failurePolicy: "Ignore" }, atURL("label.example.com", "/label")]);
          const attrs = create();
          expect(await outcome(ignoring.admit?.(attrs))).toBe("admitted");
          expect(attrs.object?.["data"]).toEqual({ a: "1" });
          expect(attrs.object?.metadata.labels).toEqual({ webhook: "yes" });
          expect(services.logged.join("\n")).toContain(`failed calling webhook "bad.example.com", failing open: ${cause()}`);
          // Two calls of at most timeoutSeconds each, never the slow server's 1.5 s.
          expect(Date.now() - started).toBeLessThan(2 * 1400);
        },
        10_000,
      );
    }
  });

  it("dry run: a webhook with sideEffects Unknown is not called and refuses with a 400; one with None is called with dryRun true", async () => {
    const before = seen.length;
    const unknown = await outcome(plugin("Validating", [atURL("unknown.example.com", "/allow", { sideEffects: "Unknown" })]).plugin.validate?.(create(true)));
    expect((unknown as StatusError).status).toMatchObject({
      code: 400,
      reason: "BadRequest",
      message: 'admission webhook "unknown.example.com" does not support dry run',
    });
    expect(seenSince(before)).toEqual([]);

    expect(await outcome(plugin("Mutating", [atURL("none.example.com", "/label", { sideEffects: "None" })]).plugin.admit?.(create(true)))).toBe("admitted");
    expect(seenSince(before).map((s) => s.review.request.dryRun)).toEqual([true]);
  }, 10_000);

  it("reinvocation: an IfNeeded webhook is called again after a later webhook changed the object, and sees the change", async () => {
    const before = seen.length;
    const { plugin: p } = plugin("Mutating", [
      atURL("a-if-needed.example.com", "/if-needed", { reinvocationPolicy: "IfNeeded" }),
      atURL("b-later.example.com", "/later"),
    ]);
    const attrs = create();
    await new AdmissionChain([p]).admit(attrs);
    expect(seenSince(before).map((s) => s.path)).toEqual(["/if-needed", "/later", "/if-needed"]);
    expect(attrs.object?.["data"]).toEqual({ a: "1", later: "yes", sawLater: "true" });
  }, 10_000);
});
