/**
 * The identity of a TLS client certificate: the user the reference system's x509 authenticator
 * derives from a certificate that verified against the client CA.
 * @module
 */
import type { Socket } from "node:net";
import { TLSSocket } from "node:tls";
import type { UserInfo } from "@orch/server";

/** The group every authenticated user belongs to. */
export const authenticatedGroup = "system:authenticated";

function values(field: unknown): string[] {
  if (typeof field === "string") return [field];
  if (Array.isArray(field)) return field.filter((v): v is string => typeof v === "string");
  return [];
}

/**
 * The user of a verified client certificate, or `undefined` when the socket is not TLS, the
 * client sent no certificate, or the certificate did not verify against the configured CA
 * (`socket.authorized` is false).
 *
 * The name is the subject's common name (the last CN when there are several, as Go's
 * `pkix.Name` reads it); the groups are every subject organization (O), in order, followed by
 * `system:authenticated`. A certificate without a common name gives no user.
 */
export function userFromSocket(socket: Socket): UserInfo | undefined {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  const certificate = socket.getPeerCertificate();
  // An empty object when the peer sent no certificate.
  const subject = (certificate as { subject?: Record<string, unknown> }).subject;
  if (!subject) return undefined;
  const name = values(subject["CN"]).at(-1);
  if (!name) return undefined;
  return { name, groups: [...values(subject["O"]), authenticatedGroup] };
}
