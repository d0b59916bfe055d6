// `prepack` of every package (run by `pnpm pack` and `pnpm publish` in the package's directory):
// builds the package with `tsc -b tsconfig.build.json` (incremental: its references first, and
// nothing when the dist is current), copies the repository's LICENSE in (postpack.mjs removes it
// again), and checks that every file `exports` and `bin` name exists, so that no tarball ships
// without its dist. `pnpm run pack` at the root cleans every dist before, so no stale output of
// a deleted source is packed.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dir = process.cwd();
const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
const say = (line) => process.stdout.write(`prepack ${manifest.name}: ${line}\n`);

say("tsc -b tsconfig.build.json");
const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-b", "tsconfig.build.json"], { cwd: dir, stdio: "inherit" });
if (tsc.status !== 0) {
  process.stderr.write(`prepack ${manifest.name}: the build failed\n`);
  process.exit(tsc.status ?? 1);
}

copyFileSync(join(root, "LICENSE"), join(dir, "LICENSE"));
say("copied LICENSE");

/** Every file path in an `exports` (or `bin`) value, whatever its conditions. */
function targets(value) {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([condition, v]) => (condition === "@orch/source" ? [] : targets(v)));
}
const missing = [...targets(manifest.exports), ...targets(manifest.bin)].filter((file) => !existsSync(join(dir, file)));
if (missing.length > 0) {
  process.stderr.write(`prepack ${manifest.name}: missing after the build: ${missing.join(", ")}\n`);
  process.exit(1);
}
