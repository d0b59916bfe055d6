/**
 * `@peculiar/x509` set up once for the package: its decorators need the `reflect-metadata`
 * polyfill loaded first, and it signs and verifies through the runtime's Web Crypto.
 * @module
 */
import "reflect-metadata";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(globalThis.crypto);

export { x509 };
