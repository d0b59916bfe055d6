import { readFileSync } from "node:fs";
import { join } from "node:path";
import { builtinResources, type ResourceType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import * as refs from "./generated/refs.js";
import * as kindClients from "./generated/kind-clients.js";
import * as api from "./index.js";
import { resourceRefOf } from "./resource-ref.js";

/** What the generator exports, imported by path: it lives outside this package's sources (and its tsconfig). */
interface Generator {
  generatedDir: string;
  renderClientFiles(types?: readonly ResourceType[]): Map<string, string>;
  accessorName(type: ResourceType): string;
}
const script = new URL("../../../scripts/generate-client.ts", import.meta.url).pathname;
const generator = (await import(/* @vite-ignore */ script)) as Generator;

describe("the generated client", () => {
  it("is what scripts/generate-client.ts makes of the catalog now (run `pnpm run generate:client` when this fails)", () => {
    const files = generator.renderClientFiles();
    expect([...files.keys()].sort()).toEqual(["accessors.ts", "kind-clients.ts", "refs.ts"]);
    for (const [file, text] of files) expect(readFileSync(join(generator.generatedDir, file), "utf8"), file).toBe(text);
  });

  it("has a ref per kind of the catalog, at its storage version, that agrees with resourceRefOf", () => {
    const byName = refs as Record<string, unknown>;
    for (const type of builtinResources) expect(byName[`${generator.accessorName(type)}Ref`], type.resource).toEqual(resourceRefOf(type));
    expect(Object.keys(refs)).toHaveLength(builtinResources.length);
  });

  it("is exported, every ref and kind client, from the package's index", () => {
    const exported = api as Record<string, unknown>;
    for (const [name, value] of [...Object.entries(refs), ...Object.entries(kindClients)]) expect(exported[name], name).toBe(value);
    expect(exported["BuiltinAccessors"]).toBeDefined();
  });

  it("names accessors in plural camelCase after the kind", () => {
    const names = builtinResources.map((t) => generator.accessorName(t));
    expect(names).toEqual(
      expect.arrayContaining([
        "pods",
        "serviceAccounts",
        "certificateSigningRequests",
        "validatingWebhookConfigurations",
        "clusterRoleBindings",
        "csiStorageCapacities",
        "apiServices",
        "componentStatuses",
        "endpointSlices",
        // Stored as core Events, whose accessor is `events`: named behind its group.
        "eventsEvents",
      ]),
    );
  });

  it("refuses a catalog whose kinds collide on an accessor, or whose schema has no exported name", () => {
    const [first] = builtinResources;
    if (!first) throw new Error("empty catalog");
    expect(() => generator.renderClientFiles([first, { ...first, group: "other.{domain}" }])).toThrow(/both make the accessor namespaces/);
    const unnamed: ResourceType = { ...first, versions: [{ ...first.versions[0]!, schema: first.versions[0]!.schema.optional() }] };
    expect(() => generator.renderClientFiles([unnamed])).toThrow(/is not exported by @orch\/resources/);
  });
});
