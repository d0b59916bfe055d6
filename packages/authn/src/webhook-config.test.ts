import { describe, expect, it } from "vitest";
import { parseWebhookConfig } from "./webhook-config.js";

const caPEM = "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n";
const certPEM = "-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n";
const keyPEM = "-----BEGIN PRIVATE KEY-----\nMIGHkey\n-----END PRIVATE KEY-----\n";

/** A kubeconfig as the reference documents for `--authentication-token-webhook-config-file`. */
const documented = `
apiVersion: v1
kind: Config
clusters:
  - name: other
    cluster:
      server: https://other.example/authenticate
  - name: name-of-remote-authn-service
    cluster:
      certificate-authority: /path/to/ca.pem
      server: https://authn.example.com/authenticate
      tls-server-name: authn.internal
users:
  - name: other-user
    user:
      token: other-token
  - name: name-of-api-server
    user:
      client-certificate: certs/apiserver.pem
      client-key: certs/apiserver-key.pem
current-context: webhook
contexts:
  - context:
      cluster: name-of-remote-authn-service
      user: name-of-api-server
    name: webhook
  - context:
      cluster: other
      user: other-user
    name: other
`;

/** A kubeconfig of one cluster and one user, without contexts; `cluster` and `user` are merged in. */
function bare(cluster: Record<string, unknown>, user?: Record<string, unknown>): string {
  return JSON.stringify({
    clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:9443/", ...cluster } }],
    ...(user ? { users: [{ name: "u", user }] } : {}),
  });
}

describe("parseWebhookConfig: choosing the cluster and the user", () => {
  it("reads the cluster and user of current-context from YAML, with file paths as written", () => {
    expect(parseWebhookConfig(documented)).toStrictEqual({
      server: "https://authn.example.com/authenticate",
      certificateAuthority: { file: "/path/to/ca.pem" },
      clientCertificate: { file: "certs/apiserver.pem" },
      clientKey: { file: "certs/apiserver-key.pem" },
      insecureSkipTLSVerify: false,
      tlsServerName: "authn.internal",
    });
  });

  it("reads the same kubeconfig written as JSON", () => {
    const json = JSON.stringify({
      clusters: [{ name: "a", cluster: { server: "https://a.example/", "insecure-skip-tls-verify": true } }],
      users: [{ name: "b", user: { token: "secret" } }],
      contexts: [{ name: "x", context: { cluster: "a", user: "b" } }],
      "current-context": "x",
    });
    expect(parseWebhookConfig(json)).toStrictEqual({ server: "https://a.example/", token: "secret", insecureSkipTLSVerify: true });
  });

  it("uses the only context when current-context is absent", () => {
    const text = documented
      .replace("current-context: webhook\n", "")
      .replace("  - context:\n      cluster: other\n      user: other-user\n    name: other\n", "");
    expect(parseWebhookConfig(text).server).toBe("https://authn.example.com/authenticate");
  });

  it("uses the first cluster and the first user when there are no contexts", () => {
    const text = JSON.stringify({
      clusters: [
        { name: "one", cluster: { server: "http://one.example/" } },
        { name: "two", cluster: { server: "http://two.example/" } },
      ],
      users: [
        { name: "one", user: { token: "t1" } },
        { name: "two", user: { token: "t2" } },
      ],
    });
    expect(parseWebhookConfig(text)).toStrictEqual({ server: "http://one.example/", token: "t1", insecureSkipTLSVerify: false });
  });

  it("has no credentials when the context names no user, or there are no users", () => {
    const text = JSON.stringify({
      clusters: [{ name: "a", cluster: { server: "https://a.example/" } }],
      users: [{ name: "b", user: { token: "t" } }],
      contexts: [{ name: "x", context: { cluster: "a" } }],
    });
    expect(parseWebhookConfig(text)).toStrictEqual({ server: "https://a.example/", insecureSkipTLSVerify: false });
    expect(parseWebhookConfig(bare({}))).toStrictEqual({ server: "https://127.0.0.1:9443/", insecureSkipTLSVerify: false });
  });

  it("refuses several contexts without current-context", () => {
    expect(() => parseWebhookConfig(documented.replace("current-context: webhook\n", ""))).toThrow(
      "webhook config: there are 2 contexts and no current-context to choose one",
    );
  });

  it("refuses a current-context that names no context", () => {
    expect(() => parseWebhookConfig(documented.replace("current-context: webhook", "current-context: nope"))).toThrow(
      'webhook config: current-context "nope" names no context in contexts',
    );
  });

  it("refuses a context that names a missing cluster or a missing user", () => {
    expect(() => parseWebhookConfig(documented.replace("cluster: name-of-remote-authn-service", "cluster: gone"))).toThrow(
      'webhook config: context "webhook" names cluster "gone", which is not in clusters',
    );
    expect(() => parseWebhookConfig(documented.replace("user: name-of-api-server", "user: gone"))).toThrow(
      'webhook config: context "webhook" names user "gone", which is not in users',
    );
  });
});

