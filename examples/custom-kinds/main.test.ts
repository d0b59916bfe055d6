import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "../../test/support/kubectl.js";
import { main } from "./main.js";
import { serveWidgets, type WidgetServer } from "./over-https.js";

describe("custom kinds example: Widgets through the typed client, in-process", () => {
  it("defaults, refuses with the reference's 422s, watches, applies, merges parts by name and selects by field", async () => {
    const lines: string[] = [];
    const tour = await main((line) => lines.push(line));
    expect(lines[0]).toBe("created example.com/v1 Widget small: size 1 (defaulted), phase Pending");
    expect(tour.refusals).toEqual([
      'Widget.example.com "odd" is invalid: spec.size: Invalid value: 40: must be between 1 and 10',
      'Widget.example.com "odd" is invalid: spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"',
    ]);
    expect(lines[1]).toBe(`refused: 422 ${tour.refusals[0]}`);
    expect(tour.events).toEqual(["MODIFIED small Ready", "ADDED large Pending"]);
    expect(tour.parts).toEqual([
      { name: "nut", count: 4 },
      { name: "bolt", count: 2 },
    ]);
    expect(tour.managers).toEqual(["widget-tour Apply", "tuner Update"]);
    expect(tour.blue).toEqual(["large"]);
  });
});

/** The rows of kubectl's column output: each line split on runs of two or more spaces. */
function table(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/));
}

const gizmo = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: gizmo
  namespace: default
spec:
  color: blue
  size: 3
  parts:
  - name: bolt
    count: 2
`;

describe("custom kinds example: kubectl against orch-apiserver with Widgets, over HTTPS", () => {
  let dataDir: string;
  let server: WidgetServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "orch-widgets-"));
    server = await serveWidgets(dataDir);
    kubectl = await kubectlFor(server);
  });
  afterAll(async () => {
    await kubectl?.close();
    if (server) expect(await server.stop()).toBe(0);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("apply --server-side creates a Widget; get widgets shows the Table columns, -o wide the wide ones", async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const applied = await kubectl(["apply", "--server-side", "-f", await kubectl.file("gizmo.yaml", gizmo)]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.trim()).toBe("widget.example.com/gizmo serverside-applied");

    const rows = table((await kubectl(["get", "widgets"])).stdout);
    expect(rows[0]).toEqual(["NAME", "COLOR", "SIZE", "PHASE", "AGE"]);
    expect(rows[1]?.slice(0, 4)).toEqual(["gizmo", "blue", "3", "Pending"]);
    expect(rows[1]?.[4]).toMatch(/^\d+(s|m)/);
    const wide = table((await kubectl(["get", "wd", "-o", "wide"])).stdout);
    expect(wide[0]).toEqual(["NAME", "COLOR", "SIZE", "PHASE", "PARTS", "AGE"]);
    expect(wide[1]?.slice(0, 5)).toEqual(["gizmo", "blue", "3", "Pending", "1"]);
    const blue = await kubectl(["get", "widgets", "--field-selector", "spec.color=blue", "-o", "name"]);
    expect(blue.stdout.trim()).toBe("widget.example.com/gizmo");
    const red = await kubectl(["get", "widgets", "--field-selector", "spec.color=red"]);
    expect(red.stdout).toBe("");
    expect(red.stderr.trim()).toBe("No resources found in default namespace.");
  });

  it("explain widget: the kind's schema from OpenAPI v3, its fields and the enum", async () => {
    const kind = await kubectl(["explain", "widget"]);
    expect(kind.code, kind.stderr).toBe(0);
    expect(kind.stdout).toMatch(/^GROUP:\s+example\.com\nKIND:\s+Widget\nVERSION:\s+v1\n/);
    expect(kind.stdout).toContain("Widget is an example of an embedder's own kind.");
    expect(kind.stdout).toMatch(/^ {2}spec\t<Object>$/m);
    const color = await kubectl(["explain", "widgets.spec.color"]);
    expect(color.code, color.stderr).toBe(0);
    expect(color.stdout).toMatch(/^FIELD: color <string>\nENUM:\n {4}red\n {4}green\n {4}blue\n/m);
  });

  it("refuses a colour outside the enum with the 422 kubectl prints", async () => {
    const purple = await kubectl.file("purple.yaml", gizmo.replace("name: gizmo", "name: odd").replace("color: blue", "color: purple"));
    const refused = await kubectl(["apply", "--server-side", "-f", purple]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe('The Widget "odd" is invalid: spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"');
  });
});
