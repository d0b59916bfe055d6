import { describe, expect, it } from "vitest";
import { kubeconfigCredentials, noWebhookCredentials, webhookCredentials } from "./credentials.js";

function inline(...names: string[]) {
  return webhookCredentials("MutatingAdmissionWebhook", { credentials: names.map((name) => ({ name, token: name })) }, "orch.io", undefined);
}

describe("credentials lookup (the reference's order)", () => {
  it("a service: the exact <svc>.<ns>.svc, with :port when not 443", () => {
    const creds = inline("hook.ns.svc", "hook.ns.svc:8443", "other.ns.svc");
    expect(creds.forService("hook", "ns", 443)?.token).toBe("hook.ns.svc");
    expect(creds.forService("hook", "ns", 8443)?.token).toBe("hook.ns.svc:8443");
    expect(creds.forService("hook", "other", 443)).toBeUndefined();
  });

  it("a URL: host[:port], 443 being the default of https", () => {
    const creds = inline("hooks.example.com", "hooks.example.com:9443", "127.0.0.1:8443");
    expect(creds.forURL("https://hooks.example.com/admit")?.token).toBe("hooks.example.com");
    expect(creds.forURL("https://hooks.example.com:443/admit")?.token).toBe("hooks.example.com");
    expect(creds.forURL("https://hooks.example.com:9443/admit")?.token).toBe("hooks.example.com:9443");
    expect(creds.forURL("https://127.0.0.1:8443/")?.token).toBe("127.0.0.1:8443");
    expect(creds.forURL("https://127.0.0.1:9999/")).toBeUndefined();
  });

  it("then *.suffix wildcards, the longest first, then *", () => {
    const creds = inline("*.svc", "*.ns.svc", "*");
    expect(creds.forService("hook", "ns", 443)?.token).toBe("*.ns.svc");
    expect(creds.forService("hook", "other", 443)?.token).toBe("*.svc");
    expect(creds.forURL("https://hooks.example.com/")?.token).toBe("*");
    // With a port other than 443 the wildcard must carry it.
    expect(inline("*.ns.svc").forService("hook", "ns", 8443)).toBeUndefined();
    expect(inline("*.ns.svc:8443").forService("hook", "ns", 8443)?.token).toBe("*.ns.svc:8443");
  });

  it("no configuration: nothing is presented", () => {
    expect(webhookCredentials("MutatingAdmissionWebhook", undefined, "orch.io", undefined)).toBe(noWebhookCredentials);
    expect(noWebhookCredentials.forURL("https://a/")).toBeUndefined();
  });
});

