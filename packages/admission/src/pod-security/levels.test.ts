import { describe, expect, it } from "vitest";
import { formatFieldError } from "@orch/meta";
import { compareLevels, formatLevelVersion, latestVersion, parseLevel, parseVersion, policyFromLabels, policyLabels, type Policy } from "./levels.js";

const names = policyLabels("orch.io");
const privileged: Policy = {
  enforce: { level: "privileged", version: latestVersion },
  audit: { level: "privileged", version: latestVersion },
  warn: { level: "privileged", version: latestVersion },
};
const p = (labels: Record<string, string>, defaults = privileged) => {
  const { policy, errors } = policyFromLabels(labels, defaults, names);
  return {
    enforce: formatLevelVersion(policy.enforce),
    audit: formatLevelVersion(policy.audit),
    warn: formatLevelVersion(policy.warn),
    errors: errors.map(formatFieldError),
  };
};

describe("levels and versions", () => {
  it("parses the three levels only", () => {
    expect(parseLevel("baseline")).toBe("baseline");
    expect(parseLevel("Baseline")).toBeUndefined();
  });

  it("parses latest and v1.x only", () => {
    expect(parseVersion("latest")).toBe(latestVersion);
    expect(parseVersion("v1.0")).toBe(0);
    expect(parseVersion("v1.25")).toBe(25);
    for (const bad of ["v1.025", "v2.0", "1.25", "v1.", "v1.25.0", ""]) expect(parseVersion(bad)).toBeUndefined();
  });

  it("orders levels by strictness and prints level:version", () => {
    expect(compareLevels("restricted", "baseline")).toBe(1);
    expect(compareLevels("privileged", "baseline")).toBe(-1);
    expect(compareLevels("baseline", "baseline")).toBe(0);
    expect(formatLevelVersion({ level: "restricted", version: 21 })).toBe("restricted:v1.21");
  });

  it("names the labels under the label domain", () => {
    expect(policyLabels("kubernetes.io").enforceVersion).toBe("pod-security.kubernetes.io/enforce-version");
    expect(names.annotationPrefix).toBe("pod-security.orch.io/");
  });
});

describe("policyFromLabels", () => {
  it("uses the defaults for unlabelled namespaces", () => {
    expect(p({})).toEqual({ enforce: "privileged:latest", audit: "privileged:latest", warn: "privileged:latest", errors: [] });
    const defaults: Policy = { ...privileged, audit: { level: "baseline", version: 22 } };
    expect(p({ other: "x" }, defaults).audit).toBe("baseline:v1.22");
  });

  it("reads each mode's level and version", () => {
    const labels = {
      "pod-security.orch.io/enforce": "baseline",
      "pod-security.orch.io/enforce-version": "v1.20",
      "pod-security.orch.io/audit": "restricted",
      "pod-security.orch.io/warn": "restricted",
      "pod-security.orch.io/warn-version": "v1.24",
    };
    expect(p(labels)).toEqual({ enforce: "baseline:v1.20", audit: "restricted:latest", warn: "restricted:v1.24", errors: [] });
  });

  it("makes warn follow a stricter enforce level unless a warn label is set", () => {
    expect(p({ "pod-security.orch.io/enforce": "restricted", "pod-security.orch.io/enforce-version": "v1.22" }).warn).toBe("restricted:v1.22");
    expect(p({ "pod-security.orch.io/enforce": "restricted", "pod-security.orch.io/warn-version": "v1.23" }).warn).toBe("restricted:v1.23");
    expect(p({ "pod-security.orch.io/enforce": "restricted", "pod-security.orch.io/warn": "baseline" }).warn).toBe("baseline:latest");
  });

  it("fails closed for a bad enforce level and open for bad audit and warn levels", () => {
    const got = p({
      "pod-security.orch.io/enforce": "strict",
      "pod-security.orch.io/audit": "x",
      "pod-security.orch.io/warn": "y",
      "pod-security.orch.io/warn-version": "1.2",
    });
    expect(got).toEqual({
      enforce: "restricted:latest",
      audit: "privileged:latest",
      warn: "privileged:latest",
      errors: [
        'metadata.labels[pod-security.orch.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
        'metadata.labels[pod-security.orch.io/audit]: Invalid value: "x": must be one of privileged, baseline, restricted',
        'metadata.labels[pod-security.orch.io/warn]: Invalid value: "y": must be one of privileged, baseline, restricted',
        'metadata.labels[pod-security.orch.io/warn-version]: Invalid value: "1.2": must be "latest" or "v1.x"',
      ],
    });
  });

  it("reads a bad version as latest", () => {
    const got = p({ "pod-security.orch.io/enforce": "baseline", "pod-security.orch.io/enforce-version": "v1.x" });
    expect(got.enforce).toBe("baseline:latest");
    expect(got.errors).toEqual(['metadata.labels[pod-security.orch.io/enforce-version]: Invalid value: "v1.x": must be "latest" or "v1.x"']);
  });
});
