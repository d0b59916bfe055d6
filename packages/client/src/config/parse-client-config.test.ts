import { describe, expect, it } from "vitest";
import { ClientConfigError } from "./client-config-error.js";
import { parseClientConfig } from "./parse-client-config.js";
import { base64, fakePEM } from "../internal/test-pem.js";

const full = `
apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: pki/ca.crt
    tls-server-name: api.internal
    proxy-url: http://proxy:3128
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: { audience: orch }
- name: dev
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: ${base64(fakePEM("CERTIFICATE"))}
    insecure-skip-tls-verify: false
users:
- name: alice
  user:
    client-certificate: /abs/alice.crt
    client-key: ../keys/alice.key
    tokenFile: token
- name: bob
  user:
    client-certificate-data: ${base64(fakePEM("CERTIFICATE"))}
    client-key-data: ${base64(fakePEM("PRIVATE KEY"))}
    username: bob
    password: secret
- name: plugin
  user:
    exec:
      command: ./bin/get-token
      args: [--cluster, prod]
      env: [{ name: A, value: "1" }]
      apiVersion: client.authentication.k8s.io/v1
      interactiveMode: Never
      provideClusterInfo: true
      installHint: install it
- name: oidc
  user:
    auth-provider:
      name: oidc
      config: { client-id: orch, idp-issuer-url: "https://issuer" }
contexts:
- name: prod
  context: { cluster: prod, user: alice, namespace: team }
- name: anon
  context: { cluster: dev }
current-context: prod
`;

