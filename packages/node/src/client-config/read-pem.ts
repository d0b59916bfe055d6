/**
 * {@link readPEM}: the PEM text of a {@link PEMSource}, reading its file when it is one.
 * @module
 */
import { readFile } from "node:fs/promises";
import { ClientConfigError, type ClientConfigErrorLocation, type PEMSource } from "@orch/client";

/**
 * The PEM text of `source`: inline text as is, or the file's content.
 *
 * @throws `ClientConfigError` (of `@orch/client`) at `origin` (the entry pointing at the file) naming `field`
 *   and the path, when the file cannot be read: `cluster "c" in /k/config: cannot read
 *   certificate-authority /k/ca.crt: ENOENT: no such file or directory, ...`.
 */
export async function readPEM(source: PEMSource, origin: ClientConfigErrorLocation, field: string): Promise<string> {
  if ("pem" in source) return source.pem;
  try {
    return await readFile(source.path, "utf8");
  } catch (error) {
    throw new ClientConfigError(origin, `cannot read ${field} ${source.path}: ${(error as Error).message}`, { cause: error });
  }
}
