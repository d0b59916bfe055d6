import { describe, expect, it } from "vitest";
import { parseAdmissionConfiguration } from "./configuration.js";

describe("parseAdmissionConfiguration", () => {
  it("reads each plugin's inline configuration or path, from YAML", () => {
    const text = [
      "apiVersion: apiserver.config.orch.io/v1",
      "kind: AdmissionConfiguration",
      "plugins:",
      "- name: PodNodeSelector",
      "  path: selectors.yaml",
      "- name: PodSecurity",
      "  configuration: { defaults: { enforce: baseline } }",
    ].join("\n");
    expect(parseAdmissionConfiguration(text, "orch.io")).toEqual({
      plugins: [
        { name: "PodNodeSelector", path: "selectors.yaml" },
        { name: "PodSecurity", configuration: { defaults: { enforce: "baseline" } } },
      ],
    });
    expect(parseAdmissionConfiguration('{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration"}', "k8s.io")).toEqual({ plugins: [] });
  });

  it("refuses another kind or version, an entry without a name or with both path and configuration, and text that does not parse", () => {
    expect(() => parseAdmissionConfiguration("apiVersion: v1\nkind: AdmissionConfiguration\n", "orch.io")).toThrow(
      "apiVersion must be apiserver.config.orch.io/v1",
    );
    expect(() => parseAdmissionConfiguration("apiVersion: apiserver.config.orch.io/v1\nkind: Pod\n", "orch.io")).toThrow("kind must be AdmissionConfiguration");
    expect(() =>
      parseAdmissionConfiguration("apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins: [{path: x}]\n", "orch.io"),
    ).toThrow("plugins[0].name is required");
    expect(() =>
      parseAdmissionConfiguration(
        "apiVersion: apiserver.config.orch.io/v1\nkind: AdmissionConfiguration\nplugins: [{name: A, path: x, configuration: {}}]\n",
        "orch.io",
      ),
    ).toThrow("plugins[0] (A) sets both path and configuration");
    expect(() => parseAdmissionConfiguration("plugins: [\n", "orch.io")).toThrow();
  });
});