describe("parseClientConfig", () => {
  it("reads every cluster field, resolving relative paths against the file's directory and decoding data", () => {
    const config = parseClientConfig(full, "/home/me/.kube/config");
    expect(config.files).toEqual(["/home/me/.kube/config"]);
    expect(config.clusters.get("prod")).toEqual({
      name: "prod",
      source: "/home/me/.kube/config",
      server: "https://10.0.0.1:6443",
      certificateAuthority: "/home/me/.kube/pki/ca.crt",
      insecureSkipTLSVerify: false,
      tlsServerName: "api.internal",
      proxyURL: "http://proxy:3128",
      extensions: [{ name: "client.authentication.k8s.io/exec", extension: { audience: "orch" } }],
    });
    expect(config.clusters.get("dev")?.certificateAuthorityData).toBe(fakePEM("CERTIFICATE"));
  });

  it("reads users: files resolved, data decoded, basic, exec (a path command resolved) and auth-provider", () => {
    const config = parseClientConfig(full, "/home/me/.kube/config");
    expect(config.users.get("alice")).toEqual({
      name: "alice",
      source: "/home/me/.kube/config",
      clientCertificate: "/abs/alice.crt",
      clientKey: "/home/me/keys/alice.key",
      tokenFile: "/home/me/.kube/token",
    });
    expect(config.users.get("bob")).toMatchObject({
      clientCertificateData: fakePEM("CERTIFICATE"),
      clientKeyData: fakePEM("PRIVATE KEY"),
      username: "bob",
      password: "secret",
    });
    expect(config.users.get("plugin")?.exec).toEqual({
      command: "/home/me/.kube/bin/get-token",
      args: ["--cluster", "prod"],
      env: [{ name: "A", value: "1" }],
      apiVersion: "client.authentication.k8s.io/v1",
      interactiveMode: "Never",
      provideClusterInfo: true,
      installHint: "install it",
    });
    expect(config.users.get("oidc")?.authProvider).toEqual({ name: "oidc", config: { "client-id": "orch", "idp-issuer-url": "https://issuer" } });
  });

  it("leaves a bare exec command (looked up in PATH) unresolved", () => {
    const config = parseClientConfig("users: [{name: u, user: {exec: {command: orch-login, apiVersion: v}}}]", "/etc/config");
    expect(config.users.get("u")?.exec?.command).toBe("orch-login");
  });

  it("reads contexts and current-context, remembering the file", () => {
    const config = parseClientConfig(full, "/home/me/.kube/config");
    expect(config.contexts.get("prod")).toEqual({ name: "prod", source: "/home/me/.kube/config", cluster: "prod", user: "alice", namespace: "team" });
    expect(config.contexts.get("anon")).toEqual({ name: "anon", source: "/home/me/.kube/config", cluster: "dev" });
    expect(config.currentContext).toEqual({ name: "prod", source: "/home/me/.kube/config" });
  });

  it("takes JSON as well as YAML", () => {
    const config = parseClientConfig(
      JSON.stringify({ apiVersion: "v1", kind: "Config", clusters: [{ name: "c", cluster: { server: "https://h" } }] }),
      "/x.json",
    );
    expect(config.clusters.get("c")?.server).toBe("https://h");
  });

  it("resolves against a directory the caller gives instead of the file's", () => {
    const config = parseClientConfig("clusters: [{name: c, cluster: {certificate-authority: ca.crt}}]", "config", { directory: "/work" });
    expect(config.clusters.get("c")?.certificateAuthority).toBe("/work/ca.crt");
  });

  it("reads an empty file, and one without apiVersion and kind, as kubectl does", () => {
    expect(parseClientConfig("", "/e").clusters.size).toBe(0);
    expect(parseClientConfig("clusters: []", "/e").currentContext).toBeUndefined();
  });

  it("lets a later entry of the same name in one file replace an earlier one, as kubectl does", () => {
    const config = parseClientConfig("clusters: [{name: c, cluster: {server: https://one}}, {name: c, cluster: {server: https://two}}]", "/f");
    expect(config.clusters.get("c")?.server).toBe("https://two");
  });

  const failures: [string, string, RegExp][] = [
    ["text that is not YAML", "clusters: [unclosed", /^\/f: not valid YAML or JSON/],
    ["a top level that is not a mapping", "- a\n- b\n", /^\/f: not a Config: the top level is not a mapping/],
    ["another kind", "kind: Pod\napiVersion: v1\n", /^\/f: not a Config: kind is "Pod"/],
    ["another apiVersion", "kind: Config\napiVersion: v2\n", /^\/f: not a Config: apiVersion is "v2"/],
    ["a list that is not a list", "users: {}", /^\/f: users is not a list/],
    ["an entry without a name", "users: [{user: {}}]", /^\/f: users\[0\] has no name/],
    [
      "a non-boolean insecure-skip-tls-verify",
      "clusters: [{name: c, cluster: {insecure-skip-tls-verify: 'yes'}}]",
      /^cluster "c" in \/f: insecure-skip-tls-verify is not a boolean/,
    ],
    ["data that is not base64", "users: [{name: u, user: {client-key-data: '%%%'}}]", /^user "u" in \/f: client-key-data is not valid base64/],
    [
      "data that is not PEM",
      `clusters: [{name: c, cluster: {certificate-authority-data: ${base64("hello")}}}]`,
      /^cluster "c" in \/f: certificate-authority-data does not decode to PEM text/,
    ],
    ["a non-string token", "users: [{name: u, user: {token: 12}}]", /^user "u" in \/f: token is not a string/],
    ["exec env that is not a list", "users: [{name: u, user: {exec: {env: {a: b}}}}]", /^user "u" in \/f: exec: env is not a list/],
    ["an auth-provider without a name", "users: [{name: u, user: {auth-provider: {config: {}}}}]", /^user "u" in \/f: auth-provider has no name/],
    [
      "an auth-provider config value that is not a string",
      "users: [{name: u, user: {auth-provider: {name: oidc, config: {a: 1}}}}]",
      /^user "u" in \/f: auth-provider: config.a is not a string/,
    ],
  ];
  for (const [what, text, message] of failures) {
    it(`refuses ${what}, naming the file and the entry`, () => {
      let error: unknown;
      try {
        parseClientConfig(text, "/f");
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ClientConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as ClientConfigError).file).toBe("/f");
    });
  }
});
