import { describe, expect, it } from "vitest";
import { parseControllerManagerFlags } from "./controller-manager-flags.js";
import { FlagError } from "./flags.js";

describe("parseControllerManagerFlags", () => {
  it("has the documented defaults", () => {
    expect(parseControllerManagerFlags(["--kubeconfig", "admin.conf"])).toEqual({
      help: false,
      kubeconfig: "admin.conf",
      domain: "orch.io",
      leaderElect: true,
      controllers: { controllers: ["*"], clusterSigningDurationMs: 8760 * 3_600_000 },
    });
  });

  it.each([
    [["--kubeconfig=k", "--leader-elect=false"], { leaderElect: false }],
    [["--kubeconfig=k", "--leader-elect=true"], { leaderElect: true }],
    [["--kubeconfig=k", "--leader-elect"], { leaderElect: true }],
    [["--kubeconfig=k", "--leader-elect-lease-namespace", "ops"], { leaderElectLeaseNamespace: "ops" }],
    [["--kubeconfig=k", "--domain=k8s.io"], { domain: "k8s.io" }],
    [["--kubeconfig=k", "--controllers=*,-garbagecollector"], { controllers: { controllers: ["*", "-garbagecollector"] } }],
    [
      ["--kubeconfig=k", "--cluster-signing-cert-file=ca.crt", "--cluster-signing-key-file=ca.key", "--cluster-signing-duration=1h"],
      { controllers: { clusterSigningCertFile: "ca.crt", clusterSigningKeyFile: "ca.key", clusterSigningDurationMs: 3_600_000 } },
    ],
    [["--help"], { help: true }],
  ] as const)("accepts %j", (argv, expected) => {
    expect(parseControllerManagerFlags(argv)).toMatchObject(expected);
  });

  it.each([
    [[], /--kubeconfig is required/],
    [["--kubeconfig="], /--kubeconfig is required/],
    [["--kubeconfig=k", "--leader-elect=maybe"], /--leader-elect "maybe": want true or false/],
    [["--kubeconfig=k", "--leader-elect-lease-namespace=Not_A_Namespace"], /invalid --leader-elect-lease-namespace/],
    [["--kubeconfig=k", "--cluster-signing-key-file=ca.key"], /go together/],
    [["--kubeconfig=k", "--cluster-signing-duration=1y"], /--cluster-signing-duration/],
    [["--kubeconfig=k", "--secure-port=1"], /secure-port/],
    [["--kubeconfig=k", "extra"], /extra/],
  ] as const)("refuses %j with a FlagError", (argv, message) => {
    expect(() => parseControllerManagerFlags(argv)).toThrow(FlagError);
    expect(() => parseControllerManagerFlags(argv)).toThrow(message);
  });
});
