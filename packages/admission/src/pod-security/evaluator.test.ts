import { describe, expect, it } from "vitest";
import { podView } from "./check.js";
import { Evaluator, forbiddenDetail, forbiddenReasons } from "./evaluator.js";
import { latestVersion } from "./levels.js";

const evaluator = new Evaluator();
const bare = podView({}, { containers: [{ name: "c", image: "i" }] }, "orch.io");
const compliant = podView(
  {},
  {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [{ name: "c", image: "i", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
  },
  "orch.io",
);

describe("Evaluator", () => {
  it("knows the newest version any check names (v1.37), which latest and newer versions use", () => {
    expect(evaluator.maxVersion).toBe(37);
    expect(evaluator.checksFor({ level: "restricted", version: latestVersion })).toBe(evaluator.checksFor({ level: "restricted", version: 37 }));
    expect(evaluator.checksFor({ level: "baseline", version: 80 })).toBe(evaluator.checksFor({ level: "baseline", version: 37 }));
  });

  it("runs no check at the privileged level", () => {
    expect(evaluator.checksFor({ level: "privileged", version: latestVersion })).toEqual([]);
  });

  it("lets a pod without a security context pass the baseline level", () => {
    expect(evaluator.evaluate({ level: "baseline", version: latestVersion }, bare)).toEqual([]);
  });

  it("lists restricted violations baseline first, then by check id", () => {
    const violations = evaluator.evaluate(
      { level: "restricted", version: latestVersion },
      podView({}, { hostNetwork: true, containers: [{ name: "c" }] }, "orch.io"),
    );
    expect(forbiddenReasons(violations)).toBe(
      "host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
    );
    expect(forbiddenDetail(violations)).toBe(
      'host namespaces (hostNetwork=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
  });

  it("lets restricted:v1.21 and restricted:latest differ (capabilities from v1.22, seccomp from v1.19)", () => {
    const reasons = (version: number) => forbiddenReasons(evaluator.evaluate({ level: "restricted", version }, bare));
    expect(reasons(18)).toBe("allowPrivilegeEscalation != false, runAsNonRoot != true");
    expect(reasons(21)).toBe("allowPrivilegeEscalation != false, runAsNonRoot != true, seccompProfile");
    expect(reasons(latestVersion)).toBe("allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile");
  });

  it("replaces overridden baseline checks at the restricted level", () => {
    const pod = podView(
      {},
      { securityContext: { seccompProfile: { type: "Unconfined" } }, volumes: [{ name: "h", hostPath: { path: "/" } }], containers: [] },
      "orch.io",
    );
    const restricted = evaluator.evaluate({ level: "restricted", version: latestVersion }, pod).map((v) => v.reason);
    expect(restricted).toEqual(["restricted volume types", "seccompProfile"]);
    const baseline = evaluator.evaluate({ level: "baseline", version: latestVersion }, pod).map((v) => v.reason);
    expect(baseline).toEqual(["hostPath volumes", "seccompProfile"]);
  });

  it("passes a pod that follows the restricted standard", () => {
    expect(evaluator.evaluate({ level: "restricted", version: latestVersion }, compliant)).toEqual([]);
  });

  it("refuses duplicate check ids", () => {
    const check = { id: "x", level: "baseline" as const, versions: [{ since: 0, check: () => undefined }] };
    expect(() => new Evaluator([check, check])).toThrow(/multiple checks/);
  });
});
