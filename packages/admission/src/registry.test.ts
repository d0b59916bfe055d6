import { describe, expect, it } from "vitest";
import { admissionPluginOrder, buildAdmissionPlugins, defaultAdmissionPlugins, resolveAdmissionPlugins } from "./registry.js";
import { fakeServices } from "./internal/testing.js";

describe("resolveAdmissionPlugins", () => {
  it("is the default-on set without flags, in the fixed order", () => {
    expect(resolveAdmissionPlugins()).toEqual([...defaultAdmissionPlugins]);
    expect(defaultAdmissionPlugins).toEqual(admissionPluginOrder.filter((p) => defaultAdmissionPlugins.includes(p)));
  });

  it("adds and removes plugins, keeping the fixed order whatever the flags' order", () => {
    const plugins = resolveAdmissionPlugins(["PodNodeSelector", "NamespaceAutoProvision"], ["ResourceQuota", "LimitRanger"]);
    expect(plugins[0]).toBe("NamespaceAutoProvision");
    expect(plugins).toContain("PodNodeSelector");
    expect(plugins).not.toContain("ResourceQuota");
    expect(plugins).not.toContain("LimitRanger");
    expect(plugins.indexOf("PodSecurity")).toBeLessThan(plugins.indexOf("PodNodeSelector"));
  });

  it("refuses unknown and removed plugins, and one both enabled and disabled", () => {
    expect(() => resolveAdmissionPlugins(["Nope"])).toThrow('enable-admission-plugins plugin "Nope" is unknown');
    expect(() => resolveAdmissionPlugins([], ["Nope"])).toThrow('disable-admission-plugins plugin "Nope" is unknown');
    expect(() => resolveAdmissionPlugins(["PodSecurityPolicy"])).toThrow(/admission plugin "PodSecurityPolicy" was removed in v1.25/);
    expect(() => resolveAdmissionPlugins(["PodNodeSelector"], ["PodNodeSelector"])).toThrow(
      "PodNodeSelector in enable-admission-plugins and disable-admission-plugins overlapped",
    );
  });
});

describe("buildAdmissionPlugins", () => {
  it("builds default plugins that name the resources they look at, so a write of another kind does not call them", () => {
    const plugins = buildAdmissionPlugins(defaultAdmissionPlugins, { services: fakeServices() });
    const looking = (group: string, resource: string) => plugins.filter((p) => p.handlesResource?.(group, resource) !== false).map((p) => p.name);
    expect(looking("", "configmaps")).toEqual(["NamespaceLifecycle", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook", "ResourceQuota"]);
    expect(looking("", "pods")).toEqual([
      "NamespaceLifecycle",
      "LimitRanger",
      "ServiceAccount",
      "PodSecurity",
      "Priority",
      "RuntimeClass",
      "MutatingAdmissionWebhook",
      "ValidatingAdmissionWebhook",
      "ResourceQuota",
    ]);
    expect(looking("apps", "deployments")).toContain("PodSecurity");
    expect(looking("", "namespaces")).toContain("PodSecurity");
    expect(looking("", "nodes")).toContain("TaintNodesByCondition");
    expect(looking("", "persistentvolumeclaims")).toEqual(
      expect.arrayContaining(["LimitRanger", "StorageObjectInUseProtection", "PersistentVolumeClaimResize"]),
    );
    expect(looking("", "persistentvolumes")).toContain("StorageObjectInUseProtection");
    expect(looking("scheduling.orch.io", "priorityclasses")).toContain("Priority");
    expect(looking("certificates.orch.io", "certificatesigningrequests")).toContain("CertificateSubjectRestriction");
  });

  it("builds the named plugins in the fixed order and puts an embedder's plugins before the webhooks and the quota", () => {
    const own = { name: "Mine" };
    const plugins = buildAdmissionPlugins(["ResourceQuota", own, "ValidatingAdmissionWebhook", "NamespaceLifecycle"], { services: fakeServices() });
    expect(plugins.map((p) => p.name)).toEqual(["NamespaceLifecycle", "Mine", "ValidatingAdmissionWebhook", "ResourceQuota"]);
  });

  it("hands each plugin its configuration, and a configuration it cannot use stops the build", () => {
    expect(() => buildAdmissionPlugins(["PodSecurity"], { services: fakeServices() }, () => ({ kind: "Nonsense" }))).toThrow(
      /expected kind PodSecurityConfiguration .*, not "Nonsense"/,
    );
  });
});
