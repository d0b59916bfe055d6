import { configMapType, podType } from "@orch/resources";
import { badRequest } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { AdmissionChain, type AdmissionObservation } from "./chain.js";
import { passedAtOnce, type AdmissionPlugin } from "./plugin.js";
import { attributesFor } from "./internal/testing.js";

const write = () =>
  attributesFor({ operation: "CREATE", type: configMapType, object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } } });

describe("AdmissionChain", () => {
  it("reports each plugin's and each phase's duration to its observer, with refusals marked", async () => {
    const seen: AdmissionObservation[] = [];
    let t = 0;
    const chain = new AdmissionChain(
      [
        { name: "ok", admit: () => undefined },
        { name: "no", validate: () => Promise.reject(badRequest("refused")) },
      ],
      { observe: (o) => void seen.push(o), now: () => (t += 1000) },
    );
    await chain.admit(write());
    await expect(chain.validate(write())).rejects.toThrow("refused");
    expect(seen).toEqual([
      { kind: "controller", name: "ok", type: "admit", operation: "CREATE", rejected: false, seconds: 1 },
      { kind: "step", name: "", type: "admit", operation: "CREATE", rejected: false, seconds: 3 },
      { kind: "controller", name: "no", type: "validate", operation: "CREATE", rejected: true, seconds: 1 },
      { kind: "step", name: "", type: "validate", operation: "CREATE", rejected: true, seconds: 3 },
    ]);
  });

  it("runs every mutating plugin in order, then (separately) every validating one, for the operations each looks at", async () => {
    const seen: string[] = [];
    const plugin = (name: string, operations?: AdmissionPlugin["operations"]): AdmissionPlugin => ({
      name,
      ...(operations ? { operations } : {}),
      admit: () => void seen.push(`admit ${name}`),
      validate: () => void seen.push(`validate ${name}`),
    });
    const chain = new AdmissionChain([plugin("a"), plugin("deletes-only", ["DELETE"]), plugin("b")]);
    expect(chain.handles("CREATE")).toBe(true);
    await chain.admit(write());
    await chain.validate(write());
    expect(seen).toEqual(["admit a", "admit b", "validate a", "validate b"]);
    expect(new AdmissionChain([plugin("x", ["DELETE"])]).handles("UPDATE")).toBe(false);
  });

  it("runs the mutating phase once more when a plugin asks for reinvocation, and only once", async () => {
    let calls = 0;
    const chain = new AdmissionChain([
      {
        name: "again",
        admit(attrs) {
          calls++;
          attrs.reinvocation.shouldReinvoke = true;
        },
      },
    ]);
    const attrs = write();
    await chain.admit(attrs);
    expect(calls).toBe(2);
    expect(attrs.reinvocation.isReinvoke).toBe(true);
  });

  it("answers a plugin's own StatusError as it is, anything else as 403 on the written object", async () => {
    const teapot = new AdmissionChain([
      {
        name: "t",
        validate: () => {
          throw badRequest("no teapots");
        },
      },
    ]);
    await expect(teapot.validate(write())).rejects.toMatchObject({ code: 400, message: "no teapots" });
    const plain = new AdmissionChain([
      {
        name: "p",
        admit: () => {
          throw new Error("not today");
        },
      },
    ]);
    await expect(plain.admit(write())).rejects.toMatchObject({ code: 403, reason: "Forbidden", message: 'configmaps "c" is forbidden: not today' });
  });

  it("does not call a plugin for a resource it does not handle, yet reports it as passing, and asks once per resource", async () => {
    const seen: string[] = [];
    const asked: string[] = [];
    const observed: AdmissionObservation[] = [];
    const chain = new AdmissionChain(
      [
        {
          name: "pods-only",
          handlesResource: (group, resource) => {
            asked.push(`${group}/${resource}`);
            return group === "" && resource === "pods";
          },
          admit: () => void seen.push("admit pods-only"),
          validate: () => void seen.push("validate pods-only"),
        },
        { name: "all", admit: () => void seen.push("admit all") },
      ],
      { observe: (o) => void observed.push(o), now: () => 0 },
    );
    await chain.admit(write());
    await chain.admit(write());
    await chain.validate(write());
    expect(seen).toEqual(["admit all", "admit all"]);
    expect(observed.filter((o) => o.kind === "controller").map((o) => `${o.type} ${o.name} ${o.rejected}`)).toEqual([
      "admit pods-only false",
      "admit all false",
      "admit pods-only false",
      "admit all false",
      "validate pods-only false",
    ]);
    // Once per phase and operation for configmaps.
    expect(asked).toEqual(["/configmaps", "/configmaps"]);
    const pod = attributesFor({ operation: "CREATE", type: podType, object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" } } });
    await chain.admit(pod);
    expect(seen).toEqual(["admit all", "admit all", "admit pods-only", "admit all"]);
  });

  it("runs synchronous and asynchronous steps in order, awaiting only the asynchronous ones, and reports a late refusal", async () => {
    const seen: string[] = [];
    const observed: AdmissionObservation[] = [];
    let t = 0;
    const chain = new AdmissionChain(
      [
        { name: "sync-1", admit: () => void seen.push("sync-1") },
        {
          name: "async-1",
          admit: async () => {
            await Promise.resolve();
            seen.push("async-1");
          },
        },
        { name: "sync-2", admit: () => void seen.push("sync-2") },
        {
          name: "async-2",
          admit: async () => {
            await Promise.resolve();
            seen.push("async-2");
          },
        },
        { name: "sync-3", admit: () => void seen.push("sync-3") },
        {
          name: "late-no",
          validate: async () => {
            await Promise.resolve();
            throw new Error("late");
          },
        },
        { name: "after", validate: () => void seen.push("after") },
      ],
      { observe: (o) => void observed.push(o), now: () => (t += 1000) },
    );
    await chain.admit(write());
    expect(seen).toEqual(["sync-1", "async-1", "sync-2", "async-2", "sync-3"]);
    expect(observed.map((o) => `${o.kind} ${o.name} ${o.seconds}`)).toEqual([
      "controller sync-1 1",
      "controller async-1 1",
      "controller sync-2 1",
      "controller async-2 1",
      "controller sync-3 1",
      "step  11",
    ]);
    observed.length = 0;
    await expect(chain.validate(write())).rejects.toMatchObject({ code: 403, message: 'configmaps "c" is forbidden: late' });
    expect(seen).not.toContain("after");
    expect(observed.map((o) => `${o.kind} ${o.name} ${o.rejected}`)).toEqual(["controller late-no true", "step  true"]);
  });

  it("runs a step that answers with passedAtOnce as a synchronous one, and answers passedAtOnce when no step awaited", async () => {
    const seen: string[] = [];
    const chain = new AdmissionChain([
      { name: "at-once", admit: () => (seen.push("at-once"), passedAtOnce), validate: () => passedAtOnce },
      { name: "sync", admit: () => void seen.push("sync") },
    ]);
    const admitted = chain.admit(write());
    // Both steps ran before anything was awaited, and no promise was made for the phase.
    expect(seen).toEqual(["at-once", "sync"]);
    expect(admitted).toBe(passedAtOnce);
    expect(chain.validate(write())).toBe(passedAtOnce);
    await admitted;
    const refusing = new AdmissionChain([
      { name: "no", validate: () => passedAtOnce },
      {
        name: "no-2",
        validate: () => {
          throw new Error("refused");
        },
      },
    ]);
    await expect(refusing.validate(write())).rejects.toMatchObject({ code: 403, message: 'configmaps "c" is forbidden: refused' });
  });
});
