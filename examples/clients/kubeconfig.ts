/**
 * Connecting with a client configuration file (a kubeconfig), as kubectl does:
 * `clientFromConfig` reads the files, picks the context, trusts the cluster's CA and sends the
 * user's credentials, here a token file that is re-read when it changes.
 * @module
 */
import { ClientConfigError, type Client } from "@orch/client";
import { clientFromConfig } from "@orch/node";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveWithTokens } from "./local-server.js";

/** Who `client` is to its server (a SelfSubjectReview, as `kubectl auth whoami` sends). */
export async function whoAmI(client: Client): Promise<string> {
  const review = await client.selfSubjectReviews.create({ metadata: {} });
  return review.status?.userInfo?.username ?? "";
}

const tokens = `
31ada4fd-adec-460c-809a-9e56ceb75269,alice,1001,dev
8fa3e07c-7e4b-4b1c-9d3f,bob,1002,dev
`;

/** What {@link kubeconfig} returns. */
export interface KubeconfigResult {
  /** The namespaces the client listed. */
  namespaces: string[];
  /** The context's namespace, as `clientFromConfig` answered it. */
  namespace: string;
  /** Who the server said the client was, before and after the token file changed. */
  users: string[];
}

/** Writes a kubeconfig beside a CA file and a token file, connects with it over HTTPS, and lists namespaces. */
export async function kubeconfig(log: (line: string) => void = console.log): Promise<KubeconfigResult> {
  const server = await serveWithTokens(tokens);
  const dir = await mkdtemp(join(tmpdir(), "orch-kubeconfig-"));
  try {
    await writeFile(join(dir, "ca.crt"), server.caPem);
    await writeFile(join(dir, "token"), "31ada4fd-adec-460c-809a-9e56ceb75269\n");
    // Relative paths resolve against the directory of the file that holds them.
    await writeFile(
      join(dir, "config"),
      `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: ${server.url}
    certificate-authority: ca.crt
users:
- name: alice
  user:
    tokenFile: token
contexts:
- name: dev
  context: {cluster: local, user: alice, namespace: team-a}
current-context: dev
`,
    );

    // The clock of the token file checks: the example moves it instead of sleeping.
    let now = Date.now();
    const { client, namespace, close } = await clientFromConfig({ kubeconfig: join(dir, "config"), now: () => now });
    const users: string[] = [];
    try {
      const namespaces = (await client.namespaces.list()).items.map((n) => n.metadata.name ?? "");
      log(`namespaces: ${namespaces.join(", ")}; the context's namespace: ${namespace}`);
      users.push(await whoAmI(client));

      // The token file is checked again once a second has passed, and read when it changed.
      await writeFile(join(dir, "token"), "8fa3e07c-7e4b-4b1c-9d3f\n");
      now += 1000;
      users.push(await whoAmI(client));
      log(`the token file's user: ${users.join(", then ")}`);

      // A KUBECONFIG list is merged: the first file that defines a name wins. An error names
      // the file and the entry at fault.
      await writeFile(join(dir, "broken"), "contexts:\n- name: broken\n  context: {cluster: local, user: carol}\n");
      await clientFromConfig({ env: { KUBECONFIG: `${join(dir, "config")}:${join(dir, "broken")}` }, context: "broken" }).catch((error: unknown) => {
        if (!(error instanceof ClientConfigError)) throw error;
        log(`ClientConfigError: ${error.message.replaceAll(dir, "<dir>")}`);
      });
      return { namespaces, namespace, users };
    } finally {
      close();
    }
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
