import type { APIObject } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { newControllerRef } from "./controller-ref.js";
import { podFromTemplate } from "./pod-control.js";

const owner: APIObject = { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "web", namespace: "prod", uid: "u1" } };
const ref = newControllerRef(owner, "apps/v1", "ReplicaSet");
const template = {
  metadata: { labels: { app: "web" }, annotations: { note: "x" }, finalizers: ["f"] },
  spec: { containers: [{ name: "c", image: "nginx" }] },
};

describe("podFromTemplate", () => {
  it("makes a Pod named <owner>- in the owner's namespace with the template's metadata, controlled by the owner", () => {
    const pod = podFromTemplate(template, owner, ref);
    expect(pod.metadata).toEqual({
      generateName: "web-",
      namespace: "prod",
      labels: { app: "web" },
      annotations: { note: "x" },
      finalizers: ["f"],
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "u1", controller: true, blockOwnerDeletion: true }],
    });
    expect(pod["spec"]).toEqual(template.spec);
    expect(pod["spec"]).not.toBe(template.spec);
  });

  it("takes a fixed name, or another prefix, and adds labels and annotations over the template's", () => {
    const named = podFromTemplate(template, owner, ref, { name: "web-0", labels: { app: "other", index: "0" } });
    expect(named.metadata.name).toBe("web-0");
    expect(named.metadata.generateName).toBeUndefined();
    expect(named.metadata.labels).toEqual({ app: "other", index: "0" });
    const prefixed = podFromTemplate(template, owner, ref, { generateName: "web-3-", annotations: { i: "3" } });
    expect(prefixed.metadata.generateName).toBe("web-3-");
    expect(prefixed.metadata.annotations).toEqual({ note: "x", i: "3" });
  });

  it("leaves out empty labels and annotations", () => {
    const pod = podFromTemplate({ spec: {} }, owner, ref);
    expect(pod.metadata.labels).toBeUndefined();
    expect(pod.metadata.annotations).toBeUndefined();
    expect(pod.metadata.finalizers).toBeUndefined();
  });
});
