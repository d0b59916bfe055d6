/**
 * The TLS client certificate chain of a request, as the adapter hands it to the server: DER
 * certificates, leaf first, exactly as the client sent them. Verifying them is the server's
 * authentication stage's job, never the adapter's.
 * @module
 */
import type { Socket } from "node:net";
import { TLSSocket, type DetailedPeerCertificate } from "node:tls";

/**
 * The certificate chain the client presented on `socket` (DER, leaf first), or `undefined` when
 * the socket is not TLS or the client sent no certificate. Whether the chain verified against
 * the listener's `ca` plays no part: the server's authenticators verify it against their own CAs.
 * Every request of a connection gets the same (frozen) array.
 */
export function peerCertificateChain(socket: Socket): readonly Uint8Array[] | undefined {
  if (!(socket instanceof TLSSocket)) return undefined;
  // One chain object per connection: the certificate cannot change on it, and authenticators
  // can remember what they verified by its identity.
  if (chains.has(socket)) return chains.get(socket);
  const chain = readChain(socket);
  chains.set(socket, chain);
  return chain;
}

const chains = new WeakMap<TLSSocket, readonly Uint8Array[] | undefined>();

function readChain(socket: TLSSocket): readonly Uint8Array[] | undefined {
  let certificate: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  if (!certificate || !certificate.raw) return undefined;
  const chain: Uint8Array[] = [];
  const seen = new Set<string>();
  while (certificate?.raw && !seen.has(certificate.fingerprint256)) {
    seen.add(certificate.fingerprint256);
    chain.push(new Uint8Array(certificate.raw));
    certificate = certificate.issuerCertificate;
  }
  return Object.freeze(chain);
}
