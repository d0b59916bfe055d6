/**
 * The one shape of a credential source's errors: the user entry, the configuration file when
 * known, then the cause, so a user can tell which entry of which file to fix.
 * @module
 */

/** Who the credentials are for: the user entry and, when known, the file it is in. */
export interface CredentialSubject {
  /** The name of the user entry. */
  userName: string;
  /** The configuration file, when the entry came from one. */
  configFile?: string | undefined;
}

/** `user "alice" in /home/me/.kube/config` (or without the file when it is not known). */
export function describeSubject(subject: CredentialSubject): string {
  return `user ${JSON.stringify(subject.userName)}${subject.configFile ? ` in ${subject.configFile}` : ""}`;
}

/** An `Error` saying the credentials of `subject` could not be had because of `cause`. */
export function credentialError(subject: CredentialSubject, cause: string, options?: { cause?: unknown }): Error {
  return new Error(`getting credentials for ${describeSubject(subject)}: ${cause}`, options);
}
