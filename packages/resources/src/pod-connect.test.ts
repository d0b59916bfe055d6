import { StatusError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { isGlobalUnicast, podConnectSubresources, podContainer } from "./pod-connect.js";
import type { StrategyContext } from "./resource-type.js";

const pod = (containers: string[], extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns" },
  spec: { containers: containers.map((name) => ({ name })), ...extra },
});

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof StatusError) return `${error.status.code} ${error.status.message}`;
    throw error;
  }
  throw new Error("did not throw");
}

describe("podContainer", () => {
  it("picks the only container, and checks a named one among every kind of container", () => {
    expect(podContainer(pod(["app"]), "")).toBe("app");
    expect(podContainer(pod(["a", "b"], { ephemeralContainers: [{ name: "debug" }] }), "debug")).toBe("debug");
    expect(messageOf(() => podContainer(pod(["a", "b"]), "c"))).toBe("400 container c is not valid for pod p");
    expect(messageOf(() => podContainer(pod([]), ""))).toBe("400 a container name must be specified for pod p");
  });
});

describe("isGlobalUnicast", () => {
  it("accepts routable addresses and refuses loopback, link-local, multicast and unspecified ones", () => {
    for (const ip of ["10.244.0.7", "192.0.2.1", "2001:db8::1", "fd00::5"]) expect(isGlobalUnicast(ip), ip).toBe(true);
    for (const ip of ["", "127.0.0.1", "169.254.1.1", "224.0.0.1", "0.0.0.0", "255.255.255.255", "::1", "::", "fe80::1", "ff02::1", "300.1.1.1"]) {
      expect(isGlobalUnicast(ip), ip).toBe(false);
    }
  });
});

describe("the options of the connect sub-resources", () => {
  const q = (text: string) => new URLSearchParams(text);

  it("reads booleans as the reference converts them and repeats of command", () => {
    const exec = podConnectSubresources["exec"];
    expect(exec?.options(q("stdin=true&stdout=0&stderr=F&tty=x&command=ls&command=-l"), "", "p")).toEqual({
      container: "",
      stdin: true,
      stdout: false,
      stderr: false,
      tty: true,
      command: ["ls", "-l"],
    });
  });

  it("reads comma-separated and repeated ports, and refuses one out of range", () => {
    const forward = podConnectSubresources["portforward"];
    expect(forward?.options(q("ports=80,443&ports=8080"), "", "p")).toEqual({ ports: [80, 443, 8080] });
    expect(messageOf(() => forward?.options(q("ports=70000"), "", "p"))).toBe(
      '400 cannot convert to []int32: strconv.ParseUint: parsing "70000": value out of range',
    );
  });

  it("refuses a log sinceSeconds below 1 and a sinceTime that is not a time", () => {
    const log = podConnectSubresources["log"];
    expect(messageOf(() => log?.options(q("sinceSeconds=0"), "", "p"))).toBe(
      '422 PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
    );
    expect(messageOf(() => log?.options(q("sinceTime=yesterday"), "", "p"))).toMatch(/^400 parsing time "yesterday"/);
  });

  it("locates an exec through the node agent's preferred address and port", async () => {
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "n" },
      status: {
        addresses: [
          { type: "ExternalIP", address: "203.0.113.9" },
          { type: "InternalIP", address: "10.0.0.9" },
        ],
      },
    };
    const ctx: StrategyContext = {
      domain: "orch.io",
      now: 0,
      get: async (_group, resource) => (resource === "nodes" ? node : pod(["app"], { nodeName: "n" })),
    };
    const exec = podConnectSubresources["exec"];
    const target = await exec?.locate("ns", "p", { container: "", stdin: false, stdout: true, stderr: false, tty: false, command: ["ls"] }, ctx);
    expect(target).toEqual({
      type: "backend",
      via: "dial",
      host: "10.0.0.9:10250",
      location: "https://10.0.0.9:10250/exec/ns/p/app?stdout=1&command=ls",
      upgradeRequired: true,
    });
  });
});
