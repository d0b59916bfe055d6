/**
 * The TypeScript entry the `orch-apiserver` bin runs inside the workspace (through tsx).
 * @module
 */
import { main } from "./main.js";

await main();
