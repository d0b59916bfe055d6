// Whether the workspace's built dist is current: every package's `tsc -b` build is newer than
// its sources and config. The bin (and the benchmarks) then run the compiled JavaScript, as a
// published install does, instead of the sources through tsx.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { URL, fileURLToPath } from "node:url";

/** The newest modification time of a file under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    latest = Math.max(latest, item.isDirectory() ? newest(path) : statSync(path).mtimeMs);
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
      const built = statSync(join(dir, "tsconfig.tsbuildinfo")).mtimeMs;
      const changed = Math.max(newest(join(dir, "src")), statSync(join(dir, "package.json")).mtimeMs, statSync(join(dir, "tsconfig.json")).mtimeMs);
      if (changed > built) return false;
    }
    return true;
  } catch {
    return false;
  }
}
