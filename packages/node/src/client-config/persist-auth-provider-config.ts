/**
 * {@link persistAuthProviderConfig}: writes refreshed `auth-provider` settings (an OIDC
 * provider's new id and refresh tokens) back into the configuration file that holds the user.
 * @module
 */
import { randomBytes } from "node:crypto";
import { readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ClientConfigError, entryName } from "@orch/client";
import { isMap, isScalar, isSeq, parseDocument } from "yaml";

/**
 * Replaces the `auth-provider.config` of user `userName` in `file` with `config`, in place:
 * keys in `config` are set, other keys removed; comments, formatting and every other entry
 * survive. The file is replaced atomically (a temp file beside it, renamed over it) with its
 * mode kept.
 *
 * @throws `ClientConfigError` (of `@orch/client`) naming the file (and user) when it cannot be read, parsed
 *   or written, the user is not in it, or the user has no `auth-provider`.
 */
export async function persistAuthProviderConfig(file: string, userName: string, config: Readonly<Record<string, string>>): Promise<void> {
  const at = { file, entry: entryName("user", userName) };
  let text: string;
  let mode: number;
  try {
    text = await readFile(file, "utf8");
    mode = (await stat(file)).mode & 0o7777;
  } catch (error) {
    throw new ClientConfigError({ file }, `cannot read the configuration file: ${(error as Error).message}`, { cause: error });
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) throw new ClientConfigError({ file }, `not valid YAML or JSON: ${doc.errors[0]!.message}`);
  const users = doc.get("users", true);
  const item = isSeq(users) ? users.items.find((u) => isMap(u) && u.get("name") === userName) : undefined;
  if (!isMap(item)) throw new ClientConfigError(at, "is not defined");
  const provider = item.getIn(["user", "auth-provider"], true);
  if (!isMap(provider)) throw new ClientConfigError(at, "has no auth-provider");
  const current = provider.get("config", true);
  if (isMap(current)) {
    for (const pair of [...current.items]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (!(key in config)) current.delete(pair.key);
    }
    for (const [key, value] of Object.entries(config)) current.set(key, value);
  } else {
    provider.set("config", doc.createNode({ ...config }));
  }
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temp, doc.toString({ lineWidth: 0 }), { mode });
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw new ClientConfigError({ file }, `cannot write the configuration file: ${(error as Error).message}`, { cause: error });
  }
}
