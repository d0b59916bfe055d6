import "reflect-metadata";
import { FakeClock } from "@orch/store";
import { beforeAll, describe, expect, it } from "vitest";
import { AuthenticationError, type AuthenticationRequest, type Authenticator } from "./authenticator.js";
import { certificateAuthority, clientCertificate, testNow, type Issued } from "./internal/test-pki.js";
import { requestHeaderAuthenticator, type RequestHeaderAuthenticatorOptions } from "./request-header-authenticator.js";

let proxyCA: Issued;
let clientCA: Issued;
let proxy: Issued;
let otherProxy: Issued;
let client: Issued;

beforeAll(async () => {
  proxyCA = await certificateAuthority("CN=front-proxy-ca");
  clientCA = await certificateAuthority("CN=client-ca");
  proxy = await clientCertificate(proxyCA, "CN=front-proxy-client");
  otherProxy = await clientCertificate(proxyCA, "CN=someone-else");
  client = await clientCertificate(clientCA, "CN=front-proxy-client");
});

function authenticator(overrides: Partial<RequestHeaderAuthenticatorOptions> = {}): Authenticator {
  return requestHeaderAuthenticator({
    clientCA: proxyCA.pem,
    allowedNames: ["front-proxy-client"],
    usernameHeaders: ["X-Remote-User"],
    uidHeaders: ["X-Remote-Uid"],
    groupHeaders: ["X-Remote-Group"],
    extraHeaderPrefixes: ["X-Remote-Extra-"],
    clock: new FakeClock(testNow),
    ...overrides,
  });
}

/** A request with the proxy's claims for alice and an unrelated header. */
function claims(...peerCertificates: Uint8Array[]): AuthenticationRequest & { headers: Headers } {
  const headers = new Headers([
    ["X-Remote-User", "alice"],
    ["X-Remote-Uid", "alice-uid"],
    ["X-Remote-Group", "dev"],
    ["X-Remote-Group", "ops"],
    ["X-Remote-Extra-Scopes", "read"],
    ["x-remote-extra-scopes", "write"],
    ["X-Remote-Extra-Acme.com%2Fproject", "p1"],
    ["Accept", "application/json"],
  ]);
  return { headers, peerCertificates };
}

/** The headers left after authentication: none of the proxy's. */
const remaining = (headers: Headers) => [...headers.keys()];

