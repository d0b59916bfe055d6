import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientConfigError } from "@orch/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenFileCredentialSource } from "./token-file-source.js";

let dir: string;
let clock: number;
const now = () => clock;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "orch-token-file-"));
  clock = 1_000_000;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("tokenFileCredentialSource", () => {
  it("reads the token, trimmed, at the first request", async () => {
    await writeFile(join(dir, "token"), "  first-token\n");
    const source = tokenFileCredentialSource({ path: join(dir, "token"), now });
    expect(await source.credentials()).toEqual({ token: "first-token" });
  });

  it("checks the file again only once the interval has passed, and then reads the new token", async () => {
    const path = join(dir, "token");
    await writeFile(path, "first-token");
    const source = tokenFileCredentialSource({ path, now });
    await source.credentials();
    await writeFile(path, "second-token-longer");
    clock += 999;
    expect(await source.credentials()).toEqual({ token: "first-token" });
    clock += 1;
    expect(await source.credentials()).toEqual({ token: "second-token-longer" });
  });

  it("re-reads at once on a 401 and says whether the token changed", async () => {
    const path = join(dir, "token");
    await writeFile(path, "first-token");
    const source = tokenFileCredentialSource({ path, now });
    const used = await source.credentials();
    expect(await source.unauthorized?.(used)).toBe(false);
    await writeFile(path, "second-token-longer");
    expect(await source.unauthorized?.(used)).toBe(true);
    expect(await source.credentials()).toEqual({ token: "second-token-longer" });
  });

  it("keeps the last token when the file goes away", async () => {
    const path = join(dir, "token");
    await writeFile(path, "first-token");
    const source = tokenFileCredentialSource({ path, now });
    await source.credentials();
    await rm(path);
    clock += 5_000;
    expect(await source.credentials()).toEqual({ token: "first-token" });
  });

  it("rejects, naming the file and the entry pointing at it, when the file is missing or empty", async () => {
    const path = join(dir, "token");
    const source = tokenFileCredentialSource({ path, now, origin: { file: "/k/config", entry: 'user "u"' } });
    const error = await source.credentials().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^user "u" in /k/config: tokenFile ${path}: cannot be read: ENOENT`));
    await writeFile(path, "\n");
    await expect(source.credentials()).rejects.toThrow(`user "u" in /k/config: tokenFile ${path}: the file is empty`);
  });
});
