#!/usr/bin/env node
// orch-controller-manager: see launch.js for how it starts (the built dist, or the sources through tsx).
import { launch } from "./launch.js";

await launch("orch-controller-manager", "controller-manager-bin.ts", async () => (await import("../dist/controller-manager.js")).controllerManagerMain());
