// Starts a command of this package. A published install imports the built dist. Inside the
// workspace (the TypeScript sources sit beside this file) it imports the dist too when `tsc -b`
// built every package after its last source change (it starts in about half the time), and
// otherwise runs the sources through tsx under the `@orch/source` export condition.
//
// In the workspace the hooks are registered in this process (`module.register`), which starts
// about 150 ms faster than re-executing node with `--conditions=@orch/source --import tsx`; the
// re-exec remains as the fallback for a Node without `module.register` (before 20.6).
import { existsSync } from "node:fs";
import * as nodeModule from "node:module";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";
import { builtAfterSources } from "./built.js";

/**
 * Runs command `name`: `runDist()` (which imports the built entry and runs it), or the
 * TypeScript entry `source` (a file name under `src/`) through tsx.
 * @param {string} name the command, for error messages
 * @param {string} source the TypeScript entry under `src/`, e.g. `bin.ts`
 * @param {() => Promise<unknown>} runDist imports and runs the built entry
 */
export async function launch(name, source, runDist) {
  const entry = new URL(`../src/${source}`, import.meta.url);

  if (!existsSync(fileURLToPath(entry)) || builtAfterSources()) {
    await runDist();
  } else if (typeof nodeModule.register === "function") {
    const { register: registerTsx } = await import("tsx/esm/api");
    registerTsx();
    // Registered after tsx, so it runs first and hands tsx the extra condition.
    nodeModule.register("./source-condition.js", import.meta.url);
    await import(entry.href);
  } else {
    const { spawn } = await import("node:child_process");
    const child = spawn(
      process.execPath,
      [...process.execArgv, "--conditions=@orch/source", "--import", import.meta.resolve("tsx"), fileURLToPath(entry), ...process.argv.slice(2)],
      { stdio: "inherit" },
    );
    const signals = ["SIGTERM", "SIGINT", "SIGHUP"];
    const forward = (signal) => {
      // A terminal's Ctrl-C reaches the child directly too; it treats a repeat as the same request.
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const signal of signals) process.on(signal, forward);
    child.on("error", (error) => {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(1);
    });
    child.on("exit", (code, signal) => {
      if (code !== null) process.exit(code);
      // Die of the same signal, so that the caller sees what the child saw.
      for (const s of signals) process.off(s, forward);
      process.kill(process.pid, signal ?? "SIGTERM");
    });
  }
}
