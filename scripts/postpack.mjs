// `postpack` of every package: removes the LICENSE that prepack.mjs copied in (the repository
// keeps one LICENSE, at its root).
import { rmSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

rmSync(join(process.cwd(), "LICENSE"), { force: true });
