/**
 * A credential plugin (the `exec` entry of a kubeconfig user): an executable that prints an
 * `ExecCredential` with a token. `clientFromConfig` runs it before the first request, hands it
 * the cluster in `ORCH_EXEC_INFO` when `provideClusterInfo` is set, and keeps its answer until
 * its `expirationTimestamp` or a 401.
 * @module
 */
import { clientFromConfig } from "@orch/node";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { whoAmI } from "./kubeconfig.js";
import { serveWithTokens } from "./local-server.js";

/** The plugin: appends what it was told to `runs.log` beside it, and prints a token from `PLUGIN_TOKEN`. */
const plugin = `#!/usr/bin/env node
const { appendFileSync } = require("node:fs");
const { join } = require("node:path");
const input = JSON.parse(process.env.ORCH_EXEC_INFO);
appendFileSync(join(__dirname, "runs.log"), JSON.stringify(input.spec) + "\\n");
console.log(JSON.stringify({
  apiVersion: "client.authentication.orch.io/v1",
  kind: "ExecCredential",
  status: { token: process.env.PLUGIN_TOKEN, expirationTimestamp: new Date(Date.now() + 3600_000).toISOString() },
}));
`;

/** What {@link execPlugin} returns. */
export interface ExecPluginResult {
  /** The user the server named for the plugin's token. */
  user: string;
  /** How many times the plugin ran for the requests made. */
  runs: number;
  /** What the plugin received in `ORCH_EXEC_INFO` (`spec`). */
  input: { interactive: boolean; cluster?: { server: string; "certificate-authority-data"?: string } };
}

/** Writes a plugin and a kubeconfig that runs it, connects, and asks the server who it is. */
export async function execPlugin(log: (line: string) => void = console.log): Promise<ExecPluginResult> {
  const server = await serveWithTokens("c0ffee-plugin-token,carol,1003,ops\n");
  const dir = await mkdtemp(join(tmpdir(), "orch-exec-plugin-"));
  try {
    // CommonJS, whatever package.json is above the temp dir.
    await writeFile(join(dir, "credential-plugin.cjs"), plugin);
    await chmod(join(dir, "credential-plugin.cjs"), 0o755);
    await writeFile(
      join(dir, "config"),
      `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: ${server.url}
    certificate-authority-data: ${Buffer.from(server.caPem).toString("base64")}
users:
- name: carol
  user:
    exec:
      apiVersion: client.authentication.orch.io/v1
      command: ./credential-plugin.cjs
      env: [{name: PLUGIN_TOKEN, value: c0ffee-plugin-token}]
      interactiveMode: Never
      provideClusterInfo: true
- name: ghost
  user:
    exec:
      apiVersion: client.authentication.orch.io/v1
      command: ./not-installed
      interactiveMode: Never
      installHint: Install not-installed from your team's tools page.
contexts:
- name: carol
  context: {cluster: local, user: carol}
- name: ghost
  context: {cluster: local, user: ghost}
current-context: carol
`,
    );

    const { client, close } = await clientFromConfig({ kubeconfig: join(dir, "config") });
    let user: string;
    try {
      // Three requests at once share one run of the plugin; the next ones use its cached token.
      const [first] = await Promise.all([whoAmI(client), client.namespaces.list(), client.configMaps.list()]);
      user = first;
      await client.namespaces.get("default");
    } finally {
      close();
    }
    const runs = (await readFile(join(dir, "runs.log"), "utf8")).trim().split("\n");
    const input = JSON.parse(runs[0] ?? "{}") as ExecPluginResult["input"];
    log(`the plugin's token is ${user}'s; it ran ${runs.length} time(s) for 4 requests`);
    log(`it was told: interactive ${input.interactive}, server ${input.cluster?.server === server.url ? "the cluster's" : input.cluster?.server}`);

    // A plugin that cannot run fails the request, naming the user entry, the file and the cause.
    const ghost = await clientFromConfig({ kubeconfig: join(dir, "config"), context: "ghost" });
    await ghost.client.namespaces
      .list()
      .catch((error: Error) => log(error.message.replaceAll(dir, "<dir>")))
      .finally(ghost.close);
    return { user, runs: runs.length, input };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
