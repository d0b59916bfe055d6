import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inClusterConfig } from "./in-cluster-config.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-in-cluster-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("inClusterConfig", () => {
  it("builds the server from KUBERNETES_SERVICE_*, the token file, ca.crt and the namespace of the directory", async () => {
    await writeFile(join(dir, "token"), "t");
    await writeFile(join(dir, "ca.crt"), "pem");
    await writeFile(join(dir, "namespace"), "team\n");
    const config = await inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" }, directory: dir });
    expect(config.cluster).toMatchObject({ server: "https://10.0.0.1:443", certificateAuthority: { path: join(dir, "ca.crt") }, source: dir });
    expect(config.user.auth).toEqual({ type: "tokenFile", path: join(dir, "token") });
    expect(config.namespace).toBe("team");
  });

  it("accepts ORCH_SERVICE_*, brackets an IPv6 host, and defaults the namespace without a CA", async () => {
    await writeFile(join(dir, "token"), "t");
    const config = await inClusterConfig({ env: { ORCH_SERVICE_HOST: "fd00::1", ORCH_SERVICE_PORT: "6443" }, directory: dir });
    expect(config.cluster.server).toBe("https://[fd00::1]:6443");
    expect(config.cluster.certificateAuthority).toBeUndefined();
    expect(config.namespace).toBe("default");
  });

  it("refuses outside a cluster: no variables, or no token file", async () => {
    await expect(inClusterConfig({ env: {}, directory: dir })).rejects.toThrow("not running in a cluster: KUBERNETES_SERVICE_HOST");
    await expect(inClusterConfig({ env: { KUBERNETES_SERVICE_HOST: "h", KUBERNETES_SERVICE_PORT: "1" }, directory: dir })).rejects.toThrow(
      `${join(dir, "token")}: not running in a cluster: no service account token file exists`,
    );
  });
});
