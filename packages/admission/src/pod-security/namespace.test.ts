import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { Evaluator } from "./evaluator.js";
import { latestVersion, policyLabels, type Policy } from "./levels.js";
import { exemptNamespaceWarning, existingPodWarnings, prioritizePods } from "./namespace.js";

const evaluator = new Evaluator();
const restricted = { level: "restricted" as const, version: latestVersion };
const pod = (name: string, spec: Record<string, unknown>, controller?: string): APIObject => ({
  metadata: {
    name,
    namespace: "ns",
    ...(controller ? { ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: controller, uid: controller, controller: true }] } : {}),
  },
  spec,
});
const bare = { containers: [{ name: "c", image: "i" }] };
const hostNet = { hostNetwork: true, containers: [{ name: "c", image: "i" }] };
const options = (now = () => 0, extra: Partial<Parameters<typeof existingPodWarnings>[3]> = {}) => ({
  evaluator,
  labelDomain: "orch.io",
  exemptRuntimeClass: (rc: string) => rc === "kata",
  now,
  ...extra,
});

describe("existingPodWarnings", () => {
  it("says nothing when every pod complies", () => {
    const ok = {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [{ name: "c", securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } } }],
    };
    expect(existingPodWarnings("ns", restricted, [pod("a", ok)], options())).toEqual([]);
  });

  it("groups pods by reasons, naming the first pod by name and counting the others", () => {
    const pods = [pod("b", bare), pod("a", bare), pod("z", hostNet), pod("c", bare)];
    expect(existingPodWarnings("ns", restricted, pods, options())).toEqual([
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "restricted:latest"',
      "a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
      "z: host namespaces, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile",
    ]);
    expect(existingPodWarnings("ns", { level: "baseline", version: latestVersion }, [pod("x", hostNet), pod("y", hostNet)], options())).toEqual([
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
      "x (and 1 other pod): host namespaces",
    ]);
  });

  it("skips pods of exempt runtime classes", () => {
    expect(existingPodWarnings("ns", restricted, [pod("a", { ...bare, runtimeClassName: "kata" })], options())).toEqual([]);
  });

  it("checks at most maxPods pods and says so", () => {
    const pods = [pod("a", hostNet), pod("b", hostNet), pod("c", hostNet)];
    expect(
      existingPodWarnings(
        "ns",
        { level: "baseline", version: 25 },
        pods,
        options(() => 0, { maxPods: 2 }),
      ),
    ).toEqual([
      "new PodSecurity enforce level only checked against the first 2 of 3 existing pods",
      'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:v1.25"',
      "a (and 1 other pod): host namespaces",
    ]);
  });

  it("stops when the time is up", () => {
    let t = 0;
    const pods = [pod("a", hostNet), pod("b", hostNet), pod("c", hostNet)];
    const got = existingPodWarnings(
      "ns",
      { level: "baseline", version: latestVersion },
      pods,
      options(() => (t += 600)),
    );
    // now() is 600 at the start (deadline 1600), 1200 after the first pod, 1800 after the second.
    expect(got[0]).toBe("new PodSecurity enforce level only checked against the first 2 of 3 existing pods");
    expect(got[2]).toBe("a (and 1 other pod): host namespaces");
  });
});

describe("prioritizePods", () => {
  it("checks one pod per controller first", () => {
    const pods = [
      pod("rs1-a", bare, "rs1"),
      pod("rs1-b", bare, "rs1"),
      pod("solo", bare),
      pod("rs2-a", bare, "rs2"),
      pod("kata", { runtimeClassName: "kata" }),
    ];
    expect(prioritizePods(pods, (rc) => rc === "kata").map((p) => p.metadata.name)).toEqual(["rs1-a", "solo", "rs2-a", "rs1-b"]);
  });
});

describe("exemptNamespaceWarning", () => {
  const names = policyLabels("orch.io");
  const privileged: Policy = {
    enforce: { level: "privileged", version: latestVersion },
    audit: { level: "privileged", version: latestVersion },
    warn: { level: "privileged", version: latestVersion },
  };
  it("names the labelled non-privileged modes", () => {
    const policy: Policy = { ...privileged, enforce: restricted, warn: restricted };
    expect(exemptNamespaceWarning("kube-system", policy, privileged, { "pod-security.orch.io/enforce": "restricted" }, names)).toBe(
      'namespace "kube-system" is exempt from Pod Security, and the policy (enforce=restricted:latest) will be ignored',
    );
    expect(
      exemptNamespaceWarning("x", policy, privileged, { "pod-security.orch.io/enforce": "restricted", "pod-security.orch.io/warn": "restricted" }, names),
    ).toBe('namespace "x" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=restricted:latest) will be ignored');
  });
  it("says nothing for a privileged policy or the defaults", () => {
    expect(exemptNamespaceWarning("x", privileged, privileged, {}, names)).toBe("");
    const policy: Policy = { ...privileged, audit: restricted };
    expect(exemptNamespaceWarning("x", policy, policy, { "pod-security.orch.io/audit": "restricted" }, names)).toBe("");
  });
});
