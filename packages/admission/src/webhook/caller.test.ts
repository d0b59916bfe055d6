import { StatusError } from "@orch/meta";
import { configMapType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices } from "../internal/testing.js";
import { answer, fakeTransport, putWebhooks, type FakeCall, type WebhookSpec } from "../internal/webhook-testing.js";
import type { WebhookTransport } from "../plugin.js";
import { validatingAdmissionWebhook } from "./index.js";

const attrs = () =>
  attributesFor({ operation: "CREATE", type: configMapType, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "team" } } });

async function callsOf(webhooks: WebhookSpec[], configuration: unknown = undefined, resolveService?: WebhookTransport["resolveService"]) {
  const services = fakeServices();
  putWebhooks(services, "Validating", "config", webhooks);
  const transport = fakeTransport((call) => answer(call), resolveService);
  await validatingAdmissionWebhook({ services, configuration, transport }).validate?.(attrs());
  return transport;
}

describe("where and how a webhook is called", () => {
  it("a URL is used as written, with the reference's timeout parameter", async () => {
    const transport = await callsOf([{ name: "a.example.com", clientConfig: { url: "https://hooks.example.com:8443/validate" }, timeoutSeconds: 7 }]);
    expect((transport.calls[0] as FakeCall).url).toBe("https://hooks.example.com:8443/validate?timeout=7s");
    expect(transport.clientsMade).toEqual([{}]);
  });

  it("a service resolves to https://<name>.<namespace>.svc:<port><path>, verified as <name>.<namespace>.svc", async () => {
    const transport = await callsOf([{ name: "a.example.com", clientConfig: { service: { namespace: "hooks", name: "policy", path: "/check" } } }]);
    expect((transport.calls[0] as FakeCall).url).toBe("https://policy.hooks.svc:443/check?timeout=10s");
    expect((transport.calls[0] as FakeCall).tls).toEqual({ servername: "policy.hooks.svc" });
  });

  it("a service goes through the transport's resolver, still verified as the service's DNS name", async () => {
    const transport = await callsOf(
      [{ name: "a.example.com", clientConfig: { service: { namespace: "hooks", name: "policy", port: 9443 } } }],
      undefined,
      (ref) => `https://127.0.0.1:${ref.port}/`,
    );
    expect((transport.calls[0] as FakeCall).url).toBe("https://127.0.0.1:9443/?timeout=10s");
    expect((transport.calls[0] as FakeCall).tls.servername).toBe("policy.hooks.svc");
  });

  it("the CA bundle is decoded from base64 and clients are made once per TLS setting", async () => {
    const caBundle = btoa("-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
    const transport = await callsOf([
      { name: "a.example.com", clientConfig: { url: "https://a.example.com/", caBundle } },
      { name: "b.example.com", clientConfig: { url: "https://b.example.com/", caBundle } },
      { name: "c.example.com", clientConfig: { url: "https://c.example.com/" } },
    ]);
    expect(transport.calls).toHaveLength(3);
    expect(transport.clientsMade).toEqual([{ ca: "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n" }, {}]);
  });

  it("a CA bundle that is not base64 fails the call instead of trusting the system roots", async () => {
    const services = fakeServices();
    putWebhooks(services, "Validating", "config", [{ name: "a.example.com", clientConfig: { url: "https://a.example.com/", caBundle: "%%%" } }]);
    const transport = fakeTransport((call) => answer(call));
    const error: unknown = await Promise.resolve(validatingAdmissionWebhook({ services, configuration: undefined, transport }).validate?.(attrs())).catch(
      (e: unknown) => e,
    );
    expect((error as StatusError).message).toBe(
      'Internal error occurred: failed calling webhook "a.example.com": could not get REST client: clientConfig.caBundle is not base64',
    );
    expect(transport.calls).toHaveLength(0);
  });

  it("presents the host's credentials: a bearer token, basic authentication, a client certificate", async () => {
    const configuration = {
      credentials: [
        { name: "policy.hooks.svc", token: "t0ken" },
        { name: "*.example.com", username: "admin", password: "pässword" },
        { name: "mtls.example.com:8443", cert: "CERT", key: "KEY" },
      ],
    };
    const transport = await callsOf(
      [
        { name: "a.example.com", clientConfig: { service: { namespace: "hooks", name: "policy" } } },
        { name: "b.example.com", clientConfig: { url: "https://basic.example.com/" } },
        { name: "c.example.com", clientConfig: { url: "https://mtls.example.com:8443/" } },
        { name: "d.example.com", clientConfig: { url: "https://other.test/" } },
      ],
      configuration,
    );
    const byHook = new Map(transport.calls.map((c) => [new URL(c.url).hostname, c]));
    expect(byHook.get("policy.hooks.svc")?.headers["Authorization"]).toBe("Bearer t0ken");
    expect(byHook.get("basic.example.com")?.headers["Authorization"]).toBe(`Basic ${btoa("admin:p\u00c3\u00a4ssword")}`);
    expect(byHook.get("mtls.example.com")?.tls).toEqual({ cert: "CERT", key: "KEY" });
    expect(byHook.get("other.test")?.headers["Authorization"]).toBeUndefined();
  });

  it("without a transport, the call fails: a 500 under Fail, skipped under Ignore", async () => {
    for (const failurePolicy of ["Fail", "Ignore"]) {
      const services = fakeServices();
      putWebhooks(services, "Validating", "config", [{ name: "a.example.com", failurePolicy }]);
      const outcome = await Promise.resolve(validatingAdmissionWebhook({ services, configuration: undefined }).validate?.(attrs())).then(
        () => "admitted",
        (e: unknown) => (e instanceof StatusError ? e.message : String(e)),
      );
      expect(outcome).toBe(
        failurePolicy === "Fail" ? 'Internal error occurred: failed calling webhook "a.example.com": no webhook transport configured' : "admitted",
      );
    }
  });

  it("a bad plugin configuration stops the construction", () => {
    expect(() => validatingAdmissionWebhook({ services: fakeServices(), configuration: { apiVersion: "v9", kind: "WebhookAdmissionConfiguration" } })).toThrow(
      "ValidatingAdmissionWebhook configuration: apiVersion must be apiserver.config.orch.io/v1",
    );
  });
});
