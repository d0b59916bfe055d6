// Whether the workspace's built dist is current: every package's build (`tsconfig.build.json`,
// which `tsc -b` at the root builds along with the type check of the tests) is newer than its
// sources and its tsconfig.build.json. The bin (and the benchmarks) then run the compiled
// JavaScript, as a published install does, instead of the sources through tsx.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { URL, fileURLToPath } from "node:url";

/**
 * Files the build leaves out (the `exclude` of every `tsconfig.build.json`): tests, benchmarks,
 * test helpers and test data. Changing one does not make the dist stale.
 */
const testOnly = [
  /\.(test|bench)\.ts$/,
  /[\\/]internal[\\/](testing[^\\/]*|test-[^\\/]*|[^\\/]*-testing|[^\\/]*-fixtures|fake-[^\\/]*|connect-proxy)\.ts$/,
  /[\\/]testdata[\\/]/,
];

/** The newest modification time of a file under `dir` that the build compiles. */
function newest(dir) {
  let latest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) latest = Math.max(latest, newest(path));
    else if (!testOnly.some((re) => re.test(path))) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

/** True when every workspace package's build (`tsc -b`) is newer than its sources and config. */
export function builtAfterSources() {
  const packages = fileURLToPath(new URL("../../", import.meta.url));
  try {
    for (const name of readdirSync(packages)) {
      const dir = join(packages, name);
      if (!existsSync(join(dir, "src"))) continue;
      const built = statSync(join(dir, "dist", "tsconfig.build.tsbuildinfo")).mtimeMs;
      // Not package.json: `tsc -b` does not rebuild when only it changes, and the dist does not depend on it.
      const changed = Math.max(newest(join(dir, "src")), statSync(join(dir, "tsconfig.build.json")).mtimeMs);
      if (changed > built) return false;
    }
    return true;
  } catch {
    return false;
  }
}
