/**
 * A load generator in a process of its own, so that a flood of large answers does not slow the
 * measuring process: runs autocannon over HTTPS with the options given as JSON in `argv[2]`
 * (`url`, `connections`, `seconds`, `token`, `ca`) and prints one line, `result <json>`, with
 * the answered and refused (non-2xx) request counts and the CPU time the process used meanwhile (µs).
 * @module
 */
import autocannon from "autocannon";

const { url, connections, seconds, token, ca } = JSON.parse(process.argv[2] ?? "{}") as {
  url: string;
  connections: number;
  seconds: number;
  token: string;
  ca: string;
};
const before = process.cpuUsage();
const result = await autocannon({
  url,
  connections,
  duration: seconds,
  headers: { accept: "application/json", authorization: `Bearer ${token}` },
  tlsOptions: { ca },
});
const { user, system } = process.cpuUsage(before);
console.log(`result ${JSON.stringify({ ok: result.requests.total - result.non2xx, refused: result.non2xx, cpuUs: user + system })}`);
