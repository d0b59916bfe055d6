// @ts-check
/**
 * The TypeDoc plugin of the docs site (`typedoc.json` loads it). It makes one site out of the
 * entry points, the guides and the package READMEs:
 *
 * - every entry point module is named by its import name (`@orch/store/testing`, not
 *   `store/src/testing`), read from its package's `package.json` `exports`;
 * - the module of a package's main entry point shows the package's README (its first heading
 *   dropped: the page has the title already), and links to that README, from the guides or other
 *   READMEs, lead to the module's page;
 * - every guide (`projectDocuments`) is titled by its first `# ` heading, and the guides are
 *   ordered as `docs/README.md` lists them (that index first).
 */
import { readFileSync } from "node:fs";
import { cwd } from "node:process";
import { basename, dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { Converter, MinimalSourceFile, ReflectionKind } from "typedoc";

/**
 * The package directory, the import name and the README of an entry point file, when it is the
 * `@orch/source` target of one of its package's exports.
 * @param {string} fileName
 */
export function entryPointOf(fileName) {
  const match = /^(.*\/packages\/[^/]+)\/(src\/.*)$/.exec(fileName.replaceAll("\\", "/"));
  if (!match) return undefined;
  const [, packageDir = "", inPackage] = match;
  /** @type {{ name: string, exports?: Record<string, Record<string, string>> }} */
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
    if (conditions["@orch/source"] !== `./${inPackage}`) continue;
    const name = subpath === "." ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, "")}`;
    return { packageDir, name, readme: subpath === "." ? join(packageDir, "README.md") : undefined };
  }
  return undefined;
}

/** @param {string} text */
function firstHeading(text) {
  return /^# (.+)$/m.exec(text)?.[1]?.trim();
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return;
    const symbol = context.getSymbolFromReflection(reflection);
    const file = symbol?.declarations?.find((d) => ts.isSourceFile(d));
    const entry = file && entryPointOf(file.fileName);
    if (!entry) return;
    reflection.name = entry.name;
    if (!entry.readme) return;
    let text;
    try {
      text = readFileSync(entry.readme, "utf8");
    } catch {
      app.logger.warn(`${entry.name} has no README.md in ${relative(cwd(), entry.packageDir)}`);
      return;
    }
    const withoutTitle = text.replace(/^# .*\n/, "");
    const { content } = app.converter.parseRawComment(new MinimalSourceFile(withoutTitle, resolve(entry.readme)), context.project.files);
    reflection.readme = content;
    context.project.files.registerReflectionPath(/** @type {never} */ (resolve(entry.readme)), reflection);
  });

  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document) => {
    const path = document.project.files.getReflectionPath(document);
    if (!path) return;
    const title = firstHeading(readFileSync(path, "utf8"));
    if (title) document.name = title;
  });

  // Guides in the order of the index (docs/README.md), the index first, unlisted ones last.
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    const documents = project.documents;
    if (!documents?.length) return;
    const pathOf = (/** @type {import("typedoc").DocumentReflection} */ d) => project.files.getReflectionPath(d) ?? "";
    const index = documents.find((d) => basename(pathOf(d)) === "README.md");
    if (!index) return;
    const indexPath = pathOf(index);
    const listed = [...readFileSync(indexPath, "utf8").matchAll(/\]\(([^)#\s]+\.md)[^)]*\)/g)].map((m) => resolve(dirname(indexPath), m[1] ?? ""));
    const rank = (/** @type {import("typedoc").DocumentReflection} */ d) => {
      if (d === index) return -1;
      const at = listed.indexOf(resolve(pathOf(d)));
      return at === -1 ? listed.length : at;
    };
    const sorted = [...documents].sort((a, b) => rank(a) - rank(b));
    project.documents = sorted;
    if (project.childrenIncludingDocuments) {
      const others = project.childrenIncludingDocuments.filter((c) => !c.isDocument());
      project.childrenIncludingDocuments = [...sorted, ...others];
    }
  });
}
