/**
 * {@link SharedInformers} now lives in `@orch/client`; this module re-exports it so the
 * controllers' `./shared-informers.js` imports keep working.
 * @module
 */
export { SharedInformers, type SharedInformersOptions } from "@orch/client";
