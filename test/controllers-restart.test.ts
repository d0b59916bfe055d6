/**
 * `orch-controller-manager` as operators run it, beside an `orch-apiserver` on a real etcd that
 * leaves the manager's loops to it: the garbage collector keeps working across a restart of the
 * API server (its informers relist and rewatch, its Lease is renewed again), and of two managers
 * on one kubeconfig only the holder of the Lease runs the loops, the other taking over once the
 * holder stops.
 *
 * Every wait is bounded; the hooks and tests together are bounded by their timeouts (at most
 * 60 + 60 + 20 + 90 + 90 s, about 40 s in practice), and afterAll stops every process started here.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { until } from "./support/authorization.js";
import { startEtcd, type EtcdCluster } from "./support/etcd.js";

const controllerManagerBin = fileURLToPath(new URL("../node_modules/.bin/orch-controller-manager", import.meta.url));

/** The loops of `orch-controller-manager` that the API server must not run as well. */
const serverFlags = ["--controllers=-garbagecollector,-csrapproving,-csrsigning,-csrcleaner,-pvc-protection,-pv-protection"];

const leasePath = "/apis/coordination.orch.io/v1/namespaces/orch-system/leases/orch-controller-manager";

interface ConfigMap {
  metadata: { name: string; uid: string; deletionTimestamp?: string; finalizers?: string[] };
}

interface Lease {
  spec?: { holderIdentity?: string; leaseTransitions?: number };
}

/** Polls `check` (a failed check, e.g. while the server restarts, counts as false) until it holds; fails after `ms`, naming `what`. */
const eventually = (what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> =>
  until(
    () => check().catch(() => false),
    () => what,
    ms,
  );

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A spawned `orch-controller-manager`. */
interface Manager {
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Its exit, once it exited. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** SIGTERM, SIGKILL after 10 s; resolves with how it exited. Calling it again returns the same promise. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `orch-controller-manager --kubeconfig <kubeconfig>` and waits (20 s at most) for its ready line. */
async function startManager(kubeconfig: string, started: Manager[]): Promise<Manager> {
  const child: ChildProcessWithoutNullStreams = spawn(controllerManagerBin, ["--kubeconfig", kubeconfig], { stdio: ["pipe", "pipe", "pipe"] });
  child.stdin.end();
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve((exitInfo = { code, signal }))),
  );
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  let stopping: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  const manager: Manager = {
    stderr: () => stderr,
    exit: () => exitInfo,
    stop: () =>
      (stopping ??= (async () => {
        if (exitInfo) return exitInfo;
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
        try {
          return await exited;
        } finally {
          clearTimeout(killer);
        }
      })()),
  };
  started.push(manager);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`orch-controller-manager not ready in 20 s: ${stderr}`)), 20_000);
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
      if (stdout.includes("\n")) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`orch-controller-manager exited with ${code}: ${stderr}`));
    });
  });
  expect(stdout).toBe("orch-controller-manager ready\n");
  return manager;
}

/** How many times `manager` logged that it deletes ConfigMap `default/<name>`. */
function deletions(manager: Manager, name: string): number {
  return manager
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith(`orch-controller-manager: garbagecollector: deleting ConfigMap default/${name} (`)).length;
}

/** The lines a manager writes in this file: its deletions, its informers' failed lists and watches (an outage of the server), and the notice of a CSR signer without a CA (at each term of leadership). */
const expectedLine =
  /^orch-controller-manager: (garbagecollector: deleting ConfigMap default\/\S+ \(Background\): .*|informer of \S+: .*|csrsigning: no cluster signing CA was given: not signing certificate requests)$/;

/** The lines of `text` a manager is not expected to write (errors of its loops or of its election among them). */
function unexpectedLines(text: string): string[] {
  return text.split("\n").filter((line) => line !== "" && !expectedLine.test(line));
}