describe("WebhookAdmissionConfiguration", () => {
  const files: Record<string, string> = {
    "/etc/orch/webhooks.kubeconfig": [
      "apiVersion: v1",
      "kind: Config",
      "users:",
      "  - name: hook.ns.svc",
      "    user:",
      "      token: secret-token",
      "  - name: '*.example.com'",
      "    user:",
      "      username: admin",
      "      password: pw",
      "  - name: mtls.ns.svc",
      "    user:",
      "      client-certificate: pki/client.crt",
      "      client-key: /abs/client.key",
      "  - name: data.ns.svc",
      "    user:",
      `      client-certificate-data: ${btoa("CERT-DATA")}`,
      `      client-key-data: ${btoa("KEY-DATA")}`,
      "  - name: default-user",
      "    user:",
      "      token: default-token",
      "contexts:",
      "  - name: default",
      "    context:",
      "      cluster: none",
      "      user: default-user",
      "current-context: default",
    ].join("\n"),
    "/etc/orch/pki/client.crt": "CERT-FILE",
    "/abs/client.key": "KEY-FILE",
  };
  const readFile = (path: string): string => {
    const text = files[path];
    if (text === undefined) throw new Error("ENOENT");
    return text;
  };
  const config = (apiVersion = "apiserver.config.orch.io/v1", kind = "WebhookAdmissionConfiguration") => ({
    apiVersion,
    kind,
    kubeConfigFile: "/etc/orch/webhooks.kubeconfig",
  });

  it("reads the kubeconfig's users: token, basic, certificate files (relative to the kubeconfig) and data", () => {
    const creds = webhookCredentials("ValidatingAdmissionWebhook", config(), "orch.io", readFile);
    expect(creds.forService("hook", "ns", 443)).toEqual({ name: "hook.ns.svc", token: "secret-token" });
    expect(creds.forURL("https://a.example.com/")).toEqual({ name: "*.example.com", username: "admin", password: "pw" });
    expect(creds.forService("mtls", "ns", 443)).toEqual({ name: "mtls.ns.svc", cert: "CERT-FILE", key: "KEY-FILE" });
    expect(creds.forService("data", "ns", 443)).toEqual({ name: "data.ns.svc", cert: "CERT-DATA", key: "KEY-DATA" });
  });

  it("falls back to the user of the current context", () => {
    const creds = webhookCredentials("ValidatingAdmissionWebhook", config(), "orch.io", readFile);
    expect(creds.forURL("https://elsewhere/")?.token).toBe("default-token");
  });

  it("accepts the superseded v1alpha1 and the domain's group", () => {
    expect(() =>
      webhookCredentials("MutatingAdmissionWebhook", config("apiserver.config.orch.io/v1alpha1", "WebhookAdmission"), "orch.io", readFile),
    ).not.toThrow();
    expect(() => webhookCredentials("MutatingAdmissionWebhook", config("apiserver.config.k8s.io/v1"), "k8s.io", readFile)).not.toThrow();
  });

  it("a bad configuration stops the construction with a clear message", () => {
    const fail =
      (configuration: unknown, read: ((p: string) => string) | null = readFile) =>
      () =>
        webhookCredentials("MutatingAdmissionWebhook", configuration, "orch.io", read ?? undefined);
    expect(fail(config("apiserver.config.k8s.io/v1"))).toThrow(
      'MutatingAdmissionWebhook configuration: apiVersion must be apiserver.config.orch.io/v1, not "apiserver.config.k8s.io/v1"',
    );
    expect(fail(config(undefined, "AdmissionConfiguration"))).toThrow('kind must be WebhookAdmissionConfiguration, not "AdmissionConfiguration"');
    expect(fail({ ...config(), kubeConfigFile: "/missing" })).toThrow("MutatingAdmissionWebhook configuration: kubeConfigFile: cannot read /missing: ENOENT");
    expect(fail(config(), null)).toThrow("cannot be read in this runtime");
    expect(fail("text")).toThrow("MutatingAdmissionWebhook configuration: not an object");
    expect(fail({ credentials: [{ name: "a", token: "t", username: "u" }] })).toThrow(
      "credentials[0]: username/password or bearer token may be set, but not both",
    );
    expect(fail({ credentials: [{ name: "a", cert: "c" }] })).toThrow("credentials[0]: a client certificate needs both the certificate and its key");
    expect(fail({ credentials: [{ token: "t" }] })).toThrow("credentials[0]: name is required");
    expect(fail({ credentials: "nope" })).toThrow("credentials must be a list");
  });

  it("a kubeconfig that cannot be used names its file", () => {
    const read = () => "";
    expect(() => kubeconfigCredentials("users: 3", "/k", read)).toThrow("kubeconfig /k: users is not a list");
    expect(() => kubeconfigCredentials("users: [{name: a, user: {exec: {command: x}}}]", "/k", read)).toThrow(
      'kubeconfig /k: user "a": exec is not supported for admission webhooks',
    );
    expect(() => kubeconfigCredentials("users: [{name: a, user: {client-certificate: c}}]", "/k", read)).toThrow(
      "a client certificate needs both the certificate and its key",
    );
    expect(() => kubeconfigCredentials("users: [{name: a, user: {client-certificate-data: '%%'}}]", "/k", read)).toThrow(
      "client-certificate-data is not base64",
    );
    expect(() => kubeconfigCredentials(": : :", "/k", read)).toThrow("kubeconfig /k: not valid YAML or JSON");
  });
});
