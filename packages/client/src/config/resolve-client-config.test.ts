import { describe, expect, it } from "vitest";
import { ClientConfigError } from "./client-config-error.js";
import { mergeClientConfigs } from "./merge-client-configs.js";
import { parseClientConfig } from "./parse-client-config.js";
import { resolveClientConfig, type ResolveClientConfigOptions } from "./resolve-client-config.js";
import { base64, fakePEM } from "../internal/test-pem.js";

const file = "/home/me/.kube/config";
const cert = base64(fakePEM("CERTIFICATE"));
const key = base64(fakePEM("PRIVATE KEY"));

/** A one-context config whose cluster and user bodies are `cluster` and `user` (YAML flow mappings). */
function config(cluster: string, user?: string, extra = ""): string {
  return `
clusters: [{name: c, cluster: ${cluster}}]
${user === undefined ? "" : `users: [{name: u, user: ${user}}]`}
contexts: [{name: ctx, context: {cluster: c${user === undefined ? "" : ", user: u"}}}]
current-context: ctx
${extra}`;
}

function resolve(text: string, options?: ResolveClientConfigOptions) {
  return resolveClientConfig(parseClientConfig(text, file), options);
}

function errorOf(text: string, options?: ResolveClientConfigOptions): ClientConfigError {
  try {
    resolve(text, options);
  } catch (error) {
    expect(error).toBeInstanceOf(ClientConfigError);
    return error as ClientConfigError;
  }
  throw new Error("resolved without an error");
}

describe("resolveClientConfig: selecting a context", () => {
  it("uses current-context, with namespace default when the context names none and anonymous without a user", () => {
    const resolved = resolve(config("{server: https://h:6443}"));
    expect(resolved.context.name).toBe("ctx");
    expect(resolved.namespace).toBe("default");
    expect(resolved.user).toEqual({ auth: { type: "none" } });
    expect(resolved.cluster).toEqual({ name: "c", source: file, server: "https://h:6443", insecureSkipTLSVerify: false, extensions: [] });
  });

  it("uses an explicit context over current-context, with its namespace", () => {
    const text =
      "clusters: [{name: c, cluster: {server: https://h}}]\ncontexts: [{name: ctx, context: {cluster: c}}, {name: other, context: {cluster: c, namespace: team}}]\ncurrent-context: ctx";
    const resolved = resolve(text, { context: "other" });
    expect(resolved.context.name).toBe("other");
    expect(resolved.namespace).toBe("team");
  });

  it("refuses a missing current-context, naming the files", () => {
    expect(errorOf("clusters: []").message).toBe(`${file}: no current-context is set and no context was given`);
  });

  it("refuses a current-context that names no context, naming the file that set it", () => {
    const error = errorOf("current-context: gone");
    expect(error.message).toBe(`context "gone" in ${file}: is the current-context, but no context of this name is defined`);
    expect(error.entry).toBe('context "gone"');
  });

  it("refuses an explicit context that does not exist", () => {
    expect(errorOf(config("{server: https://h}"), { context: "nope" }).message).toBe(`context "nope" in ${file}: is not defined`);
  });

  it("refuses a context without a cluster, or naming an undefined cluster or user", () => {
    expect(errorOf("contexts: [{name: x, context: {}}]\ncurrent-context: x").message).toBe(`context "x" in ${file}: names no cluster`);
    expect(errorOf("contexts: [{name: x, context: {cluster: nope}}]\ncurrent-context: x").message).toBe(
      `context "x" in ${file}: cluster "nope" is not defined`,
    );
    expect(
      errorOf("clusters: [{name: c, cluster: {server: https://h}}]\ncontexts: [{name: x, context: {cluster: c, user: nobody}}]\ncurrent-context: x").message,
    ).toBe(`context "x" in ${file}: user "nobody" is not defined`);
  });

  it("names the file of each entry after a merge", () => {
    const a = parseClientConfig("contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x", "/a/config");
    const b = parseClientConfig("clusters: [{name: c, cluster: {server: https://h}}]\nusers: [{name: u, user: {client-certificate: u.crt}}]", "/b/config");
    expect(() => resolveClientConfig(mergeClientConfigs([a, b]))).toThrow('user "u" in /b/config: client-certificate without client-key');
  });
});

