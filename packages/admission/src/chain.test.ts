import { configMapType } from "@orch/resources";
import { badRequest } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { AdmissionChain, type AdmissionObservation } from "./chain.js";
import type { AdmissionPlugin } from "./plugin.js";
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
});
