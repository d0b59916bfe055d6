/**
 * The docs site and the markdown it is made of: `typedoc` builds the site (guides, package
 * READMEs, API reference) with every link validated; every relative link of the guides and
 * READMEs names a file that exists, and a `#anchor` a heading of it; and nothing in the tree
 * points at documents outside the repository.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { builtinResources } from "@orch/resources";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const typedocBin = join(root, "node_modules/typedoc/bin/typedoc");

/** The markdown users read: the root README, the guides, and every package README. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(root, "docs", f));
  const packages = readdirSync(join(root, "packages"))
    .map((p) => join(root, "packages", p, "README.md"))
    .filter((f) => existsSync(f));
  return [join(root, "README.md"), ...docs, ...packages];
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a markdown file's headings, with GitHub's `-1`, `-2` for repeats. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? "");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The targets of a markdown file's inline links, outside code blocks and code spans. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, "utf8")
    .replace(/^\s*```[\s\S]*?^\s*```/gm, "")
    .replace(/`[^`\n]*`/g, "``");
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? "");
}

/** Every file under `dir` (skipping installed, built and generated trees). */
function filesUnder(dir: string): string[] {
  const skip = new Set(["node_modules", "dist", "api", "coverage", ".tsout", ".orch"]);
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (skip.has(name) || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (!name.endsWith(".tsbuildinfo")) out.push(path);
  }
  return out;
}

describe("the docs site", () => {
  it("builds with typedoc, with no broken link, missing file or undocumented export", async () => {
    const out = mkdtempSync(join(tmpdir(), "orch-docs-"));
    try {
      const run = await new Promise<{ code: number; output: string }>((done) => {
        execFile(
          process.execPath,
          [typedocBin, "--out", out, "--treatValidationWarningsAsErrors", "--logLevel", "Warn"],
          { cwd: root, timeout: 170_000, maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) => done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr }),
        );
      });
      // eslint-disable-next-line no-control-regex -- ANSI colour codes
      expect(run.output.replace(/\x1b\[[0-9;]*m/g, ""), "typedoc output").not.toMatch(/\[(warning|error)\]/);
      expect(run.code, run.output).toBe(0);
      // One site: the guides as documents, every package as a module named by its import name.
      expect(existsSync(join(out, "index.html"))).toBe(true);
      expect(existsSync(join(out, "documents", "Testing_with_orch.html"))).toBe(true);
      expect(readFileSync(join(out, "modules", "_orch_store_testing.html"), "utf8")).toContain("@orch/store/testing");
      expect(readFileSync(join(out, "modules", "_orch_merge.html"), "utf8")).toContain("server-side apply");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("the markdown of the repository", () => {
  it("links only to files that exist, and to headings that exist", () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      for (const link of linksOf(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // not relative; the next test bounds these
        const [path = "", anchor] = link.split("#");
        const target = path === "" ? file : resolve(dirname(file), decodeURI(path));
        const where = `${relative(root, file)}: ${link}`;
        if (!existsSync(target)) broken.push(`${where} (no such file)`);
        else if (anchor && target.endsWith(".md") && !anchorsOf(target).has(anchor)) broken.push(`${where} (no such heading)`);
        else if (!target.startsWith(root) || relative(root, target).startsWith("..")) broken.push(`${where} (outside the repository)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("links to no web page but the project's own reference material", () => {
    const external = markdownFiles().flatMap((file) =>
      linksOf(file)
        .filter((link) => /^https?:/i.test(link))
        .map((link) => `${relative(root, file)}: ${link}`),
    );
    expect(external).toEqual([]);
  });
});

describe("the README of @orch/resources", () => {
  it("lists every kind of the catalog, by group, and counts them", () => {
    const readme = readFileSync(join(root, "packages/resources/README.md"), "utf8");
    const catalog = readme.slice(readme.indexOf("## The catalog"));
    const listed = new Map<string, string[]>();
    for (const [, group = "", kinds = ""] of catalog.matchAll(/^\| (core|`[^`]+`)[^|]*\| ([^|]+) \|$/gm)) {
      listed.set(
        group === "core" ? "" : group.slice(1, -1),
        kinds
          .split(",")
          .map((k) => k.trim())
          .sort(),
      );
    }
    const actual = new Map<string, string[]>();
    for (const type of builtinResources) actual.set(type.group, [...(actual.get(type.group) ?? []), type.kind].sort());
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(actual));
    expect(catalog).toContain(`${builtinResources.length} kinds in ${actual.size} groups`);
  });
});

describe("the tree", () => {
  it("points at no document outside the repository", () => {
    // Built from parts so that this file does not match itself.
    const outside = [["..", "shared", ""].join("/"), ["gaps", "md"].join("."), ["architecture", "md"].join("."), ["design", "conventions.md"].join("/")];
    const dirs = ["packages", "docs", "examples", "bench", "test", "scripts"].map((d) => join(root, d));
    const files = [...dirs.flatMap(filesUnder), ...["README.md", "eslint.config.js", "vitest.config.ts", "typedoc.json"].map((f) => join(root, f))];
    const found = files.flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return outside.filter((s) => text.includes(s)).map((s) => `${relative(root, file)}: ${s}`);
    });
    expect(found).toEqual([]);
  });
});
