/**
 * {@link ClientConfigError}: the one error of client configuration files.
 * @module
 */

/** Where a {@link ClientConfigError} is: the file(s) and the entry. */
export interface ClientConfigErrorLocation {
  /** The configuration file (or files, comma-separated, when the fault is in their merge). */
  file?: string;
  /** The entry: `user "alice"`, `context "dev"`, `cluster "prod"`, or absent for the file as a whole. */
  entry?: string;
}

/**
 * A client configuration file (kubeconfig) that cannot be used: it does not parse, is not a
 * `Config`, or the selected context, cluster or user is missing or inconsistent; or a file it
 * points at cannot be read. The message names the entry, the file and the cause:
 * `user "alice" in /home/a/.kube/config: client-certificate without client-key`.
 */
export class ClientConfigError extends Error {
  /** The configuration file(s) at fault, when known. */
  readonly file: string | undefined;
  /** The entry at fault (`user "alice"`), when there is one. */
  readonly entry: string | undefined;

  /** `cause` goes to the standard `Error` option (a file system error, a YAML error). */
  constructor(location: ClientConfigErrorLocation, message: string, options?: { cause?: unknown }) {
    super(`${describeLocation(location)}${message}`, options);
    this.name = "ClientConfigError";
    this.file = location.file;
    this.entry = location.entry;
  }
}

/** `user "x" in <file>: `, `<file>: `, `user "x": ` or nothing. */
function describeLocation({ file, entry }: ClientConfigErrorLocation): string {
  if (entry !== undefined && file !== undefined) return `${entry} in ${file}: `;
  if (entry !== undefined) return `${entry}: `;
  if (file !== undefined) return `${file}: `;
  return "";
}

/** `user "alice"`, the way errors name an entry. */
export function entryName(kind: "cluster" | "user" | "context", name: string): string {
  return `${kind} ${JSON.stringify(name)}`;
}
