import type { APIObject, StatusError } from "@orch/meta";
import { podType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices, statusErrorOf } from "../internal/testing.js";
import { securityContextDeny } from "./security-context-deny.js";

const plugin = securityContextDeny({ services: fakeServices(), configuration: undefined });
const pod = (spec: Record<string, unknown>): APIObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" }, spec });

function refusal(object: APIObject, operation: "CREATE" | "UPDATE" = "CREATE", subresource = ""): Promise<StatusError | undefined> {
  return statusErrorOf(() => plugin.validate?.(attributesFor({ operation, type: podType, object, oldObject: object, subresource })));
}

describe("SecurityContextDeny", () => {
  it("looks at CREATE and UPDATE", () => {
    expect(plugin.operations).toEqual(["CREATE", "UPDATE"]);
  });

  it("admits pods without the denied fields", async () => {
    expect(await refusal(pod({ containers: [{ name: "c" }] }))).toBeUndefined();
    expect(
      await refusal(pod({ securityContext: { runAsNonRoot: true }, containers: [{ name: "c", securityContext: { privileged: true, capabilities: {} } }] })),
    ).toBeUndefined();
  });

  it("refuses each pod-level field with the reference's message, in its order", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ supplementalGroups: [1234] }, "pod.Spec.SecurityContext.SupplementalGroups is forbidden"],
      [{ seLinuxOptions: {} }, "pod.Spec.SecurityContext.SELinuxOptions is forbidden"],
      [{ runAsUser: 1 }, "pod.Spec.SecurityContext.RunAsUser is forbidden"],
      [{ fsGroup: 1001 }, "pod.Spec.SecurityContext.FSGroup is forbidden"],
      [{ fsGroup: 1, runAsUser: 1, supplementalGroups: [] }, "pod.Spec.SecurityContext.SupplementalGroups is forbidden"],
    ];
    for (const [securityContext, why] of cases) {
      const error = await refusal(pod({ securityContext, containers: [{ name: "c" }] }));
      expect(error?.status.code).toBe(403);
      expect(error?.message).toBe(`pods "p" is forbidden: ${why}`);
    }
  });

  it("refuses runAsUser and seLinuxOptions on init containers and containers", async () => {
    for (const list of ["initContainers", "containers"]) {
      expect((await refusal(pod({ [list]: [{ name: "c", securityContext: { runAsUser: 0 } }] }), "UPDATE"))?.message).toBe(
        'pods "p" is forbidden: SecurityContext.RunAsUser is forbidden',
      );
      expect((await refusal(pod({ [list]: [{ name: "c", securityContext: { seLinuxOptions: { type: "t" }, runAsUser: 1 } }] })))?.message).toBe(
        'pods "p" is forbidden: SecurityContext.SELinuxOptions is forbidden',
      );
    }
  });

  it("does not look at runAsGroup, ephemeral containers or sub-resources, as the reference", async () => {
    expect(await refusal(pod({ securityContext: { runAsGroup: 1 }, containers: [{ name: "c", securityContext: { runAsGroup: 1 } }] }))).toBeUndefined();
    expect(await refusal(pod({ containers: [{ name: "c" }], ephemeralContainers: [{ name: "e", securityContext: { runAsUser: 0 } }] }))).toBeUndefined();
    expect(await refusal(pod({ securityContext: { runAsUser: 1 } }), "UPDATE", "status")).toBeUndefined();
  });

  it("answers 400 when a pod write does not carry a Pod", async () => {
    const attrs = attributesFor({ operation: "CREATE", type: podType, object: pod({}), kind: { group: "", version: "v1", kind: "Binding" } });
    await expect((async () => plugin.validate?.(attrs))()).rejects.toMatchObject({
      status: { code: 400, message: "Resource was marked with kind Pod but was unable to be converted" },
    });
  });
});
