/**
 * Your own kind, served beside the built-in ones: `new APIServer({ resources: [widgetType] })`
 * gives Widgets discovery, OpenAPI, the REST verbs, list and watch, server-side apply, strategic
 * merge patch on the lists the schema marks, and Table output; `client.forType(widgetType)` is a
 * client typed by the Widget's schema.
 * @module
 */
import { Client, inProcessTransport, resourceRefOf } from "@orch/client";
import { isInvalid, StatusError, type Status } from "@orch/meta";
import { APIServer } from "@orch/server";
import { pathToFileURL } from "node:url";
import { widgetType, type Widget } from "./widget.js";

/** What {@link main} found, for its test. */
export interface WidgetTour {
  /** The 422 messages of the refused widgets: a size out of range, a colour outside the enum. */
  refusals: string[];
  /** The watch events seen after the list, as `<type> <name> <phase>`. */
  events: string[];
  /** The names `fieldSelector=spec.color=blue` lists. */
  blue: string[];
  /** The parts of `large` after the strategic merge patch. */
  parts: NonNullable<Widget["spec"]>["parts"];
  /** The managers of `large`'s fields and their operations. */
  managers: string[];
}

/** Creates, refuses, watches, applies and patches Widgets through the typed client. */
export async function main(log: (line: string) => void = console.log): Promise<WidgetTour> {
  const server = new APIServer({ resources: [widgetType] });
  const client = new Client({ transport: inProcessTransport(server) });
  const widgets = client.forType(widgetType); // typed: `spec.color: "purple"` does not compile
  const ns = { namespace: "default" };
  try {
    const small = await widgets.create({ metadata: { name: "small" }, spec: { color: "red" } }, ns);
    log(`created ${small.apiVersion} ${small.kind} ${small.metadata.name}: size ${small.spec?.size} (defaulted), phase ${small.status?.phase}`);

    // The server refuses what its rules or the schema's enum refuse, with the reference's 422s.
    // An untyped client (or kubectl) can send anything: the server is where the rules hold.
    const untyped = client.resource(resourceRefOf(widgetType));
    const refusals: string[] = [];
    for (const spec of [{ color: "blue", size: 40 }, { color: "purple" }]) {
      try {
        await untyped.create({ metadata: { name: "odd" }, spec }, ns);
      } catch (error) {
        if (!isInvalid(error)) throw error;
        refusals.push(error.message);
        log(`refused: ${error.code} ${error.message}`);
      }
    }

    // A watch from the list's resourceVersion sees every later change, in order.
    const listed = await widgets.list(ns);
    const stop = new AbortController();
    const events: string[] = [];
    const watching = (async () => {
      for await (const event of widgets.watch({ ...ns, resourceVersion: listed.metadata.resourceVersion ?? "", signal: stop.signal })) {
        if (event.type === "ERROR") throw new StatusError(event.object as Status);
        const widget = event.object as Widget;
        events.push(`${event.type} ${widget.metadata.name} ${widget.status?.phase ?? ""}`.trimEnd());
        if (events.length === 2) stop.abort();
      }
    })();

    // The controller's side: only `/status` changes the status.
    await widgets.patchStatus("small", { status: { phase: "Ready" } }, "merge", ns);
    // Server-side apply: the manager owns what it applied, item by item in `parts`.
    const applied = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "large" },
      spec: { color: "blue" as const, size: 8, parts: [{ name: "bolt", count: 2 }] },
    };
    await widgets.patch("large", applied, "apply", { ...ns, fieldManager: "widget-tour" });
    await watching;
    log(`watched: ${events.join(", ")}`);

    // Strategic merge patch merges `parts` by name, as the schema's markers say.
    const patched = await widgets.patch("large", { spec: { parts: [{ name: "nut", count: 4 }] } }, "strategic", { ...ns, fieldManager: "tuner" });
    const parts = patched.spec?.parts ?? [];
    const managers = (patched.metadata.managedFields ?? []).map((entry) => `${entry.manager} ${entry.operation}`);
    log(`large: parts ${parts.map((p) => `${p.name}=${p.count}`).join(", ")}; managers ${managers.join(", ")}`);

    // Field selectors on the fields the strategy names.
    const blue = (await widgets.list({ ...ns, fieldSelector: "spec.color=blue" })).items.map((w) => w.metadata.name ?? "");
    log(`spec.color=blue: ${blue.join(", ")}`);
    return { refusals, events, blue, parts, managers };
  } finally {
    await server.shutdown();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await main();