describe("resolveClientConfig: the cluster", () => {
  it("gives the server, a CA file or data, the TLS server name and the proxy URL", () => {
    const resolved = resolve(config("{server: https://h, certificate-authority: ca.crt, tls-server-name: api, proxy-url: 'http://p:3128'}"));
    expect(resolved.cluster).toMatchObject({
      server: "https://h",
      certificateAuthority: { path: "/home/me/.kube/ca.crt" },
      tlsServerName: "api",
      proxyURL: "http://p:3128",
    });
    expect(resolve(config(`{server: https://h, certificate-authority-data: ${cert}}`)).cluster.certificateAuthority).toEqual({ pem: fakePEM("CERTIFICATE") });
  });

  it("adds https:// to a server without a scheme, as kubectl does", () => {
    expect(resolve(config("{server: '10.0.0.1:6443'}")).cluster.server).toBe("https://10.0.0.1:6443");
  });

  it("allows insecure-skip-tls-verify without a CA", () => {
    expect(resolve(config("{server: https://h, insecure-skip-tls-verify: true}")).cluster.insecureSkipTLSVerify).toBe(true);
  });

  const refusals: [string, string, string][] = [
    ["a cluster without a server", "{certificate-authority: ca.crt}", "has no server"],
    ["a server that is not an http(s) URL", "{server: 'ftp://h'}", 'server "ftp://h" is not an http(s) URL'],
    [
      "both a CA file and CA data",
      `{server: https://h, certificate-authority: ca.crt, certificate-authority-data: ${cert}}`,
      "both certificate-authority and certificate-authority-data are set",
    ],
    [
      "a CA together with insecure-skip-tls-verify (kubectl refuses)",
      "{server: https://h, certificate-authority: ca.crt, insecure-skip-tls-verify: true}",
      "a certificate authority together with insecure-skip-tls-verify is not allowed",
    ],
    ["a proxy-url that is not a proxy URL", "{server: https://h, proxy-url: 'ftp://p'}", 'proxy-url "ftp://p" is not an http, https or socks5 URL'],
  ];
  for (const [what, cluster, message] of refusals) {
    it(`refuses ${what}, naming the cluster and the file`, () => {
      expect(errorOf(config(cluster)).message).toBe(`cluster "c" in ${file}: ${message}`);
    });
  }
});

