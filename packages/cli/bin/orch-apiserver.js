#!/usr/bin/env node
// orch-apiserver: see launch.js for how it starts (the built dist, or the sources through tsx).
import { launch } from "./launch.js";

await launch("orch-apiserver", "bin.ts", async () => (await import("../dist/main.js")).main());
