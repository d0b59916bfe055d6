/**
 * "Who am I?" for the authentication examples: a SelfSubjectReview
 * (`authentication.orch.io/v1`, what `kubectl auth whoami` sends) answers the caller as the
 * server authenticated it, in-process through `@orch/client` or over HTTPS through `node:https`.
 * @module
 */
import type { Client, ResourceRef } from "@orch/client";
import { request } from "node:https";

/** The caller as a SelfSubjectReview reports it (`status.userInfo`). */
export interface ReviewedUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** Where SelfSubjectReviews are created (`{domain}` is the client's domain). */
export const selfSubjectReviews: ResourceRef = {
  group: "authentication.{domain}",
  version: "v1",
  resource: "selfsubjectreviews",
  kind: "SelfSubjectReview",
  namespaced: false,
};

/** Who `client` is to its server. Throws the server's `StatusError` (401 for a refused credential). */
export async function whoAmI(client: Client): Promise<ReviewedUser> {
  const review = await client.resource(selfSubjectReviews).create({ metadata: {} });
  return (review as { status?: { userInfo?: ReviewedUser } }).status?.userInfo ?? {};
}

/** TLS material and headers of {@link whoAmIOverHTTPS}. */
export interface HTTPSCaller {
  /** The CA that verifies the server. */
  ca: string;
  /** A client certificate and its key, PEM. */
  cert?: string;
  key?: string;
  /** Further request headers (`Authorization`, a proxy's `X-Remote-User`). */
  headers?: Record<string, string>;
}

/** Posts a SelfSubjectReview to `url` over HTTPS: the status code, and the user when it is 201. */
export function whoAmIOverHTTPS(url: string, caller: HTTPSCaller): Promise<{ status: number; user?: ReviewedUser }> {
  const body = JSON.stringify({ apiVersion: "authentication.orch.io/v1", kind: "SelfSubjectReview" });
  const tls = { ca: caller.ca, ...(caller.cert && caller.key ? { cert: caller.cert, key: caller.key } : {}) };
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/apis/authentication.orch.io/v1/selfsubjectreviews`,
      { method: "POST", ...tls, agent: false, headers: { "content-type": "application/json", ...caller.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          const answer = JSON.parse(Buffer.concat(chunks).toString()) as { status?: { userInfo?: ReviewedUser } };
          resolve(status === 201 ? { status, user: answer.status?.userInfo ?? {} } : { status });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
