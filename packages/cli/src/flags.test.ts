import { describe, expect, it } from "vitest";
import { FlagError, parseDuration, parseFlags, usage } from "./flags.js";

describe("parseFlags", () => {
  it("has the documented defaults", () => {
    expect(parseFlags([])).toEqual({
      help: false,
      bindAddress: "127.0.0.1",
      securePort: 6443,
      serviceClusterIPRange: "10.96.0.0/12",
      dataDir: "./.orch",
      domain: "orch.io",
      shutdownDelayMs: 0,
      livezGracePeriodMs: 0,
      requestTimeoutMs: 60_000,
      minRequestTimeoutSeconds: 1800,
      enablePriorityAndFairness: true,
      maxRequestsInflight: 400,
      maxMutatingRequestsInflight: 200,
      storageBackend: "sqlite",
      etcdServers: [],
      etcdPrefix: "",
      etcdCompactionIntervalMs: 300_000,
      etcdWaitAtStart: false,
      authentication: { anonymous: true, bootstrapTokenAuth: false, serviceAccountKeyFiles: [], serviceAccountLookup: true },
      authorization: { modes: ["Node", "RBAC"] },
      admission: { enable: [], disable: [] },
      audit: { maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 },
      controllers: { controllers: ["*"], clusterSigningDurationMs: 8760 * 3_600_000 },
    });
  });

  it.each([
    [["--secure-port", "0"], { securePort: 0 }],
    [["--", "--secure-port", "0"], { securePort: 0 }],
    [["--secure-port=8443"], { securePort: 8443 }],
    [["--bind-address", "0.0.0.0"], { bindAddress: "0.0.0.0" }],
    [["--bind-address=::1"], { bindAddress: "::1" }],
    [["--advertise-address", "192.0.2.10"], { advertiseAddress: "192.0.2.10" }],
    [["--service-cluster-ip-range=10.0.0.0/24"], { serviceClusterIPRange: "10.0.0.0/24" }],
    [["--data-dir", "/tmp/x"], { dataDir: "/tmp/x" }],
    [["--storage-backend", "memory"], { storageBackend: "memory" }],
    [["--storage-backend=sqlite"], { storageBackend: "sqlite" }],
    [["--etcd-servers", "http://127.0.0.1:2379"], { storageBackend: "etcd3" }],
    [["--etcd-servers", "http://127.0.0.1:2379", "--storage-backend", "etcd3"], { storageBackend: "etcd3" }],
    [["--domain", "k8s.io"], { domain: "k8s.io" }],
    [["--shutdown-delay-duration", "5s"], { shutdownDelayMs: 5000 }],
    [["--shutdown-delay-duration=1m30s"], { shutdownDelayMs: 90_000 }],
    [["--livez-grace-period", "500ms"], { livezGracePeriodMs: 500 }],
    [["--livez-grace-period", "0"], { livezGracePeriodMs: 0 }],
    [["--request-timeout", "30s"], { requestTimeoutMs: 30_000 }],
    [["--request-timeout=2m0s"], { requestTimeoutMs: 120_000 }],
    [["--request-timeout=0"], { requestTimeoutMs: 0 }],
    [["--min-request-timeout", "300"], { minRequestTimeoutSeconds: 300 }],
    [["--min-request-timeout=0"], { minRequestTimeoutSeconds: 0 }],
    [["--etcd-servers", "http://127.0.0.1:2379,http://127.0.0.1:22379"], { etcdServers: ["http://127.0.0.1:2379", "http://127.0.0.1:22379"] }],
    [["--etcd-servers=http://a:2379", "--etcd-prefix", "/orch"], { etcdServers: ["http://a:2379"], etcdPrefix: "/orch" }],
    [["--etcd-servers=http://a:2379", "--etcd-compaction-interval", "1m"], { etcdCompactionIntervalMs: 60_000 }],
    [
      ["--etcd-servers=https://a:2379", "--etcd-cafile=ca.crt", "--etcd-certfile=c.crt", "--etcd-keyfile=c.key"],
      { etcdCAFile: "ca.crt", etcdCertFile: "c.crt", etcdKeyFile: "c.key" },
    ],
    [["--etcd-servers=http://a:2379", "--etcd-wait-at-start"], { etcdWaitAtStart: true }],
    [["--etcd-servers=http://a:2379", "--etcd-wait-at-start=true"], { etcdWaitAtStart: true }],
    [["--etcd-servers=http://a:2379", "--etcd-wait-at-start=false"], { etcdWaitAtStart: false }],
    [
      ["--service-account-key-file", "/etc/orch/sa.key", "--service-account-key-file=/etc/orch/old.pub"],
      { authentication: { serviceAccountKeyFiles: ["/etc/orch/sa.key", "/etc/orch/old.pub"] } },
    ],
    [["--service-account-signing-key-file", "/etc/orch/sa.key"], { authentication: { serviceAccountSigningKeyFile: "/etc/orch/sa.key" } }],
    [["--authorization-mode=AlwaysAllow"], { authorization: { modes: ["AlwaysAllow"] } }],
    [
      ["--authorization-mode=Node,RBAC,Webhook", "--authorization-webhook-config-file=w.yaml", "--authorization-webhook-cache-authorized-ttl=1m"],
      {
        authorization: {
          modes: ["Node", "RBAC", "Webhook"],
          webhook: { configFile: "w.yaml", version: "v1beta1", authorizedTTLMs: 60_000, unauthorizedTTLMs: 30_000 },
        },
      },
    ],
    [
      ["--anonymous-auth=false", "--service-account-lookup=false", "--enable-bootstrap-token-auth"],
      { authentication: { anonymous: false, serviceAccountLookup: false, bootstrapTokenAuth: true } },
    ],
    [
      ["--token-auth-file", "tokens.csv", "--client-ca-file=ca.crt", "--api-audiences", "a,b"],
      { authentication: { tokenAuthFile: "tokens.csv", clientCAFile: "ca.crt", apiAudiences: ["a", "b"] } },
    ],
    [
      [
        "--oidc-issuer-url=https://idp.test",
        "--oidc-client-id=orch",
        "--oidc-username-claim=email",
        "--oidc-groups-claim=groups",
        "--oidc-required-claim=hd=example.com",
        "--oidc-required-claim",
        "tier=gold",
        "--oidc-ca-file=idp.crt",
      ],
      {
        authentication: {
          oidc: {
            issuerURL: "https://idp.test",
            clientID: "orch",
            usernameClaim: "email",
            groupsClaim: "groups",
            requiredClaims: { hd: "example.com", tier: "gold" },
            caFile: "idp.crt",
            signingAlgorithms: ["RS256"],
          },
        },
      },
    ],
    [
      ["--authentication-token-webhook-config-file=hook.yaml", "--authentication-token-webhook-version=v1", "--authentication-token-webhook-cache-ttl=30s"],
      { authentication: { tokenWebhook: { configFile: "hook.yaml", version: "v1", cacheTTLMs: 30_000 } } },
    ],
    [
      [
        "--requestheader-client-ca-file=proxy.crt",
        "--requestheader-username-headers=X-Remote-User",
        "--requestheader-group-headers=X-Remote-Group",
        "--requestheader-extra-headers-prefix=X-Remote-Extra-",
        "--requestheader-allowed-names=front-proxy",
      ],
      {
        authentication: {
          requestHeader: {
            clientCAFile: "proxy.crt",
            usernameHeaders: ["X-Remote-User"],
            groupHeaders: ["X-Remote-Group"],
            extraHeaderPrefixes: ["X-Remote-Extra-"],
            allowedNames: ["front-proxy"],
            uidHeaders: [],
          },
        },
      },
    ],
    [["--service-account-issuer=https://issuer.example.com"], { serviceAccountIssuer: "https://issuer.example.com" }],
    [["--service-account-issuer", "orch-issuer"], { serviceAccountIssuer: "orch-issuer" }],
    [["--runtime-config", "imagepolicy.orch.io/v1alpha1=true"], { runtimeConfig: { "imagepolicy.orch.io/v1alpha1": true } }],
    [
      ["--runtime-config=api/all=false,api/v1,coordination.orch.io/v1=true"],
      { runtimeConfig: { "api/all": false, "api/v1": true, "coordination.orch.io/v1": true } },
    ],
    [
      ["--runtime-config", "api/beta=false, v1/configmaps=0", "--runtime-config=api/beta=true"],
      { runtimeConfig: { "api/beta": true, "v1/configmaps": false } },
    ],
    [["--controllers", "*,-garbagecollector", "--controllers=tokencleaner"], { controllers: { controllers: ["*", "-garbagecollector", "tokencleaner"] } }],
    [["--controllers="], { controllers: { controllers: [] } }],
    [
      ["--cluster-signing-cert-file=ca.crt", "--cluster-signing-key-file", "ca.key"],
      { controllers: { clusterSigningCertFile: "ca.crt", clusterSigningKeyFile: "ca.key" } },
    ],
    [["--cluster-signing-duration", "24h"], { controllers: { clusterSigningDurationMs: 86_400_000 } }],
    [["--help"], { help: true }],
    [["-h"], { help: true }],
  ] as const)("accepts %j", (argv, expected) => {
    expect(parseFlags(argv)).toMatchObject(expected);
  });

  it.each([
    [["--no-such-flag"], /no-such-flag/],
    [["--secure-port"], /secure-port/],
    [["--etcd-servers", "127.0.0.1:2379"], /--etcd-servers "127.0.0.1:2379"/],
    [["--etcd-servers", "ftp://a:1"], /--etcd-servers "ftp:\/\/a:1"/],
    [["--etcd-prefix", "/x"], /--etcd-prefix needs --etcd-servers/],
    [["--etcd-servers=http://a:2379", "--etcd-certfile=c.crt"], /go together/],
    [["--etcd-servers=https://a:2379"], /--etcd-cafile/],
    [["--etcd-servers=http://a:2379", "--etcd-compaction-interval=soon"], /etcd-compaction-interval/],
    [["--etcd-wait-at-start"], /--etcd-wait-at-start needs --etcd-servers/],
    [["--etcd-servers=http://a:2379", "--etcd-wait-at-start=yes"], /--etcd-wait-at-start "yes": want true or false/],
    [["--service-account-key-file="], /invalid --service-account-key-file: empty/],
    [["--service-account-key-file"], /service-account-key-file/],
    [["--service-account-issuer="], /invalid --service-account-issuer: empty/],
    [["--service-account-issuer", "https://[::1"], /--service-account-issuer "https:\/\/\[::1": contains a ':' but is not a valid URL/],
    [["--secure-port", "65536"], /--secure-port "65536"/],
    [["--secure-port", "-1"], /secure-port/],
    [["--secure-port", "http"], /--secure-port "http"/],
    [["--bind-address", "localhost"], /--bind-address "localhost"/],
    [["--advertise-address", "0.0.0.0"], /--advertise-address "0.0.0.0"/],
    [["--service-cluster-ip-range", "10.96.0.0"], /--service-cluster-ip-range "10.96.0.0"/],
    [["--service-cluster-ip-range", "10.96.0.0/32"], /--service-cluster-ip-range/],
    [["--domain", "Not A Domain"], /--domain/],
    [["--shutdown-delay-duration", "5"], /--shutdown-delay-duration: invalid duration "5"/],
    [["--livez-grace-period", "-5s"], /--livez-grace-period/],
    [["--livez-grace-period", "soon"], /--livez-grace-period/],
    [["--request-timeout", "60"], /invalid --request-timeout: invalid duration "60"/],
    [["--request-timeout", "-1s"], /--request-timeout/],
    [["--min-request-timeout", "1m"], /invalid --min-request-timeout "1m": want a whole number of seconds/],
    [["--storage-backend", "disk"], /invalid --storage-backend "disk": want sqlite, memory or etcd3/],
    [["--storage-backend", "etcd3"], /--storage-backend=etcd3 needs --etcd-servers/],
    [["--etcd-servers", "http://127.0.0.1:2379", "--storage-backend", "memory"], /--etcd-servers needs --storage-backend=etcd3, not "memory"/],
    [["--min-request-timeout", "-5"], /min-request-timeout/],
    [["serve"], /serve/],
    [["--authorization-mode=RBAC,Magic"], /invalid --authorization-mode "Magic"/],
    [["--authorization-mode=RBAC,RBAC"], /a mode is named twice/],
    [["--authorization-mode=Webhook"], /needs --authorization-webhook-config-file/],
    [["--authorization-webhook-version=v1"], /needs --authorization-mode with Webhook/],
    [["--authorization-mode=Webhook", "--authorization-webhook-config-file=w.yaml", "--authorization-webhook-version=v3"], /want v1beta1 or v1/],
    [["--anonymous-auth=maybe"], /--anonymous-auth "maybe": want true or false/],
    [["--token-auth-file="], /invalid --token-auth-file: empty/],
    [["--oidc-client-id=orch"], /--oidc-client-id needs --oidc-issuer-url/],
    [["--oidc-issuer-url=http://idp.test", "--oidc-client-id=orch"], /--oidc-issuer-url "http:\/\/idp.test": want an https URL/],
    [["--oidc-issuer-url=https://idp.test"], /--oidc-issuer-url needs --oidc-client-id/],
    [["--oidc-issuer-url=https://idp.test", "--oidc-client-id=orch", "--oidc-required-claim=novalue"], /--oidc-required-claim "novalue": want key=value/],
    [["--authentication-token-webhook-version=v1"], /needs --authentication-token-webhook-config-file/],
    [["--authentication-token-webhook-config-file=h.yaml", "--authentication-token-webhook-version=v2"], /want v1beta1 or v1/],
    [["--authentication-token-webhook-config-file=h.yaml", "--authentication-token-webhook-cache-ttl=soon"], /authentication-token-webhook-cache-ttl/],
    [["--requestheader-client-ca-file=proxy.crt"], /needs --requestheader-username-headers/],
    [["--requestheader-username-headers=X-Remote-User"], /--requestheader-username-headers needs --requestheader-client-ca-file/],
    [
      ["--runtime-config", "imagepolicy.orch.io/v1alpha1=yes"],
      /invalid --runtime-config "imagepolicy.orch.io\/v1alpha1=yes": the value of imagepolicy.orch.io\/v1alpha1 must be true or false/,
    ],
    [["--runtime-config", "api/all=1"], /invalid --runtime-config "api\/all=1": the value of api\/all must be true or false/],
    [["--runtime-config", "=true"], /invalid --runtime-config "=true": want <key>=<true\|false>/],
    [["--runtime-config"], /runtime-config/],
    [["--cluster-signing-cert-file=ca.crt"], /--cluster-signing-cert-file and --cluster-signing-key-file go together/],
    [["--cluster-signing-key-file="], /invalid --cluster-signing-key-file: empty/],
    [["--cluster-signing-duration=soon"], /--cluster-signing-duration/],
    [["--controllers"], /controllers/],
  ] as const)("refuses %j with a FlagError naming the problem", (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(FlagError);
    expect(() => parseFlags(argv)).toThrow(message);
  });
});

