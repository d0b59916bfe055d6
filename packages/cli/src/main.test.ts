import { defaultAdmissionPlugins } from "@orch/admission";
import { clusterInfoKubeconfig } from "@orch/certificates";
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { request as httpsRequest } from "node:https";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { APIRequest, APIServerOptions } from "@orch/server";
import { ensureCertificates } from "./certificates.js";
import { runAPIServer, type ServerLike } from "./main.js";

let dir: string;
let stop: AbortController;
let running: Promise<number> | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-main-"));
  stop = new AbortController();
});
afterEach(async () => {
  stop.abort();
  await running;
  running = undefined;
  await rm(dir, { recursive: true, force: true });
});

function capture() {
  const out = { text: "", write: (t: string) => (out.text += t) };
  return out;
}

interface Fake extends ServerLike {
  /** The requests that came over HTTPS. */
  seen: APIRequest[];
  /** The requests of the in-process client (they carry a user), answered as an empty server would. */
  inProcess: APIRequest[];
  options: APIServerOptions | undefined;
  shutdowns: number;
  /** Where the command said the server is reached. */
  advertised: { address: string; port: number }[];
}

function fakeServer(): Fake {
  const fake: Fake = {
    seen: [],
    inProcess: [],
    options: undefined,
    shutdowns: 0,
    advertised: [],
    maxRequestBodyBytes: 1024,
    ready: async () => {},
    advertise: async (endpoint) => {
      fake.advertised.push(endpoint);
    },
    handle: async (req) => {
      const json = new Headers({ "content-type": "application/json" });
      if (req.user) {
        fake.inProcess.push(req);
        if (req.method === "GET")
          return { status: 404, headers: json, body: JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404 }) };
        return { status: req.method === "POST" ? 201 : 200, headers: json, body: req.body ?? "" };
      }
      fake.seen.push(req);
      return { status: 200, headers: new Headers({ "content-type": "text/plain" }), body: "pong" };
    },
    shutdown: async () => {
      fake.shutdowns++;
    },
  };
  return fake;
}

async function start(argv: string[]) {
  const stdout = capture();
  const stderr = capture();
  const fake = fakeServer();
  let ready!: (info: { url: string; kubeconfig: string }) => void;
  const readyInfo = new Promise<{ url: string; kubeconfig: string }>((r) => (ready = r));
  running = runAPIServer(argv, {
    stdout,
    stderr,
    signal: stop.signal,
    createServer: (options) => {
      fake.options = options;
      return fake;
    },
    onReady: ready,
    // No controller manager against the fake: the selection still knows the server's own loops.
    controllers: [],
  });
  const info = await Promise.race([readyInfo, running.then((code) => Promise.reject(new Error(`exited ${code}: ${stderr.text}`)))]);
  return { stdout, stderr, fake, info };
}