describe("resolveClientConfig: the user", () => {
  const server = "{server: https://h}";

  it("gives a client certificate from files or data", () => {
    expect(resolve(config(server, "{client-certificate: u.crt, client-key: /k/u.key}")).user).toEqual({
      name: "u",
      source: file,
      clientCertificate: { certificate: { path: "/home/me/.kube/u.crt" }, key: { path: "/k/u.key" } },
      auth: { type: "none" },
    });
    expect(resolve(config(server, `{client-certificate-data: ${cert}, client-key-data: ${key}}`)).user.clientCertificate).toEqual({
      certificate: { pem: fakePEM("CERTIFICATE") },
      key: { pem: fakePEM("PRIVATE KEY") },
    });
  });

  it("gives a token, a token file, or basic credentials", () => {
    expect(resolve(config(server, "{token: abc}")).user.auth).toEqual({ type: "token", token: "abc" });
    expect(resolve(config(server, "{tokenFile: tok}")).user.auth).toEqual({ type: "tokenFile", path: "/home/me/.kube/tok" });
    expect(resolve(config(server, "{username: u, password: p}")).user.auth).toEqual({ type: "basic", username: "u", password: "p" });
  });

  it("lets token win over tokenFile, as kubectl does", () => {
    expect(resolve(config(server, "{token: abc, tokenFile: tok}")).user.auth).toEqual({ type: "token", token: "abc" });
  });

  it("combines a client certificate with a token", () => {
    const user = resolve(config(server, `{token: abc, client-certificate-data: ${cert}, client-key-data: ${key}}`)).user;
    expect(user.auth.type).toBe("token");
    expect(user.clientCertificate).toBeDefined();
  });

  it("checks exec into an ExecConfig, defaulting interactiveMode to IfAvailable before v1", () => {
    const auth = resolve(config(server, "{exec: {command: login, apiVersion: client.authentication.k8s.io/v1beta1, args: [a], env: [{name: X, value: y}]}}"))
      .user.auth;
    expect(auth).toEqual({
      type: "exec",
      exec: {
        command: "login",
        args: ["a"],
        env: [{ name: "X", value: "y" }],
        apiVersion: "client.authentication.k8s.io/v1beta1",
        provideClusterInfo: false,
        interactiveMode: "IfAvailable",
      },
    });
    const v1 = resolve(config(server, "{exec: {command: login, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Always}}")).user.auth;
    expect(v1).toMatchObject({ type: "exec", exec: { interactiveMode: "Always" } });
  });

  it("gives an auth-provider as an AuthProviderConfig", () => {
    expect(resolve(config(server, "{auth-provider: {name: oidc, config: {client-id: x}}}")).user.auth).toEqual({
      type: "authProvider",
      authProvider: { name: "oidc", config: { "client-id": "x" } },
    });
  });

  const refusals: [string, string, string][] = [
    ["a certificate without a key", "{client-certificate: u.crt}", "client-certificate without client-key"],
    ["a key without a certificate", `{client-key-data: ${key}}`, "client-key without client-certificate"],
    [
      "both a certificate file and data",
      `{client-certificate: u.crt, client-certificate-data: ${cert}, client-key: k}`,
      "both client-certificate and client-certificate-data are set",
    ],
    ["both a key file and data", `{client-certificate: u.crt, client-key: k, client-key-data: ${key}}`, "both client-key and client-key-data are set"],
    ["a token with basic credentials", "{token: t, username: u}", "a token and a username or password may not both be set"],
    ["a token file with basic credentials", "{tokenFile: t, password: p}", "a token and a username or password may not both be set"],
    ["exec together with auth-provider", "{exec: {command: c, apiVersion: v}, auth-provider: {name: oidc}}", "exec and auth-provider may not both be set"],
    ["exec without a command", "{exec: {apiVersion: v}}", "exec: command is required"],
    ["exec without an apiVersion", "{exec: {command: c}}", "exec: apiVersion is required"],
    ["exec with an unnamed env variable", "{exec: {command: c, apiVersion: v, env: [{value: x}]}}", "exec: every env variable needs a name"],
    [
      "exec v1 without interactiveMode",
      "{exec: {command: c, apiVersion: client.authentication.k8s.io/v1}}",
      "exec: interactiveMode is required with apiVersion client.authentication.k8s.io/v1 (Never, IfAvailable or Always)",
    ],
    [
      "exec with an unknown interactiveMode",
      "{exec: {command: c, apiVersion: v, interactiveMode: Sometimes}}",
      'exec: interactiveMode "Sometimes" is not Never, IfAvailable or Always',
    ],
  ];
  for (const [what, user, message] of refusals) {
    it(`refuses ${what}, naming the user and the file`, () => {
      expect(errorOf(config(server, user)).message).toBe(`user "u" in ${file}: ${message}`);
    });
  }

  it("checks only the context in use: a broken user elsewhere does not matter", () => {
    const text = `${config(server)}\nusers: [{name: broken, user: {client-certificate: x}}]`;
    expect(resolve(text).cluster.server).toBe("https://h");
  });
});
