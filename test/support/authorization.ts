/**
 * The fixture of the end-to-end authorization tests: an `orch-apiserver` started with a static
 * token file of a few users (and whatever `--domain` and `--authorization-mode` the test asks
 * for), raw HTTPS requests as the admin certificate, as a token user or anonymously, kubeconfigs
 * and kubectls for the token users, and a bounded wait for the RBAC index to catch up.
 * @module
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYAML, stringify as stringifyYAML } from "yaml";
import { adminTLS, startAPIServer, type RawResponse, type RunningAPIServer } from "./apiserver.js";
import { httpsCall, type CallOptions } from "./authentication.js";
import { kubectlFor, type Kubectl } from "./kubectl.js";

/** A user of the token file. */
export interface TokenUser {
  readonly token: string;
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
}

/** The users of the token file: alice and carol in no group, bob in `dev`. */
export const tokenUsers = {
  alice: { token: "alice-authz-token-0123456789", name: "alice", uid: "uid-alice", groups: [] },
  bob: { token: "bob-authz-token-0123456789", name: "bob", uid: "uid-bob", groups: ["dev"] },
  carol: { token: "carol-authz-token-0123456789", name: "carol", uid: "uid-carol", groups: [] },
} as const satisfies Record<string, TokenUser>;

/** Who sends a request of {@link AuthorizationFixture.request}. */
export type Caller = "admin" | "anonymous" | TokenUser;

/** A request of {@link AuthorizationFixture.request}. */
export interface AuthzRequest extends Omit<CallOptions, "token" | "cert"> {
  /** The admin certificate (the default), no credential, or a token user. */
  as?: Caller;
}

/** The `resourceAttributes` or `nonResourceAttributes` of a SubjectAccessReview. */
export type ReviewAttributes =
  | { resourceAttributes: { verb: string; group?: string; resource: string; subresource?: string; namespace?: string; name?: string } }
  | { nonResourceAttributes: { verb: string; path: string } };

/** Everything {@link startAuthorizationFixture} started. */
export interface AuthorizationFixture {
  readonly server: RunningAPIServer;
  /** The domain the server runs with (`orch.io` unless `--domain` was given). */
  readonly domain: string;
  /** The server's CA (PEM). */
  readonly ca: string;
  /** One HTTPS request on its own connection, bounded (10 s by default). */
  request(options: AuthzRequest): Promise<RawResponse>;
  /** A kubeconfig whose user has `user`'s token and no client certificate; its path. */
  kubeconfig(user: TokenUser): Promise<string>;
  /** kubectl with the admin kubeconfig (no user) or `user`'s token; one per user, closed by `stop()`. */
  kubectl(user?: TokenUser): Promise<Kubectl>;
  /**
   * Asks a SubjectAccessReview (as admin) about `user` until its `allowed` is `allowed`: the RBAC
   * index follows the store through a watch, so a new binding takes effect a few milliseconds
   * after its write. Throws after `timeoutMs` (5 s by default) with the last answer.
   */
  untilAccess(user: { name: string; groups?: readonly string[] }, attributes: ReviewAttributes, allowed: boolean, timeoutMs?: number): Promise<void>;
  /** Stops the server, closes the kubectls and removes the scratch dir; the server's exit code. */
  stop(): Promise<number | null | undefined>;
}

/** The domain of a server started with `flags` (`--domain x` or `--domain=x`; `orch.io` by default). */
function domainOf(flags: readonly string[]): string {
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    if (flag === "--domain") return flags[i + 1] ?? "orch.io";
    if (flag.startsWith("--domain=")) return flag.slice("--domain=".length);
  }
  return "orch.io";
}