describe("orch-controller-manager against an orch-apiserver on etcd that restarts", () => {
  let etcd: EtcdCluster;
  let dataDir: string;
  let server: RunningAPIServer;
  const servers: RunningAPIServer[] = [];
  const managers: Manager[] = [];
  let first: Manager;

  const startServer = async (securePort = 0): Promise<RunningAPIServer> => {
    const started = await startAPIServer({ dataDir, securePort, flags: ["--etcd-servers", etcd.endpoints.join(","), ...serverFlags] });
    servers.push(started);
    return started;
  };

  const request = (method: string, path: string, body?: unknown) =>
    adminRequest(server, {
      method,
      path,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });

  /** Creates ConfigMap `owner` and two ConfigMaps it owns (`<owner>-a`, `<owner>-b`) in `default`. */
  const ownerWithDependents = async (owner: string, blockOwnerDeletion = false): Promise<void> => {
    const created = await request("POST", "/api/v1/namespaces/default/configmaps", { apiVersion: "v1", kind: "ConfigMap", metadata: { name: owner } });
    expect(created.status, created.text).toBe(201);
    const uid = (created.json as ConfigMap).metadata.uid;
    for (const suffix of ["a", "b"]) {
      const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: owner, uid, ...(blockOwnerDeletion ? { blockOwnerDeletion } : {}) }];
      const dependent = await request("POST", "/api/v1/namespaces/default/configmaps", {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `${owner}-${suffix}`, ownerReferences },
      });
      expect(dependent.status, dependent.text).toBe(201);
    }
  };

  const exists = async (name: string): Promise<boolean> => {
    const res = await request("GET", `/api/v1/namespaces/default/configmaps/${name}`);
    if (res.status !== 200 && res.status !== 404) throw new Error(`GET ${name}: ${res.status} ${res.text}`);
    return res.status === 200;
  };

  const remaining = async (owner: string): Promise<string[]> => {
    const names = [owner, `${owner}-a`, `${owner}-b`];
    const present = await Promise.all(names.map(exists));
    return names.filter((_, i) => present[i]);
  };

  const deleteOwner = async (owner: string, propagationPolicy: "Background" | "Foreground"): Promise<void> => {
    const res = await request("DELETE", `/api/v1/namespaces/default/configmaps/${owner}?propagationPolicy=${propagationPolicy}`);
    expect(res.status, res.text).toBe(propagationPolicy === "Foreground" ? 202 : 200);
    if (propagationPolicy === "Foreground") {
      // Accepted, not done: the owner waits, marked, for the collector.
      const { metadata } = res.json as ConfigMap;
      expect(metadata.deletionTimestamp).toBeDefined();
      expect(metadata.finalizers).toContain("foregroundDeletion");
    }
  };

  const holder = async (): Promise<string> => {
    const res = await request("GET", leasePath);
    expect(res.status, res.text).toBe(200);
    return (res.json as Lease).spec?.holderIdentity ?? "";
  };

  beforeAll(async () => {
    etcd = await startEtcd();
    dataDir = await mkdtemp(join(tmpdir(), "orch-restart-"));
    server = await startServer();
    first = await startManager(server.kubeconfigPath, managers);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(managers.map((m) => m.stop()));
    await Promise.all(servers.map((s) => s.stop()));
    await etcd?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("collects the dependents of an owner deleted in the background", async () => {
    await ownerWithDependents("before");
    await deleteOwner("before", "Background");
    await eventually("the dependents of before are collected", async () => (await remaining("before")).length === 0);
    expect(deletions(first, "before-a")).toBe(1);
    expect(deletions(first, "before-b")).toBe(1);
  }, 20_000);

  it("survives a restart of the API server, then finishes foreground deletions and collects background ones, each deletion once", async () => {
    const port = Number(new URL(server.url).port);
    // SIGTERM ends the manager's watches, also those it re-opens while the server drains, so the
    // server does not wait out its drain timeout (10 s) for them.
    const stopping = Date.now();
    expect(await server.stop()).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(5_000);
    // The manager's watches broke and its lists and renewals fail meanwhile.
    await sleep(3_000);
    expect(first.exit()).toBeUndefined();
    server = await startServer(port);
    expect(server.url).toBe(`https://127.0.0.1:${port}`);

    // Foreground: the owner stays, with the foregroundDeletion finalizer, until the dependents
    // that block it are gone: once it is gone, they are.
    await ownerWithDependents("fg", true);
    await deleteOwner("fg", "Foreground");
    await eventually("the foreground deletion of fg finishes", async () => !(await exists("fg")), 30_000);
    expect(await remaining("fg")).toEqual([]);

    await ownerWithDependents("bg");
    await deleteOwner("bg", "Background");
    expect(await exists("bg")).toBe(false);
    await eventually("the dependents of bg are collected", async () => (await remaining("bg")).length === 0);

    // Nothing was deleted twice, before or after the restart, and the manager had nothing to say
    // but its deletions and its informers' reconnects.
    for (const name of ["before-a", "before-b", "fg-a", "fg-b", "bg-a", "bg-b"]) expect(deletions(first, name), name).toBe(1);
    expect(unexpectedLines(first.stderr())).toEqual([]);
    expect(first.exit()).toBeUndefined();
  }, 90_000);

  it("runs the loops in one of two managers only, and in the other within 20 s once the leader stops", async () => {
    const leader = await holder();
    expect(leader.startsWith(`${hostname()}_`), leader).toBe(true);
    const second = await startManager(server.kubeconfigPath, managers);
    // Two retry periods of the second manager: it sees a valid Lease and leaves it alone.
    await sleep(4_500);
    expect(await holder()).toBe(leader);

    // While both run, only the leader collects.
    await ownerWithDependents("both");
    await deleteOwner("both", "Background");
    await eventually("the dependents of both are collected", async () => (await remaining("both")).length === 0);
    expect([deletions(first, "both-a"), deletions(first, "both-b")]).toEqual([1, 1]);
    expect([deletions(second, "both-a"), deletions(second, "both-b")]).toEqual([0, 0]);

    // The leader releases the Lease on SIGTERM; the other takes it and collects.
    const stoppedAt = Date.now();
    expect(await first.stop()).toEqual({ code: 0, signal: null });
    await ownerWithDependents("takeover");
    await deleteOwner("takeover", "Background");
    await eventually(
      "the second manager collects the dependents of takeover",
      async () => (await remaining("takeover")).length === 0,
      20_000 - (Date.now() - stoppedAt),
    );
    const next = await holder();
    expect(next).not.toBe(leader);
    expect(next.startsWith(`${hostname()}_`), next).toBe(true);
    expect([deletions(second, "takeover-a"), deletions(second, "takeover-b")]).toEqual([1, 1]);
    expect(unexpectedLines(second.stderr())).toEqual([]);
    expect(second.exit()).toBeUndefined();
  }, 90_000);
});
