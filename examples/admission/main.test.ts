import { describe, expect, it } from "vitest";
import { customPlugin } from "./custom-plugin.js";
import { main } from "./main.js";
import { podSecurity } from "./pod-security.js";
import { podQuota } from "./quota.js";
import { validatingWebhook } from "./webhook.js";

/** Runs `example` and returns what it returned and printed. */
async function run<T>(example: (log: (line: string) => void) => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const result = await example((line) => lines.push(line));
  return { result, lines };
}

describe("admission examples", () => {
  it("a plugin of your own annotates labelled ConfigMaps and refuses unlabelled ones", async () => {
    const { result } = await run(customPlugin);
    expect(result.labelled).toEqual({ "owner-contact": "payments@example.com" });
    expect(result.unlabelled).toBe('403 configmaps "orphan" is forbidden: every ConfigMap needs a team label');
  });

  it("the Express webhook refuses a floating image with its own message and admits a pinned one", async () => {
    const { result } = await run(validatingWebhook);
    expect(result.floating).toMatch(/^403 admission webhook "no-latest.images.example.com" denied the request: images must be pinned: app uses nginx:latest$/);
    expect(result.pinned).toBe("created");
  });

  it("a quota of two pods refuses the third, and its usage follows creates and deletes", async () => {
    const { result } = await run(podQuota);
    expect(result.third).toBe('403 pods "web-2" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2');
    expect(result.usedAfterCreates).toEqual({ pods: "2" });
    expect(result.usedAfterDelete).toEqual({ pods: "1" });
  });

  it("a restricted namespace refuses a privileged pod and admits a restricted one", async () => {
    const { result } = await run(podSecurity);
    expect(result.privileged).toMatch(
      /^403 pods "root" is forbidden: violates PodSecurity "restricted:latest": privileged \(container "app" must not set securityContext.privileged=true\)/,
    );
    expect(result.restricted).toBe("created");
  });

  it("main runs every example", async () => {
    const { lines } = await run(main);
    expect(lines.filter((l) => l.startsWith("# "))).toEqual(["# customPlugin", "# validatingWebhook", "# podQuota", "# podSecurity"]);
  });
});
