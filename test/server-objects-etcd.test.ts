/**
 * Two `orch-apiserver`s on one etcd create the objects a server keeps for itself once: one
 * `kubernetes` Service whose Endpoints list both advertised addresses (each server's Lease keeps
 * its own), one APIService per served version, the two system PriorityClasses; a server that
 * stops leaves the Endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { startEtcdCluster, type EtcdCluster } from "./support/etcd.js";

describe("the objects two orch-apiservers on one etcd keep for themselves", () => {
  let etcd: EtcdCluster;
  let a: RunningAPIServer;
  let b: RunningAPIServer;
  let kubectl: Kubectl;

  beforeAll(async () => {
    etcd = await startEtcdCluster(1);
    const flags = (address: string) => ["--etcd-servers", etcd.endpoints.join(","), "--advertise-address", address];
    [a, b] = await Promise.all([startAPIServer({ flags: flags("192.0.2.51") }), startAPIServer({ flags: flags("192.0.2.52") })]);
    kubectl = await kubectlFor(a);
  }, 120_000);
  afterAll(async () => {
    await kubectl?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await etcd?.stop();
  });

  it("lists both servers in the Endpoints of the one kubernetes Service", async () => {
    const services = await kubectl(["get", "svc", "-o", "name"]);
    expect(services.stdout.trim().split("\n")).toEqual(["service/kubernetes"]);
    const ips = await kubectl(["get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[0].addresses[*].ip}"]);
    expect(ips.stdout.split(" ")).toEqual(["192.0.2.51", "192.0.2.52"]);
  });

  it("has each APIService and PriorityClass once", async () => {
    const apiServices = await kubectl(["get", "apiservices", "-o", "name"]);
    const names = apiServices.stdout.trim().split("\n");
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain("apiservice.apiregistration.orch.io/v1.");
    const classes = await kubectl(["get", "priorityclasses", "-o", "name"]);
    expect(classes.stdout.trim().split("\n")).toEqual([
      "priorityclass.scheduling.orch.io/system-cluster-critical",
      "priorityclass.scheduling.orch.io/system-node-critical",
    ]);
  });

  it("drops a server that stops from the Endpoints", async () => {
    expect(await b.stop()).toBe(0);
    const ips = await kubectl(["get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[0].addresses[*].ip}"]);
    expect(ips.stdout).toBe("192.0.2.51");
  });
});