describe("parseDuration", () => {
  it.each([
    ["0s", 0],
    ["0", 0],
    ["5s", 5000],
    ["1m30s", 90_000],
    ["500ms", 500],
    ["1.5h", 5_400_000],
    ["1h2m3s4ms", 3_723_004],
    ["250us", 0.25],
    ["+2s", 2000],
  ] as const)("reads %s as %d ms", (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each(["", "s", "5", "5x", "1m 30s", "-1s", "1.s.5"])("refuses %j", (text) => {
    expect(() => parseDuration(text)).toThrow(FlagError);
  });
});

describe("timeout flags in --help", () => {
  it("lists --request-timeout and --min-request-timeout with their defaults", () => {
    expect(usage).toMatch(/--request-timeout duration[\s\S]*\(default 1m0s\)/);
    expect(usage).toMatch(/--min-request-timeout int[\s\S]*\(default 1800\)/);
  });
});

describe("flow-control flags", () => {
  it("turns API Priority and Fairness on with 400 reads and 200 writes by default", () => {
    const flags = parseFlags([]);
    expect(flags.enablePriorityAndFairness).toBe(true);
    expect(flags.maxRequestsInflight).toBe(400);
    expect(flags.maxMutatingRequestsInflight).toBe(200);
  });

  it("reads --enable-priority-and-fairness=false and the two limits", () => {
    const flags = parseFlags(["--enable-priority-and-fairness=false", "--max-requests-inflight", "10", "--max-mutating-requests-inflight=0"]);
    expect(flags.enablePriorityAndFairness).toBe(false);
    expect(flags.maxRequestsInflight).toBe(10);
    expect(flags.maxMutatingRequestsInflight).toBe(0);
    expect(parseFlags(["--enable-priority-and-fairness"]).enablePriorityAndFairness).toBe(true);
  });

  it.each(["-1", "x", "1.5"])("refuses --max-requests-inflight %j", (value) => {
    expect(() => parseFlags([`--max-requests-inflight=${value}`])).toThrow(/invalid --max-requests-inflight/);
  });

  it("lists the three flags in --help with their defaults", () => {
    expect(usage).toMatch(/--enable-priority-and-fairness[\s\S]*\(default true\)/);
    expect(usage).toMatch(/--max-requests-inflight int[\s\S]*\(default 400\)/);
    expect(usage).toMatch(/--max-mutating-requests-inflight int[\s\S]*\(default 200\)/);
  });
});
