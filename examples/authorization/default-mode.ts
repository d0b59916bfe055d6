/**
 * The default of an embedded server: with no `authorization` option it is `["AlwaysAllow"]`,
 * and every caller, anonymous included, may do everything. `orch-apiserver` defaults to
 * `--authorization-mode Node,RBAC` instead; an embedder who serves untrusted callers names RBAC.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { refusal } from "./access.js";

/** An anonymous caller creates a namespace on a default server, then tries on an RBAC one. */
export async function defaultMode(log: (line: string) => void = console.log): Promise<{ open: string; rbac: string }> {
  const open = new APIServer(); // authorization: ["AlwaysAllow"]
  const created = await new Client({ transport: inProcessTransport(open) }).namespaces.create({ metadata: { name: "anyones" } });
  const openOutcome = `created ${created.metadata.name}`;
  log(`anonymous, default server: ${openOutcome}`);

  const rbac = new APIServer({ authorization: ["RBAC"] });
  await rbac.ready();
  const rbacOutcome = await new Client({ transport: inProcessTransport(rbac) }).namespaces.create({ metadata: { name: "anyones" } }).then(
    () => "created",
    (error: unknown) => refusal(error),
  );
  log(`anonymous, RBAC server: ${rbacOutcome}`);
  await Promise.all([open.shutdown(), rbac.shutdown()]);
  return { open: openOutcome, rbac: rbacOutcome };
}
