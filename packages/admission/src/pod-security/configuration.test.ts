import { describe, expect, it } from "vitest";
import { parsePodSecurityConfiguration } from "./configuration.js";
import { formatLevelVersion } from "./levels.js";

const config = (body: Record<string, unknown>, apiVersion = "pod-security.admission.config.orch.io/v1") => ({
  apiVersion,
  kind: "PodSecurityConfiguration",
  ...body,
});

describe("parsePodSecurityConfiguration", () => {
  it("defaults every mode to privileged:latest without a configuration", () => {
    const c = parsePodSecurityConfiguration(undefined, "orch.io");
    expect([c.defaults.enforce, c.defaults.audit, c.defaults.warn].map(formatLevelVersion)).toEqual([
      "privileged:latest",
      "privileged:latest",
      "privileged:latest",
    ]);
    expect(c.exemptNamespaces.size + c.exemptUsernames.size + c.exemptRuntimeClasses.size).toBe(0);
  });

  it("reads defaults and exemptions in v1, v1beta1 and v1alpha1", () => {
    for (const v of ["v1", "v1beta1", "v1alpha1"]) {
      const c = parsePodSecurityConfiguration(
        config(
          {
            defaults: { enforce: "baseline", "enforce-version": "v1.25", warn: "restricted" },
            exemptions: { usernames: ["admin"], namespaces: ["kube-system"], runtimeClasses: ["kata.v2"] },
          },
          `pod-security.admission.config.k8s.io/${v}`,
        ),
        "k8s.io",
      );
      expect(formatLevelVersion(c.defaults.enforce)).toBe("baseline:v1.25");
      expect(formatLevelVersion(c.defaults.warn)).toBe("restricted:latest");
      expect(formatLevelVersion(c.defaults.audit)).toBe("privileged:latest");
      expect([...c.exemptUsernames, ...c.exemptNamespaces, ...c.exemptRuntimeClasses]).toEqual(["admin", "kube-system", "kata.v2"]);
    }
  });

  it("refuses another kind or group", () => {
    expect(() => parsePodSecurityConfiguration(config({}, "pod-security.admission.config.k8s.io/v1"), "orch.io")).toThrow(
      /expected kind PodSecurityConfiguration/,
    );
    expect(() => parsePodSecurityConfiguration({ kind: "Other", apiVersion: "pod-security.admission.config.orch.io/v1" }, "orch.io")).toThrow(
      /PodSecurity configuration error/,
    );
    expect(() => parsePodSecurityConfiguration("text", "orch.io")).toThrow(/PodSecurity configuration error/);
  });

  it("refuses bad levels, versions and exemptions with the reference's field errors", () => {
    expect(() => parsePodSecurityConfiguration(config({ defaults: { enforce: "strict" } }), "orch.io")).toThrow(
      'PodSecurity invalid: defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
    expect(() => parsePodSecurityConfiguration(config({ defaults: { "audit-version": "1.2" }, exemptions: { usernames: ["a", "a", ""] } }), "orch.io")).toThrow(
      'PodSecurity invalid: [defaults.audit-version: Invalid value: "1.2": must be "latest" or "v1.x", exemptions.usernames[1]: Duplicate value: "a", exemptions.usernames[2]: Invalid value: "": username must not be empty]',
    );
    expect(() => parsePodSecurityConfiguration(config({ exemptions: { namespaces: ["Bad_NS"] } }), "orch.io")).toThrow(
      /exemptions\.namespaces\[0\]: Invalid value: "Bad_NS": a lowercase RFC 1123 label/,
    );
    expect(() => parsePodSecurityConfiguration(config({ exemptions: { runtimeClasses: ["a..b"] } }), "orch.io")).toThrow(
      /exemptions\.runtimeClasses\[0\]: Invalid value: "a\.\.b"/,
    );
  });
});