/** Polls `condition` every 20 ms until it holds, for at most `timeoutMs`; then throws with `what()`. */
export async function until(condition: () => Promise<boolean>, what: () => string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Writes a token file of {@link tokenUsers} and starts `orch-apiserver --token-auth-file <it>
 * ...flags`. Everything is removed by `stop()`, also when the start fails.
 */
export async function startAuthorizationFixture(flags: readonly string[] = []): Promise<AuthorizationFixture> {
  const dir = await mkdtemp(join(tmpdir(), "orch-authz-e2e-"));
  const kubectls = new Map<string, Kubectl>();
  let server: RunningAPIServer | undefined;
  let stopping: Promise<number | null | undefined> | undefined;
  const stop = (): Promise<number | null | undefined> =>
    (stopping ??= (async () => {
      const code = await server?.stop();
      for (const kubectl of kubectls.values()) await kubectl.close();
      await rm(dir, { recursive: true, force: true });
      return code;
    })());
  try {
    const lines = Object.values(tokenUsers).map((u) => `${u.token},${u.name},${u.uid}${u.groups.length > 0 ? `,"${u.groups.join(",")}"` : ""}`);
    await writeFile(join(dir, "tokens.csv"), lines.join("\n") + "\n");
    server = await startAPIServer({ flags: ["--token-auth-file", join(dir, "tokens.csv"), ...flags] });
    const running = server;
    const tls = await adminTLS(running.dataDir);
    const kubeconfigText = await readFile(running.kubeconfigPath, "utf8");
    const cluster = (parseYAML(kubeconfigText) as { clusters: { cluster: { server: string; "certificate-authority-data": string } }[] }).clusters[0]!.cluster;
    const request = (options: AuthzRequest): Promise<RawResponse> => {
      const { as = "admin", ...rest } = options;
      if (as === "admin") return httpsCall(running.url, tls.ca, { ...rest, cert: { cert: tls.cert, key: tls.key } });
      if (as === "anonymous") return httpsCall(running.url, tls.ca, rest);
      return httpsCall(running.url, tls.ca, { ...rest, token: as.token });
    };
    const kubeconfig = async (user: TokenUser): Promise<string> => {
      const path = join(dir, `${user.name}.kubeconfig`);
      await writeFile(
        path,
        stringifyYAML({
          apiVersion: "v1",
          kind: "Config",
          clusters: [{ name: "orch", cluster: { server: cluster.server, "certificate-authority-data": cluster["certificate-authority-data"] } }],
          users: [{ name: user.name, user: { token: user.token } }],
          contexts: [{ name: user.name, context: { cluster: "orch", user: user.name } }],
          "current-context": user.name,
        }),
      );
      return path;
    };
    const domain = domainOf(flags);
    return {
      server: running,
      domain,
      ca: tls.ca,
      request,
      kubeconfig,
      async kubectl(user) {
        const key = user?.name ?? "";
        let kubectl = kubectls.get(key);
        if (!kubectl) {
          kubectl = await kubectlFor({ kubeconfigPath: user ? await kubeconfig(user) : running.kubeconfigPath });
          kubectls.set(key, kubectl);
        }
        return kubectl;
      },
      async untilAccess(user, attributes, allowed, timeoutMs) {
        let last: RawResponse | undefined;
        await until(
          async () => {
            last = await request({
              method: "POST",
              path: `/apis/authorization.${domain}/v1/subjectaccessreviews`,
              body: JSON.stringify({
                apiVersion: `authorization.${domain}/v1`,
                kind: "SubjectAccessReview",
                spec: { user: user.name, groups: [...(user.groups ?? [])], ...attributes },
              }),
            });
            return (last.json as { status?: { allowed?: boolean } } | undefined)?.status?.allowed === allowed;
          },
          () => `${user.name} to be ${allowed ? "allowed" : "refused"} ${JSON.stringify(attributes)}; last answer ${last?.status}: ${last?.text}`,
          timeoutMs,
        );
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The rows of a kubectl table (`NAME  ROLE  AGE ...`) as objects keyed by header, cut at the
 * columns where the header's words start (so empty cells stay empty).
 */
export function tableRows(text: string): Record<string, string>[] {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const header = lines[0] ?? "";
  const starts: { name: string; at: number }[] = [];
  for (const match of header.matchAll(/\S+(?: \S+)*/g)) starts.push({ name: match[0], at: match.index });
  return lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    starts.forEach(({ name, at }, i) => (row[name] = line.slice(at, starts[i + 1]?.at ?? line.length).trim()));
    return row;
  });
}
