/**
 * Bad credentials: every one is answered 401 `Unauthorized`, never served as anonymous, and the
 * answer never says why (the server's `log` does).
 * @module
 */
import { Client, inProcessTransport, type ResourceRef } from "@orch/client";
import { APIServer } from "@orch/server";
import { FakeClock } from "@orch/store";
import { base64url, SignJWT } from "jose";
import { whoAmI } from "./whoami.js";

const serviceAccounts: ResourceRef = { group: "", version: "v1", resource: "serviceaccounts", kind: "ServiceAccount", namespaced: true };

/** Sends ten bad `Authorization` headers; returns the status of each, and the log lines. */
export async function badCredentials(log: (line: string) => void = console.log): Promise<{ statuses: Record<string, number>; logged: string[] }> {
  const logged: string[] = [];
  const clock = new FakeClock(Date.now());
  const server = new APIServer({ clock, bootstrapTokenAuth: true, log: (line) => logged.push(line) });
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  await admin.resource(serviceAccounts).create({ metadata: { name: "builder" } }, { namespace: "default" });
  const tokenFor = async (expirationSeconds: number, audiences?: string[]) =>
    (
      await admin.call<{ status: { token: string } }>({
        method: "POST",
        path: "/api/v1/namespaces/default/serviceaccounts/builder/token",
        body: { spec: { expirationSeconds, ...(audiences ? { audiences } : {}) } },
      })
    ).status.token;

  const issuer = server.serviceAccountTokens.issuer;
  const claims = { iss: issuer, sub: "system:serviceaccount:default:builder", aud: [issuer], exp: Math.floor(clock.now() / 1000) + 600 };
  const json = (value: object) => base64url.encode(JSON.stringify(value));
  const { key, kid } = await server.serviceAccountTokens.verificationKey();
  const publicKey = new Uint8Array(await crypto.subtle.exportKey("spki", key));
  const expiring = await tokenFor(600);

  const bad: Record<string, string> = {
    "empty token": "Bearer ",
    "20 KiB token": `Bearer ${"a".repeat(20 * 1024)}`,
    "non-ASCII token": "Bearer tökén",
    "alg none": `Bearer ${json({ alg: "none", typ: "JWT" })}.${json(claims)}.`,
    "HS256 signed with the public key": `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid }).sign(publicKey)}`,
    "another audience": `Bearer ${await tokenFor(3600, ["vault"])}`,
    "malformed bootstrap token": "Bearer 07401b.short",
    "bootstrap token without its Secret": "Bearer 07401b.f395accd246ae52d",
    "unknown token": "Bearer 31ada4fd-adec-460c-809a-9e56ceb75269",
  };
  clock.advance(11 * 60_000); // past exp and the minute of leeway
  bad["expired service-account token"] = `Bearer ${expiring}`;

  const statuses: Record<string, number> = {};
  for (const [what, authorization] of Object.entries(bad)) {
    const client = new Client({ transport: inProcessTransport(server, { headers: { Authorization: authorization } }) });
    statuses[what] = await whoAmI(client).then(
      () => 201,
      (error: { code: number }) => error.code,
    );
    log(`${what}: ${statuses[what]}`);
  }
  await server.shutdown();
  return { statuses, logged };
}
