// Consumer test, step "README example": runs embedding.mjs (the README's embedding example) with
// plain node against the installed packages. The example's last line is documented to throw
// `StatusError` 409 Conflict (a stale update); that error is expected, any other fails the step.
// The example leaves its APIServer running, so this exits explicitly.
import { isConflict } from "@orch/meta";
import process from "node:process";
import { pathToFileURL } from "node:url";

try {
  await import(pathToFileURL("embedding.mjs").href);
  process.stdout.write("README example: ran to the end\n");
} catch (error) {
  if (!isConflict(error)) throw error;
  process.stdout.write(`README example: ran to the end; the stale update was refused as documented: ${error.code} ${error.reason}\n`);
}
process.exit(0);
