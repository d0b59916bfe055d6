import type { ControllerDescriptor } from "@orch/controllers";
import { describe, expect, it } from "vitest";
import { componentNames, selectedControllers } from "./controllers.js";
import { FlagError } from "./flags.js";

const descriptor = (name: string, enabledByDefault = true): ControllerDescriptor => ({
  name,
  enabledByDefault,
  create: () => ({ name, run: async () => undefined, stop: async () => undefined }),
});
const manager = [descriptor("garbagecollector"), descriptor("tokencleaner", false)];

describe("selectedControllers", () => {
  it("runs every default-on loop for *, and an off-by-default one only when named", () => {
    expect(selectedControllers(["*"], manager)).toEqual(["garbagecollector"]);
    expect(selectedControllers(["*", "-garbagecollector", "tokencleaner"], manager)).toEqual(["tokencleaner"]);
  });

  it("refuses an unknown name with a FlagError listing the known ones", () => {
    expect(() => selectedControllers(["nosuch"], manager)).toThrow(FlagError);
    expect(() => selectedControllers(["-nosuch"], manager)).toThrow(/"nosuch" is not in the list of known controllers: garbagecollector, tokencleaner/);
  });
});

describe("componentNames", () => {
  it.each([
    [
      "orch.io",
      {
        systemNamespace: "orch-system",
        publicNamespace: "orch-public",
        controllerManager: "orch-controller-manager",
        controllerManagerUser: "system:orch-controller-manager",
      },
    ],
    [
      "k8s.io",
      {
        systemNamespace: "kube-system",
        publicNamespace: "kube-public",
        controllerManager: "kube-controller-manager",
        controllerManagerUser: "system:kube-controller-manager",
      },
    ],
  ])("names the parts for %s", (domain, names) => {
    expect(componentNames(domain)).toEqual(names);
  });
});
