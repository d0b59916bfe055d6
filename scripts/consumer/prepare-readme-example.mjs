// Consumer test, step "README example": copies the first ```ts block under the README's
// "## Embedding" heading, verbatim, to embedding.ts (type-checked by tsc in the next step) and
// its JavaScript (types stripped by the consumer's own TypeScript, `transpileModule`) to
// embedding.mjs, which run-readme-example.mjs runs. Usage: node prepare-readme-example.mjs
// <README.md> <project dir>; run from the project, whose node_modules holds typescript.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";

const [readmePath, dir] = process.argv.slice(2);
if (!readmePath || !dir) throw new Error("usage: prepare-readme-example.mjs <README.md> <project dir>");
const readme = readFileSync(readmePath, "utf8");
const section = readme.split(/^## /m).find((s) => s.startsWith("Embedding\n"));
const match = section && /^```ts\n([\s\S]*?)^```$/m.exec(section);
if (!match) throw new Error(`${readmePath}: no \`\`\`ts block under "## Embedding"`);
const source = match[1];

const ts = createRequire(join(dir, "package.json"))("typescript");
const js = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  reportDiagnostics: true,
});
if (js.diagnostics?.length) throw new Error(`the README example does not parse: ${ts.flattenDiagnosticMessageText(js.diagnostics[0].messageText, "\n")}`);
writeFileSync(join(dir, "embedding.ts"), source);
writeFileSync(join(dir, "embedding.mjs"), js.outputText);
process.stdout.write(`README example (${source.split("\n").length - 1} lines) -> embedding.ts, embedding.mjs\n`);
