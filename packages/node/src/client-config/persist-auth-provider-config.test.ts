import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseClientConfig } from "@orch/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { persistAuthProviderConfig } from "./persist-auth-provider-config.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-persist-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const text = `# my clusters
apiVersion: v1
kind: Config
users:
- name: other
  user:
    token: keep-me # a comment
- name: me
  user:
    auth-provider:
      name: oidc
      config:
        client-id: orch # the client
        id-token: old
        refresh-token: old-refresh
current-context: x
`;

describe("persistAuthProviderConfig", () => {
  it("rewrites the user's auth-provider config in place, keeping comments, other entries and the file mode", async () => {
    const file = join(dir, "config");
    await writeFile(file, text);
    await chmod(file, 0o600);
    await persistAuthProviderConfig(file, "me", { "client-id": "orch", "id-token": "new", "idp-issuer-url": "https://i" });
    const written = await readFile(file, "utf8");
    expect(written).toContain("# my clusters");
    expect(written).toContain("client-id: orch # the client");
    expect(written).toContain("token: keep-me # a comment");
    const parsed = parseClientConfig(written, file);
    expect(parsed.users.get("me")?.authProvider).toEqual({ name: "oidc", config: { "client-id": "orch", "id-token": "new", "idp-issuer-url": "https://i" } });
    expect(parsed.users.get("other")?.token).toBe("keep-me");
    expect(parsed.currentContext?.name).toBe("x");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(["config"]);
  });

  it("adds a config to a provider that has none", async () => {
    const file = join(dir, "config");
    await writeFile(file, "users: [{name: me, user: {auth-provider: {name: oidc}}}]\n");
    await persistAuthProviderConfig(file, "me", { "id-token": "t" });
    expect(parseClientConfig(await readFile(file, "utf8"), file).users.get("me")?.authProvider?.config).toEqual({ "id-token": "t" });
  });

  it("refuses a user that is missing or has no auth-provider, naming the file and the user", async () => {
    const file = join(dir, "config");
    await writeFile(file, text);
    await expect(persistAuthProviderConfig(file, "ghost", {})).rejects.toThrow(`user "ghost" in ${file}: is not defined`);
    await expect(persistAuthProviderConfig(file, "other", {})).rejects.toThrow(`user "other" in ${file}: has no auth-provider`);
    expect(await readFile(file, "utf8")).toBe(text);
  });
});