describe("requestHeaderAuthenticator", () => {
  it("authenticates the user named by a verified, allowed proxy, with uid, groups and extra", async () => {
    const request = claims(proxy.der);
    expect(await authenticator().authenticate(request)).toEqual({
      user: { name: "alice", uid: "alice-uid", groups: ["dev", "ops"], extra: { scopes: ["read", "write"], "acme.com/project": ["p1"] } },
    });
    expect(remaining(request.headers)).toEqual(["accept"]);
  });

  it("strips the headers and has no opinion when there is no peer certificate", async () => {
    const request = claims();
    expect(await authenticator().authenticate(request)).toBeUndefined();
    expect(remaining(request.headers)).toEqual(["accept"]);
    const withoutField = { headers: new Headers({ "X-Remote-User": "alice" }) };
    expect(await authenticator().authenticate(withoutField)).toBeUndefined();
    expect(remaining(withoutField.headers)).toEqual([]);
  });

  it("strips the headers and refuses a certificate from another CA", async () => {
    const request = claims(client.der);
    const result = authenticator().authenticate(request);
    await expect(result).rejects.toBeInstanceOf(AuthenticationError);
    await expect(result).rejects.toThrow(
      /^request-header: verifying client certificate SN=\d+, SKID=, AKID= failed: x509: certificate signed by unknown authority$/,
    );
    expect(remaining(request.headers)).toEqual(["accept"]);
  });

  it("strips the headers and refuses a proxy whose common name is not allowed", async () => {
    const request = claims(otherProxy.der);
    await expect(authenticator().authenticate(request)).rejects.toThrow('request-header: client certificate CN "someone-else" is not allowed');
    expect(remaining(request.headers)).toEqual(["accept"]);
  });

  it("accepts any proxy of its CA when allowedNames is empty or absent", async () => {
    expect((await authenticator({ allowedNames: [] }).authenticate(claims(otherProxy.der)))?.user.name).toBe("alice");
    const withoutAllowedNames = requestHeaderAuthenticator({ clientCA: proxyCA.pem, usernameHeaders: ["X-Remote-User"], clock: new FakeClock(testNow) });
    expect((await withoutAllowedNames.authenticate(claims(otherProxy.der)))?.user.name).toBe("alice");
  });

  it("strips the headers and refuses an expired proxy certificate", async () => {
    const expired = await clientCertificate(proxyCA, "CN=front-proxy-client", {
      notBefore: new Date(Date.UTC(2020, 0, 1)),
      notAfter: new Date(Date.UTC(2021, 0, 1)),
    });
    const request = claims(expired.der);
    await expect(authenticator().authenticate(request)).rejects.toThrow(/x509: certificate has expired or is not yet valid/);
    expect(remaining(request.headers)).toEqual(["accept"]);
  });

  it("has no opinion when a verified proxy names no user, and still strips the other headers", async () => {
    const request = { headers: new Headers({ "X-Remote-User": "", "X-Remote-Group": "dev", "X-Remote-Extra-A": "b" }), peerCertificates: [proxy.der] };
    expect(await authenticator().authenticate(request)).toBeUndefined();
    expect(remaining(request.headers)).toEqual([]);
  });

  it("takes the first non-empty username and uid header in order", async () => {
    const auth = authenticator({ usernameHeaders: ["X-User-A", "X-User-B", "X-User-C"], uidHeaders: ["X-Uid-A", "X-Uid-B"] });
    const request = {
      headers: new Headers({ "X-User-A": "", "X-User-B": "bob", "X-User-C": "carol", "X-Uid-B": "u-2" }),
      peerCertificates: [proxy.der],
    };
    expect(await auth.authenticate(request)).toEqual({ user: { name: "bob", uid: "u-2", groups: [] } });
    expect(remaining(request.headers)).toEqual([]);
  });

  it("omits uid and extra when the proxy sends none", async () => {
    const request = { headers: new Headers({ "X-Remote-User": "alice" }), peerCertificates: [proxy.der] };
    expect(await authenticator().authenticate(request)).toEqual({ user: { name: "alice", groups: [] } });
  });

  it("collects the groups of every group header, repeated or comma-joined, trimmed, without empties", async () => {
    const auth = authenticator({ groupHeaders: ["X-Remote-Group", "X-Other-Group"] });
    const headers = new Headers([
      ["X-Remote-User", "alice"],
      ["X-Remote-Group", "a"],
      ["X-Remote-Group", "b, c"],
      ["X-Remote-Group", ""],
      ["X-Other-Group", " d "],
    ]);
    expect((await auth.authenticate({ headers, peerCertificates: [proxy.der] }))?.user.groups).toEqual(["a", "b", "c", "d"]);
    expect(remaining(headers)).toEqual([]);
  });

  it("decodes extra keys: lower-cased, percent-decoded, kept raw when the escape is bad, per prefix case-insensitively", async () => {
    const auth = authenticator({ extraHeaderPrefixes: ["x-remote-extra-", "X-Second-"] });
    const headers = new Headers([
      ["X-Remote-User", "alice"],
      ["X-Remote-Extra-Example.COM%2fKey", "v1"],
      ["X-Remote-Extra-Bad%zzEscape", "v2"],
      ["X-Remote-Extra-Upper%4B", "v3"],
      ["X-Remote-Extra-Empty", ""],
      ["X-Second-Scopes", "s1, s2"],
      ["X-Remote-Extra-__proto__", "p"],
    ]);
    const user = (await auth.authenticate({ headers, peerCertificates: [proxy.der] }))?.user;
    expect(user?.extra).toEqual({ "example.com/key": ["v1"], "bad%zzescape": ["v2"], upperK: ["v3"], scopes: ["s1", "s2"], ["__proto__"]: ["p"] });
    expect(Object.getPrototypeOf(user?.extra)).toBe(Object.prototype);
    expect(remaining(headers)).toEqual([]);
  });

  it("keeps headers it was not configured for", async () => {
    const headers = new Headers({ "X-Remote-User": "alice", "X-Remote-Userx": "kept", Authorization: "Bearer t", "X-Remote-Extr": "kept" });
    await authenticator().authenticate({ headers, peerCertificates: [proxy.der] });
    expect(remaining(headers)).toEqual(["authorization", "x-remote-extr", "x-remote-userx"]);
  });

  it("refuses bad configuration at construction", () => {
    expect(() => authenticator({ usernameHeaders: [] })).toThrow(/at least one header/);
    expect(() => authenticator({ usernameHeaders: [" "] })).toThrow(/usernameHeaders: " " is not a header name/);
    expect(() => authenticator({ groupHeaders: ["X Group"] })).toThrow(/groupHeaders/);
    expect(() => authenticator({ clientCA: "" })).toThrow(/no PEM CERTIFICATE block/);
  });
});
