// `pnpm run pack`: one tarball per workspace package in dist/tarballs/, as a registry would
// serve them. A clean build first (every package's dist removed, then `tsc -b
// tsconfig.build.json`, so no output of a deleted source is packed), then `pnpm -r pack`, which
// runs each package's prepack (build check, LICENSE) and turns `workspace:*` into versions.
// Checked: every package a built file imports is declared; every tarball has LICENSE, README.md
// and CHANGELOG.md, no tests, test helpers or build info, and no `workspace:` range left.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "dist", "tarballs");
const say = (line) => process.stdout.write(`pack: ${line}\n`);

function run(command, args, options = {}) {
  say(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.status !== 0) {
    process.stderr.write(`pack: ${command} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})\n`);
    process.exit(1);
  }
}

const packages = readdirSync(join(root, "packages")).filter((d) => existsSync(join(root, "packages", d, "package.json")));

say(`removing the dist of ${packages.length} packages`);
for (const name of packages) rmSync(join(root, "packages", name, "dist"), { recursive: true, force: true });
run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b", "tsconfig.build.json"]);

// Every package a built file imports is declared (dependencies or peerDependencies): with a
// strict installer nothing else resolves. The bin's launcher imports tsx only in the workspace.
const workspaceOnly = new Set(["tsx"]);
const walk = (dir) =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)])) : [];
const undeclared = [];
for (const name of packages) {
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const declared = new Set([manifest.name, ...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  for (const file of [...walk(join(dir, "dist")), ...walk(join(dir, "bin"))].filter((f) => /\.(js|d\.ts)$/.test(f))) {
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"'./][^"']*)["']/g)) {
      if (specifier.startsWith("node:")) continue;
      const dependency = specifier
        .split("/")
        .slice(0, specifier.startsWith("@") ? 2 : 1)
        .join("/");
      if (!declared.has(dependency) && !workspaceOnly.has(dependency))
        undeclared.push(`${manifest.name}: ${file.slice(dir.length + 1)} imports ${dependency}, not a dependency`);
    }
  }
}
if (undeclared.length > 0) {
  process.stderr.write(`pack: undeclared imports:\n${[...new Set(undeclared)].map((u) => `  ${u}\n`).join("")}`);
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The pnpm running this script (`pnpm run pack`), else the one the README uses.
const execPath = process.env["npm_execpath"] ?? "";
const [pnpm, ...pnpmArgs] = /pnpm/.test(execPath) ? (execPath.endsWith("js") ? [process.execPath, execPath] : [execPath]) : ["npx", "-y", "pnpm@10"];
run(pnpm, [...pnpmArgs, "-r", "--workspace-concurrency=1", "pack", "--pack-destination", out]);

// Checks of every tarball.
const testOnly = [
  /\.(test|bench)\./,
  /\/internal\/(testing[^/]*|test-[^/]*|[^/]*-testing|[^/]*-fixtures|fake-[^/]*|connect-proxy)\./,
  /\/testdata\//,
  /\.tsbuildinfo$/,
  /^package\/src\//,
];
const tarballs = readdirSync(out)
  .filter((f) => f.endsWith(".tgz"))
  .sort();
const problems = [];
for (const tarball of tarballs) {
  const path = join(out, tarball);
  const list = spawnSync("tar", ["-tzf", path], { encoding: "utf8" });
  const files = list.stdout.split("\n").filter(Boolean);
  const manifest = JSON.parse(spawnSync("tar", ["-xzOf", path, "package/package.json"], { encoding: "utf8", maxBuffer: 1 << 24 }).stdout);
  const required = ["package/LICENSE", "package/CHANGELOG.md", "package/package.json"];
  if (existsSync(join(root, "packages", manifest.repository?.directory?.replace(/^packages\//, "") ?? "", "README.md"))) required.push("package/README.md");
  for (const file of required) if (!files.includes(file)) problems.push(`${tarball}: no ${file}`);
  for (const file of files) if (testOnly.some((re) => re.test(file))) problems.push(`${tarball}: ships ${file}`);
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {}))
      if (String(range).startsWith("workspace:")) problems.push(`${tarball}: ${field}.${dep} is ${range}`);
  }
  say(`${tarball}: ${files.length} files`);
}
if (tarballs.length !== packages.length) problems.push(`${tarballs.length} tarballs for ${packages.length} packages`);
if (problems.length > 0) {
  process.stderr.write(`pack: ${problems.length} problems:\n${problems.map((p) => `  ${p}\n`).join("")}`);
  process.exit(1);
}
say(`${tarballs.length} tarballs in ${out}`);
