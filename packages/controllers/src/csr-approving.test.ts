import { Client, inProcessTransport } from "@orch/client";
import type { APIObject } from "@orch/meta";
import { APIServer } from "@orch/server";
import { afterEach, describe, expect, it } from "vitest";
import { CSRApprovingController } from "./csr-approving.js";
import { base64OfText } from "./internal/base64.js";
import { csrRef } from "./internal/refs.js";
import { aliceRequest, nodeN1Request } from "./internal/test-pki.js";
import { eventually, runController, settle, type RunningController } from "./internal/testing.js";

const running: RunningController[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
});

const nodeUsages = ["digital signature", "key encipherment", "client auth"];

async function setup() {
  // Anyone may create a request (the requesters here hold no role); RBAC decides the rest.
  const mayRequest = {
    authorize: async (a: { resource?: string; verb: string; subresource?: string }) =>
      a.resource === "certificatesigningrequests" && a.verb === "create" && !a.subresource
        ? ({ decision: "allow", reason: "" } as const)
        : ({ decision: "noOpinion", reason: "" } as const),
  };
  const server = new APIServer({ authorization: [mayRequest, "RBAC"] });
  await server.ready();
  const client = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters", "system:authenticated"] } }) });
  running.push(await runController(new CSRApprovingController(), client));
  const csrs = client.resource(csrRef);
  // Each request is created by its requester: the server records who asked in spec.username and spec.groups.
  const create = (name: string, { username, groups, ...spec }: Record<string, unknown> & { username: string; groups: string[] }) =>
    new Client({ transport: inProcessTransport(server, { user: { name: username, groups } }) }).resource(csrRef).create({
      metadata: { name },
      spec: { signerName: "orch.io/orch-apiserver-client-nodeagent", usages: nodeUsages, request: base64OfText(nodeN1Request), ...spec },
    } as APIObject);
  const conditions = async (name: string) => ((await csrs.get(name))["status"] as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? [];
  return { create, conditions };
}

describe("CSRApprovingController", () => {
  it("approves a new node's client request when its requester may create certificatesigningrequests/nodeclient", async () => {
    const { create, conditions } = await setup();
    await create("bootstrap", { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers", "system:authenticated"] });
    expect(await eventually(async () => (await conditions("bootstrap")).length > 0)).toBe(true);
    expect(await conditions("bootstrap")).toEqual([
      expect.objectContaining({
        type: "Approved",
        status: "True",
        reason: "AutoApproved",
        message: "Auto approving nodeagent client certificate after SubjectAccessReview.",
      }),
    ]);
  });

  it("approves a renewal by the node the certificate names through selfnodeclient", async () => {
    const { create, conditions } = await setup();
    await create("renewal", { username: "system:node:n1", groups: ["system:nodes", "system:authenticated"] });
    expect(await eventually(async () => (await conditions("renewal")).length > 0)).toBe(true);
    expect((await conditions("renewal"))[0]).toMatchObject({
      reason: "AutoApproved",
      message: "Auto approving self nodeagent client certificate after SubjectAccessReview.",
    });
  });

  it("leaves pending a request whose requester may not, one that is not a node client request, and other signers' requests", async () => {
    const { create, conditions } = await setup();
    await create("stranger", { username: "alice", groups: ["system:authenticated"] });
    await create("wrong-usages", { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers"], usages: ["client auth"] });
    await create("wrong-subject", { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers"], request: base64OfText(aliceRequest) });
    await create("other-signer", { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers"], signerName: "orch.io/orch-apiserver-client" });
    await create("control", { username: "system:bootstrap:abcdef", groups: ["system:bootstrappers"] });
    expect(await eventually(async () => (await conditions("control")).length > 0)).toBe(true);
    await settle(300);
    for (const name of ["stranger", "wrong-usages", "wrong-subject", "other-signer"]) expect(await conditions(name)).toEqual([]);
  });
});
