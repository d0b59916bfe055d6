/**
 * The `orch-apiserver` bin as users run it: the workspace link, spawned as a process, against
 * the real `APIServer`. Only what holds for any server is asserted here: it starts, TLS and the
 * admin client certificate work, a response arrives, SIGTERM ends it with code 0.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../../../node_modules/.bin/orch-apiserver", import.meta.url));

let dir: string;
let child: ChildProcess;
let stdout = "";
let stderr = "";
let url = "";
let kubeconfig = "";
let startupMs = 0;
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-bin-"));
  const started = performance.now();
  child = spawn(bin, ["--secure-port", "0", "--data-dir", dir], { stdio: ["ignore", "pipe", "pipe"] });
  exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
      const match = /^orch-apiserver ready url=(\S+) kubeconfig=(\S+)\n/.exec(stdout);
      if (match) {
        url = match[1]!;
        kubeconfig = match[2]!;
        resolve();
      }
    });
    void exited.then(({ code }) => reject(new Error(`orch-apiserver exited with ${code} before ready: ${stderr}`)));
    setTimeout(() => reject(new Error(`orch-apiserver not ready in 20 s: ${stderr}`)), 20_000).unref();
  });
  await ready;
  startupMs = performance.now() - started;
}, 30_000);

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGKILL");
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe("orch-apiserver", () => {
  it("prints the ready line with an HTTPS loopback url and the absolute kubeconfig path", () => {
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(kubeconfig).toBe(join(dir, "kubeconfig"));
    // Startup is measured here and reported; the bound only catches a hang, not a slowdown.
    console.log(`orch-apiserver ready in ${startupMs.toFixed(0)} ms`);
    expect(startupMs).toBeLessThan(20_000);
  });

  it("answers over TLS a client holding the admin certificate", async () => {
    const [ca, cert, key] = await Promise.all(["ca.crt", "admin.crt", "admin.key"].map((f) => readFile(join(dir, f), "utf8")));
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(`${url}/version`, { ca, cert, key, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.end();
    });
    expect(status).toBeGreaterThanOrEqual(100);
  });

  it("lets kubectl connect with the kubeconfig (TLS and the client certificate work)", async () => {
    const result = await new Promise<{ stderr: string; code: number }>((resolve) => {
      execFile("kubectl", ["version", "--kubeconfig", kubeconfig, "--request-timeout=5s", "-o", "json"], { timeout: 20_000 }, (error, _out, err) =>
        resolve({ stderr: err, code: typeof error?.code === "number" ? error.code : 0 }),
      );
    });
    expect(result.stderr).not.toMatch(/x509|certificate|tls:|handshake|connection refused|Unable to connect/i);
  });

  it("exits 0 on SIGTERM, having printed nothing but the ready line", async () => {
    child.kill("SIGTERM");
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(stdout).toBe(`orch-apiserver ready url=${url} kubeconfig=${kubeconfig}\n`);
  });
});
