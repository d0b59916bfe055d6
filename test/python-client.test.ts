/**
 * The official Kubernetes Python client (Debian's `python3-kubernetes`, installed by
 * `scripts/ensure-python-client.sh`) against `orch-apiserver --domain k8s.io`: the unittest suite
 * of `test/python/client_e2e.py` drives the client's typed APIs of every group it knows, its YAML
 * utilities and its watch streams. A second real client, written by nobody here, beside
 * `@kubernetes/client-node` and kubectl.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";

const python = process.env.ORCH_PYTHON ?? "/usr/bin/python3";
const suite = fileURLToPath(new URL("python/client_e2e.py", import.meta.url));

interface Run {
  code: number | null;
  output: string;
}

/** Runs the Python suite against `server`, bounded to two minutes. */
function runSuite(server: RunningAPIServer): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      python,
      [suite],
      { env: { ...process.env, ORCH_KUBECONFIG: server.kubeconfigPath, PYTHONDONTWRITEBYTECODE: "1" }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe("the official Python client against orch-apiserver --domain k8s.io", () => {
  let server: RunningAPIServer;

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("passes every test of the client suite", async () => {
    const run = await runSuite(server);
    expect(run.output, run.output).toMatch(/^OK$/m);
    expect(run.code, run.output).toBe(0);
    // Every test ran (none skipped or missing): the suite's own count.
    expect(run.output).toMatch(/^Ran 1[5-9] tests in /m);
  }, 150_000);
});
