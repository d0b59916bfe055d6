/**
 * The {@link ResourceRef}s the client had before every kind got one: now generated from the
 * catalog into `generated/refs.ts` (`pnpm run generate:client`), with a ref for each kind.
 * Re-exported here for the imports of this module that predate them.
 * @module
 */
export { configMapsRef, eventsRef, leasesRef, namespacesRef, secretsRef } from "./generated/refs.js";
