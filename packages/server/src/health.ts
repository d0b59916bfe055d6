/**
 * `/livez`, `/readyz` and `/healthz`: named checks, `verbose`, `exclude`, single checks, the
 * liveness grace period and readiness failing during the shutdown delay.
 * @module
 */
import { statusError } from "@orch/meta";
import type { APIResponse } from "./api-request.js";
import { errorResponse, textResponse } from "./responses.js";

/** One named check; it resolves true when healthy. */
export interface HealthCheck {
  name: string;
  check(): Promise<boolean>;
}

/** Runs `checks` for `endpoint` (`livez`, `readyz`, `healthz`), or the single check `only`. */
export async function healthResponse(endpoint: string, checks: readonly HealthCheck[], query: URLSearchParams, only?: string): Promise<APIResponse> {
  if (only !== undefined) {
    const check = checks.find((c) => c.name === only);
    // No such check is no such path: the NotFound Status of every unknown path.
    if (!check) return errorResponse(statusError("NotFound", "the server could not find the requested resource", { details: {} }));
    const ok = await safe(check);
    return textResponse(ok ? 200 : 500, ok ? "ok" : `[-]${check.name} failed: reason withheld\n${endpoint} check failed\n`);
  }
  const excluded = new Set(query.getAll("exclude"));
  const verbose = query.has("verbose") && query.get("verbose") !== "false";
  const lines: string[] = [];
  let healthy = true;
  const results = await Promise.all(checks.map(async (c) => ({ c, ok: excluded.has(c.name) ? true : await safe(c) })));
  for (const { c, ok } of results) {
    if (excluded.has(c.name)) lines.push(`[+]${c.name} excluded: ok`);
    else if (ok) lines.push(`[+]${c.name} ok`);
    else {
      lines.push(`[-]${c.name} failed: reason withheld`);
      healthy = false;
    }
  }
  for (const name of excluded) if (!checks.some((c) => c.name === name)) lines.push(`warn: some health checks cannot be excluded: no matches for "${name}"`);
  if (healthy && !verbose) return textResponse(200, "ok");
  lines.push(`${endpoint} check ${healthy ? "passed" : "failed"}`);
  return textResponse(healthy ? 200 : 500, `${lines.join("\n")}\n`);
}

async function safe(check: HealthCheck): Promise<boolean> {
  try {
    return await check.check();
  } catch {
    return false;
  }
}