describe("parseWebhookConfig: the cluster", () => {
  it("decodes certificate-authority-data to PEM text", () => {
    expect(parseWebhookConfig(bare({ "certificate-authority-data": btoa(caPEM) })).certificateAuthority).toStrictEqual({ data: caPEM });
  });

  it("decodes base64 data wrapped over several lines", () => {
    const wrapped = btoa(caPEM).replace(/(.{16})/g, "$1\n  ");
    expect(parseWebhookConfig(bare({ "certificate-authority-data": wrapped })).certificateAuthority).toStrictEqual({ data: caPEM });
  });

  it("refuses a cluster without a server", () => {
    expect(() => parseWebhookConfig(JSON.stringify({ clusters: [{ name: "c", cluster: {} }] }))).toThrow('webhook config: cluster "c" has no server');
    expect(() => parseWebhookConfig("clusters: []")).toThrow("webhook config: there is no cluster");
  });

  it.each(["/authenticate", "authn.example.com:443", "ftp://authn.example.com/", "not a url"])(
    "refuses the server %j, which is not an absolute http(s) URL",
    (server) => {
      expect(() => parseWebhookConfig(bare({ server }))).toThrow(
        `webhook config: cluster "c": server ${JSON.stringify(server)} is not an absolute http(s) URL`,
      );
    },
  );

  it("refuses certificate-authority-data that is not base64", () => {
    expect(() => parseWebhookConfig(bare({ "certificate-authority-data": "not*base64!" }))).toThrow(
      'webhook config: cluster "c": certificate-authority-data is not valid base64',
    );
  });

  it("refuses certificate-authority-data whose bytes are not PEM", () => {
    expect(() => parseWebhookConfig(bare({ "certificate-authority-data": btoa("\x30\x82\x01\xff") }))).toThrow(
      'webhook config: cluster "c": certificate-authority-data does not decode to PEM text',
    );
    expect(() => parseWebhookConfig(bare({ "certificate-authority-data": btoa("hello") }))).toThrow("does not decode to PEM text");
  });

  it("refuses a certificate authority given both as a file and as data", () => {
    expect(() => parseWebhookConfig(bare({ "certificate-authority": "ca.pem", "certificate-authority-data": btoa(caPEM) }))).toThrow(
      'webhook config: cluster "c": both certificate-authority and certificate-authority-data are set',
    );
  });

  it("refuses a certificate authority together with insecure-skip-tls-verify", () => {
    expect(() => parseWebhookConfig(bare({ "certificate-authority": "ca.pem", "insecure-skip-tls-verify": true }))).toThrow(
      "together with insecure-skip-tls-verify is not allowed",
    );
  });

  it("refuses fields of the wrong type", () => {
    expect(() => parseWebhookConfig(bare({ server: 42 }))).toThrow('webhook config: cluster "c": server is not a string');
    expect(() => parseWebhookConfig(bare({ "insecure-skip-tls-verify": "yes" }))).toThrow('cluster "c": insecure-skip-tls-verify is not a boolean');
  });
});

describe("parseWebhookConfig: the user", () => {
  it("decodes client-certificate-data and client-key-data to PEM text", () => {
    const config = parseWebhookConfig(bare({}, { "client-certificate-data": btoa(certPEM), "client-key-data": btoa(keyPEM) }));
    expect(config.clientCertificate).toStrictEqual({ data: certPEM });
    expect(config.clientKey).toStrictEqual({ data: keyPEM });
  });

  it("refuses a client certificate without its key, and a key without its certificate", () => {
    expect(() => parseWebhookConfig(bare({}, { "client-certificate": "c.pem" }))).toThrow('webhook config: user "u": client-certificate without client-key');
    expect(() => parseWebhookConfig(bare({}, { "client-key-data": btoa(keyPEM) }))).toThrow('webhook config: user "u": client-key without client-certificate');
  });

  it("refuses client-key-data that is not base64", () => {
    expect(() => parseWebhookConfig(bare({}, { "client-certificate": "c.pem", "client-key-data": "%%%" }))).toThrow(
      'user "u": client-key-data is not valid base64',
    );
  });

  it.each(["tokenFile", "exec", "auth-provider", "username"])("refuses a user credential it does not support: %s", (field) => {
    expect(() => parseWebhookConfig(bare({}, { [field]: field === "exec" ? { command: "x" } : "x" }))).toThrow(`webhook config: user "u": ${field} (`);
  });
});

describe("parseWebhookConfig: text that is not a kubeconfig", () => {
  it("refuses text that does not parse as YAML, naming the source", () => {
    expect(() => parseWebhookConfig("clusters: [\n  - name: c\n", "/etc/orch/webhook.yaml")).toThrow(
      /^webhook config \/etc\/orch\/webhook\.yaml: not valid YAML or JSON: /,
    );
    expect(() => parseWebhookConfig('{"clusters": [}')).toThrow(/^webhook config: not valid YAML or JSON: /);
  });

  it("refuses duplicate keys and several documents", () => {
    expect(() => parseWebhookConfig("kind: Config\nkind: Config\n")).toThrow(/not valid YAML or JSON/);
    expect(() => parseWebhookConfig("kind: Config\n---\nkind: Config\n")).toThrow(/not valid YAML or JSON/);
  });

  it("refuses a top level that is not a mapping, and another kind", () => {
    expect(() => parseWebhookConfig("- a\n- b\n")).toThrow("webhook config: not a kubeconfig: the top level is not a mapping");
    expect(() => parseWebhookConfig("")).toThrow("not a kubeconfig: the top level is not a mapping");
    expect(() => parseWebhookConfig("kind: AuthenticationConfiguration\n")).toThrow('not a kubeconfig: kind is "AuthenticationConfiguration", not "Config"');
  });

  it("refuses lists and entries of the wrong shape", () => {
    expect(() => parseWebhookConfig("clusters: {}\n")).toThrow("webhook config: clusters is not a list");
    expect(() => parseWebhookConfig("clusters:\n  - server: https://a/\n")).toThrow("webhook config: clusters[0] has no name");
    expect(() => parseWebhookConfig("clusters:\n  - name: a\n    cluster: [1]\n")).toThrow('webhook config: clusters[0] ("a"): cluster is not a mapping');
  });
});
