/**
 * An admission plugin of your own, in a few lines: every ConfigMap must say which team owns it
 * (a `team` label), and gets an `owner-contact` annotation from it. It runs with the default
 * plugins, after the built-in ones and before the webhooks and the quota.
 * @module
 */
import { defaultAdmissionPlugins, isResource, type AdmissionPlugin } from "@orch/admission";
import { Client, configMapsRef, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { refusal } from "./kinds.js";
import { startInProcessControllers } from "@orch/controllers";

/** Requires a `team` label on ConfigMaps and fills in the team's contact. */
export const teamLabels: AdmissionPlugin = {
  name: "TeamLabels",
  operations: ["CREATE", "UPDATE"],
  admit(attrs) {
    const team = attrs.object?.metadata.labels?.["team"];
    if (!isResource(attrs, "", "configmaps") || !team || !attrs.object) return;
    attrs.object.metadata.annotations = { ...attrs.object.metadata.annotations, "owner-contact": `${team}@example.com` };
  },
  validate(attrs) {
    if (isResource(attrs, "", "configmaps") && !attrs.object?.metadata.labels?.["team"]) throw new Error("every ConfigMap needs a team label");
  },
};

/** What the example saw. */
export interface CustomPluginResult {
  labelled: Record<string, string> | undefined;
  unlabelled: string;
}

/** Creates a labelled and an unlabelled ConfigMap. */
export async function customPlugin(log: (line: string) => void = console.log): Promise<CustomPluginResult> {
  const server = new APIServer({ admission: [...defaultAdmissionPlugins, teamLabels] });
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  try {
    const client = new Client({ transport: inProcessTransport(server) });
    const created = await client
      .resource(configMapsRef)
      .create({ metadata: { name: "settings", labels: { team: "payments" } }, data: { mode: "fast" } }, { namespace: "default" });
    log(`created settings, annotated ${JSON.stringify(created.metadata.annotations)}`);
    const unlabelled = await client
      .resource(configMapsRef)
      .create({ metadata: { name: "orphan" }, data: {} }, { namespace: "default" })
      .then(() => "created", refusal);
    log(`orphan: ${unlabelled}`);
    return { labelled: created.metadata.annotations, unlabelled };
  } finally {
    await controllers.stop();
    await server.shutdown();
  }
}
