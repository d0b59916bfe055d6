/**
 * The TypeScript entry the `orch-controller-manager` bin runs inside the workspace (through tsx).
 * @module
 */
import { controllerManagerMain } from "./controller-manager.js";

await controllerManagerMain();
