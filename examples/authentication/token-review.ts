/**
 * TokenReview (`authentication.orch.io/v1` and `v1beta1`): asks the server who a bearer token
 * belongs to, through the same token authenticators a request's token goes through. A service
 * that receives tokens (a webhook of another server, an aggregated API) checks them this way.
 * @module
 */
import { parseTokenFile } from "@orch/authn";
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";

interface TokenReview {
  status: { authenticated?: boolean; user?: { username?: string; groups?: string[] }; error?: string };
}

/** Reviews a known and an unknown static token, in `v1` and in `v1beta1`. */
export async function tokenReview(log: (line: string) => void = console.log): Promise<TokenReview["status"][]> {
  const server = new APIServer({ authenticators: [parseTokenFile(`31ada4fd-adec-460c-809a-9e56ceb75269,alice,1001,dev\n`)] });
  const reviewer = new Client({ transport: inProcessTransport(server, { user: { name: "reviewer", groups: [] } }) });
  const review = (version: string, token: string) =>
    reviewer.call<TokenReview>({
      method: "POST",
      path: `/apis/authentication.orch.io/${version}/tokenreviews`,
      body: { apiVersion: `authentication.orch.io/${version}`, kind: "TokenReview", spec: { token } },
    });

  const answers: TokenReview["status"][] = [];
  for (const [version, token] of [
    ["v1", "31ada4fd-adec-460c-809a-9e56ceb75269"],
    ["v1beta1", "31ada4fd-adec-460c-809a-9e56ceb75269"],
    ["v1", "unknown"],
  ] as const) {
    const { status } = await review(version, token);
    log(
      `${version} review: authenticated ${status.authenticated ?? false}${status.user ? ` as ${status.user.username} (${status.user.groups?.join(", ")})` : ""}`,
    );
    answers.push(status);
  }
  await server.shutdown();
  return answers;
}