describe("runAPIServer", () => {
  it("prints one ready line, serves TLS to the admin certificate, and stops gracefully", async () => {
    const { stdout, fake, info } = await start([
      "--secure-port",
      "0",
      "--data-dir",
      dir,
      "--domain",
      "k8s.io",
      "--shutdown-delay-duration",
      "1s",
      "--livez-grace-period=2s",
    ]);
    expect(fake.options).toEqual({
      domain: "k8s.io",
      shutdownDelayMs: 1000,
      livezGracePeriodMs: 2000,
      requestTimeoutMs: 60_000,
      minRequestTimeoutSeconds: 1800,
      // The kubernetes Service's cluster IP is the first address of this range.
      serviceClusterIPRange: "10.96.0.0/12",
      // API Priority and Fairness, on by default, over 400 + 200 seats.
      flowControl: { enabled: true, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 },
      // Objects in <data-dir>/state.db.
      store: expect.objectContaining({ path: join(dir, "state.db") }),
      // prometheusMetrics(), always on: served at /metrics.
      metrics: expect.objectContaining({ render: expect.any(Function), requestFinished: expect.any(Function) }),
      serviceAccountTokens: { signingKey: expect.any(Function), lookup: true, verificationKeys: [] },
      // The client certificates of the generated CA (the admin kubeconfig's), then bearer tokens.
      authenticators: [expect.objectContaining({ authenticate: expect.any(Function) })],
      anonymousAuth: true,
      bootstrapTokenAuth: false,
      log: expect.any(Function),
      authorization: ["Node", "RBAC"],
      // The reference's default-on plugins, their configuration, and webhooks over node:https.
      admission: {
        plugins: [...defaultAdmissionPlugins],
        configuration: {},
        transport: { client: expect.any(Function) },
        readFile: expect.any(Function),
      },
    });
    const kubeconfigPath = join(dir, "kubeconfig");
    expect(stdout.text).toMatch(/^orch-apiserver ready url=https:\/\/127\.0\.0\.1:\d+ kubeconfig=\S+\n$/);
    expect(stdout.text).toBe(`orch-apiserver ready url=${info.url} kubeconfig=${kubeconfigPath}\n`);

    const config = parse(await readFile(kubeconfigPath, "utf8"));
    expect(config["current-context"]).toBe("orch");
    expect(config.contexts).toEqual([{ name: "orch", context: { cluster: "orch", user: "admin" } }]);
    expect(config.clusters[0].cluster.server).toBe(info.url);
    const b64 = (s: string) => Buffer.from(s, "base64").toString();
    const ca = b64(config.clusters[0].cluster["certificate-authority-data"]);
    const cert = b64(config.users[0].user["client-certificate-data"]);
    const key = b64(config.users[0].user["client-key-data"]);

    const body = await new Promise<string>((resolve, reject) => {
      httpsRequest(`${info.url}/version`, { ca, cert, key, agent: false }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve(text));
      })
        .on("error", reject)
        .end();
    });
    expect(body).toBe("pong");
    // The adapter hands the admin certificate to the server, whose authenticators verify it.
    expect(fake.seen[0]?.peerCertificates?.length).toBeGreaterThan(0);

    stop.abort();
    expect(await running).toBe(0);
    expect(fake.shutdowns).toBe(1);
  });

  it("publishes cluster-info in orch-public as the controller manager's user, with the server's URL and CA", async () => {
    const { fake, info } = await start(["--secure-port", "0", "--data-dir", dir]);
    const created = fake.inProcess.find((r) => r.method === "POST");
    expect(created?.url).toBe("/api/v1/namespaces/orch-public/configmaps");
    expect(created?.user).toEqual({ name: "system:orch-controller-manager", groups: ["system:masters"] });
    const configMap = JSON.parse(new TextDecoder().decode(created?.body)) as { metadata: { name: string }; data: Record<string, string> };
    expect(configMap.metadata.name).toBe("cluster-info");
    const caPem = await readFile(join(dir, "ca.crt"), "utf8");
    expect(configMap.data).toEqual({ kubeconfig: clusterInfoKubeconfig({ server: info.url, caPem }) });
  });

  it("exits 2 naming an unknown controller", async () => {
    const stderr = capture();
    const code = await runAPIServer(["--controllers", "*,nosuch"], { stdout: capture(), stderr, controllers: [] });
    expect(code).toBe(2);
    expect(stderr.text).toContain('invalid --controllers: "nosuch" is not in the list of known controllers: ');
  });

  it("exits 2 with a message on stderr for a bad flag", async () => {
    const stderr = capture();
    const code = await runAPIServer(["--secure-port", "x"], { stdout: capture(), stderr });
    expect(code).toBe(2);
    expect(stderr.text).toContain('invalid --secure-port "x"');
  });

  it("hands --runtime-config to the server, and exits 2 for a value that is not a boolean", async () => {
    const { fake } = await start(["--secure-port", "0", "--data-dir", dir, "--runtime-config", "api/alpha=false,imagepolicy.orch.io/v1alpha1"]);
    expect(fake.options?.runtimeConfig).toEqual({ "api/alpha": false, "imagepolicy.orch.io/v1alpha1": true });
    const stderr = capture();
    expect(await runAPIServer(["--runtime-config", "api/all=never"], { stdout: capture(), stderr })).toBe(2);
    expect(stderr.text).toContain('invalid --runtime-config "api/all=never"');
  });

  it("exits 1 naming the group when --runtime-config names a group the server does not know", async () => {
    const stderr = capture();
    const code = await runAPIServer(["--secure-port", "0", "--data-dir", dir, "--runtime-config", "nope.example.com/v1=true"], {
      stdout: capture(),
      stderr,
      signal: stop.signal,
    });
    expect(code).toBe(1);
    expect(stderr.text).toContain("unknown api groups nope.example.com");
  });

  it("advertises the port it listens on, at --advertise-address or else the bind address", async () => {
    const { fake, info } = await start(["--secure-port", "0", "--data-dir", dir, "--advertise-address", "192.0.2.40"]);
    expect(fake.advertised).toEqual([{ address: "192.0.2.40", port: Number(new URL(info.url).port) }]);
  });

  it("hands --request-timeout and --min-request-timeout to the server", async () => {
    const { fake } = await start(["--secure-port", "0", "--data-dir", dir, "--request-timeout", "30s", "--min-request-timeout", "600"]);
    expect(fake.options).toMatchObject({ requestTimeoutMs: 30_000, minRequestTimeoutSeconds: 600 });
  });

  it("prints usage for --help and exits 0", async () => {
    const stdout = capture();
    expect(await runAPIServer(["--help"], { stdout, stderr: capture() })).toBe(0);
    expect(stdout.text).toContain("--shutdown-delay-duration");
  });

  it("signs service-account tokens with the serving key by default", async () => {
    const { fake } = await start(["--secure-port", "0", "--data-dir", dir]);
    const key = await (fake.options?.serviceAccountTokens?.signingKey as () => Promise<CryptoKey>)();
    expect(key).toMatchObject({ type: "private", algorithm: { name: "ECDSA", namedCurve: "P-256" } });
    const spki = (k: KeyObject) => k.export({ type: "spki", format: "der" });
    const given = createPublicKey(createPrivateKey({ key: Buffer.from(await crypto.subtle.exportKey("pkcs8", key)), format: "der", type: "pkcs8" }));
    expect(spki(given).equals(spki(createPublicKey(await readFile(join(dir, "apiserver.key"), "utf8"))))).toBe(true);
    expect(fake.options?.serviceAccountTokens?.issuer).toBeUndefined();
  });

  it("signs with --service-account-key-file as --service-account-issuer", async () => {
    const keyFile = join(dir, "sa.key");
    await writeFile(
      keyFile,
      generateKeyPairSync("ec", {
        namedCurve: "secp384r1",
        privateKeyEncoding: { type: "sec1", format: "pem" },
        publicKeyEncoding: { type: "spki", format: "pem" },
      }).privateKey,
    );
    const { fake } = await start([
      "--secure-port",
      "0",
      "--data-dir",
      dir,
      "--service-account-key-file",
      keyFile,
      "--service-account-issuer",
      "https://issuer.test",
    ]);
    const key = await (fake.options?.serviceAccountTokens?.signingKey as () => Promise<CryptoKey>)();
    expect(key.algorithm).toMatchObject({ name: "ECDSA", namedCurve: "P-384" });
    expect(fake.options?.serviceAccountTokens?.issuer).toBe("https://issuer.test");
  });

  it("exits 1 with a message when the service account key file is missing or the signing key file holds no private key", async () => {
    // Certificates made beforehand: the run ends on the key while they would still be written.
    await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    const stderr = capture();
    const missing = join(dir, "absent.key");
    expect(
      await runAPIServer(["--secure-port", "0", "--data-dir", dir, "--service-account-key-file", missing], {
        stdout: capture(),
        stderr,
        signal: stop.signal,
        createServer: fakeServer,
      }),
    ).toBe(1);
    expect(stderr.text).toContain(`orch-apiserver: --service-account-key-file ${missing}: ENOENT: no such file or directory, open '${missing}'`);
    const publicOnly = join(dir, "public.pem");
    await writeFile(
      publicOnly,
      generateKeyPairSync("ec", {
        namedCurve: "prime256v1",
        privateKeyEncoding: { type: "pkcs8", format: "pem" },
        publicKeyEncoding: { type: "spki", format: "pem" },
      }).publicKey,
    );
    const again = capture();
    expect(
      await runAPIServer(["--secure-port", "0", "--data-dir", dir, "--service-account-signing-key-file", publicOnly], {
        stdout: capture(),
        stderr: again,
        signal: stop.signal,
        createServer: fakeServer,
      }),
    ).toBe(1);
    expect(again.text).toContain(`orch-apiserver: service account key ${publicOnly}: no PEM private key`);
  });

  it("exits 1 naming the line when the token file is malformed, and the file when it is missing", async () => {
    await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    const tokens = join(dir, "tokens.csv");
    await writeFile(tokens, 'good-token,alice,uid-1,"dev,ops"\nbroken-token,bob\n');
    const stderr = capture();
    expect(
      await runAPIServer(["--secure-port", "0", "--data-dir", dir, "--token-auth-file", tokens], {
        stdout: capture(),
        stderr,
        signal: stop.signal,
        createServer: fakeServer,
      }),
    ).toBe(1);
    expect(stderr.text).toMatch(new RegExp(`--token-auth-file ${tokens}: .*line 2`));
    const missing = capture();
    expect(
      await runAPIServer(["--secure-port", "0", "--data-dir", dir, "--client-ca-file", join(dir, "nope.crt")], {
        stdout: capture(),
        stderr: missing,
        signal: stop.signal,
        createServer: fakeServer,
      }),
    ).toBe(1);
    expect(missing.text).toContain(`--client-ca-file ${join(dir, "nope.crt")}: ENOENT`);
  });

  it("exits 1 naming the plugin or the file for an unknown or removed admission plugin, or a configuration that does not parse", async () => {
    await ensureCertificates(dir, { bindAddress: "127.0.0.1" });
    const run = async (flags: string[]) => {
      const stderr = capture();
      const code = await runAPIServer(["--secure-port", "0", "--data-dir", dir, ...flags], {
        stdout: capture(),
        stderr,
        signal: stop.signal,
        createServer: fakeServer,
      });
      return { code, text: stderr.text };
    };
    const removed = await run(["--enable-admission-plugins", "NodeRestriction,PodSecurityPolicy"]);
    expect(removed.code).toBe(1);
    expect(removed.text).toContain('admission plugin "PodSecurityPolicy" was removed in v1.25');
    expect(await run(["--disable-admission-plugins", "Nope"])).toEqual({
      code: 1,
      text: expect.stringContaining('disable-admission-plugins plugin "Nope" is unknown'),
    });
    const broken = join(dir, "admission.yaml");
    await writeFile(broken, "apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins: [\n");
    expect(await run(["--admission-control-config-file", broken])).toEqual({
      code: 1,
      text: expect.stringContaining(`--admission-control-config-file ${broken}: `),
    });
    const config = join(dir, "admission-path.yaml");
    await writeFile(
      config,
      "apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodNodeSelector\n  path: selectors.yaml\n",
    );
    await writeFile(join(dir, "selectors.yaml"), "podNodeSelectorPluginConfig: {\n");
    expect(await run(["--admission-control-config-file", config])).toEqual({
      code: 1,
      text: expect.stringContaining(`plugin PodNodeSelector: ${join(dir, "selectors.yaml")}: `),
    });
  });

  it("hands the admission flags and each plugin's configuration (inline or by path) to the server", async () => {
    const config = join(dir, "admission-good.yaml");
    await writeFile(
      config,
      [
        "apiVersion: apiserver.config.orch.io/v1",
        "kind: AdmissionConfiguration",
        "plugins:",
        "- name: PodNodeSelector",
        "  path: node-selectors.yaml",
        "- name: PodSecurity",
        "  configuration:",
        "    apiVersion: pod-security.admission.config.orch.io/v1",
        "    kind: PodSecurityConfiguration",
        "    defaults: { enforce: baseline }",
        "",
      ].join("\n"),
    );
    await writeFile(join(dir, "node-selectors.yaml"), "podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=prod\n");
    const { fake } = await start([
      "--secure-port",
      "0",
      "--data-dir",
      dir,
      "--enable-admission-plugins",
      "PodNodeSelector,NodeRestriction",
      "--disable-admission-plugins",
      "ResourceQuota",
    ]);
    const admission = fake.options?.admission as { plugins: string[] };
    expect(admission.plugins).toContain("NodeRestriction");
    expect(admission.plugins).not.toContain("ResourceQuota");
    // The fixed order, whatever the flags' order.
    expect(admission.plugins.indexOf("NodeRestriction")).toBeLessThan(admission.plugins.indexOf("PodNodeSelector"));
    stop.abort();
    await running;
    stop = new AbortController();
    const { fake: configured } = await start(["--secure-port", "0", "--data-dir", dir, "--admission-control-config-file", config]);
    expect((configured.options?.admission as { configuration: unknown }).configuration).toEqual({
      PodNodeSelector: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: "env=prod" } },
      PodSecurity: { apiVersion: "pod-security.admission.config.orch.io/v1", kind: "PodSecurityConfiguration", defaults: { enforce: "baseline" } },
    });
  });

  it("exits 1 with a message when the port is taken", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const stderr = capture();
      const code = await runAPIServer(["--secure-port", String(port), "--data-dir", dir], {
        stdout: capture(),
        stderr,
        signal: stop.signal,
        createServer: fakeServer,
      });
      expect(code).toBe(1);
      expect(stderr.text).toContain("EADDRINUSE");
    } finally {
      await new Promise((r) => blocker.close(r));
    }
  });
});
