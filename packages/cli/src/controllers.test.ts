import type { ControllerDescriptor } from "@orch/controllers";
import { serverControllerNames } from "@orch/server";
import { describe, expect, it } from "vitest";
import { componentNames, managerControllers, splitControllers } from "./controllers.js";
import { FlagError } from "./flags.js";

const descriptor = (name: string, enabledByDefault = true): ControllerDescriptor => ({
  name,
  enabledByDefault,
  create: () => ({ name, run: async () => undefined, stop: async () => undefined }),
});
const manager = [descriptor("garbagecollector"), descriptor("tokencleaner", false)];

describe("splitControllers", () => {
  it("runs every default-on loop of both sides for *, and turns nothing of the server's off", () => {
    expect(splitControllers(["*"], manager, serverControllerNames)).toEqual({ server: {}, manager: ["garbagecollector"] });
  });

  it("turns off a server loop named with -name, and runs an off-by-default one only when named", () => {
    expect(splitControllers(["*", "-namespace", "-garbagecollector", "tokencleaner"], manager, serverControllerNames)).toEqual({
      server: { namespace: false },
      manager: ["tokencleaner"],
    });
  });

  it("turns every server loop off for a selection that does not enable them", () => {
    expect(splitControllers(["garbagecollector"], manager, serverControllerNames)).toEqual({
      server: { namespace: false, serviceaccount: false, resourcequota: false, "clusterrole-aggregation": false },
      manager: ["garbagecollector"],
    });
  });

  it("refuses an unknown name with a FlagError listing the known ones", () => {
    expect(() => splitControllers(["nosuch"], manager, serverControllerNames)).toThrow(FlagError);
    expect(() => splitControllers(["-nosuch"], manager, serverControllerNames)).toThrow(/"nosuch" is not in the list of known controllers: clusterrole-aggregation, garbagecollector/);
  });
});

describe("managerControllers", () => {
  it("leaves the server's loops out of *, and accepts -name of one", () => {
    expect(managerControllers(["*", "-namespace"], manager, serverControllerNames)).toEqual(["garbagecollector"]);
  });

  it("refuses naming a loop the API server runs itself", () => {
    expect(() => managerControllers(["*", "serviceaccount", "namespace"], manager, serverControllerNames)).toThrow(
      "invalid --controllers: namespace, serviceaccount run inside orch-apiserver and cannot run in orch-controller-manager",
    );
  });
});

describe("componentNames", () => {
  it.each([
    ["orch.io", { systemNamespace: "orch-system", publicNamespace: "orch-public", controllerManager: "orch-controller-manager", controllerManagerUser: "system:orch-controller-manager" }],
    ["k8s.io", { systemNamespace: "kube-system", publicNamespace: "kube-public", controllerManager: "kube-controller-manager", controllerManagerUser: "system:kube-controller-manager" }],
  ])("names the parts for %s", (domain, names) => {
    expect(componentNames(domain)).toEqual(names);
  });
});
