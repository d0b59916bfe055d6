import { describe, expect, it } from "vitest";
import { coveredByWhitelist, isSuperset, labelsConflict, mergeTolerations, parseLabelMap, resourceListsEqual } from "./pod-scheduling.js";

describe("isSuperset", () => {
  it("counts equal tolerations as covering each other", () => {
    expect(isSuperset({ key: "a", operator: "Equal", value: "1" }, { key: "a", operator: "Equal", value: "1" })).toBe(true);
  });

  it("lets an empty key with Exists cover every key, and an empty effect every effect", () => {
    expect(isSuperset({ operator: "Exists" }, { key: "a", operator: "Equal", value: "1", effect: "NoSchedule" })).toBe(true);
    expect(isSuperset({ key: "a", operator: "Exists" }, { key: "a", operator: "Equal", value: "1", effect: "NoExecute" })).toBe(true);
    expect(isSuperset({ key: "a", operator: "Exists", effect: "NoSchedule" }, { key: "a", operator: "Exists", effect: "NoExecute" })).toBe(false);
    expect(isSuperset({ key: "b", operator: "Exists" }, { key: "a", operator: "Exists" })).toBe(false);
  });

  it("with Equal (or no operator) needs an Equal toleration of the same value", () => {
    expect(isSuperset({ key: "a", value: "1" }, { key: "a", operator: "Equal", value: "1", effect: "NoSchedule" })).toBe(true);
    expect(isSuperset({ key: "a", operator: "Equal", value: "1" }, { key: "a", operator: "Equal", value: "2", effect: "NoSchedule" })).toBe(false);
    expect(isSuperset({ key: "a", operator: "Equal", value: "1" }, { key: "a", operator: "Exists" })).toBe(false);
  });

  it("for NoExecute, bounds tolerationSeconds", () => {
    const ss = { key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 60 };
    expect(isSuperset(ss, { key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 30 })).toBe(true);
    expect(isSuperset(ss, { key: "a", operator: "Exists", effect: "NoExecute", tolerationSeconds: 90 })).toBe(false);
    expect(isSuperset(ss, { key: "a", operator: "Exists", effect: "NoExecute" })).toBe(false);
  });
});

describe("mergeTolerations", () => {
  it("keeps the first of equal tolerations and drops those another covers", () => {
    const a = { key: "a", operator: "Equal", value: "1", effect: "NoSchedule" };
    const any = { key: "a", operator: "Exists" };
    expect(mergeTolerations([a], [{ ...a }])).toEqual([a]);
    expect(mergeTolerations([a], [any])).toEqual([any]);
    expect(mergeTolerations([any], [a])).toEqual([any]);
    expect(mergeTolerations([a], [{ key: "b", operator: "Exists" }])).toEqual([a, { key: "b", operator: "Exists" }]);
  });
});

describe("coveredByWhitelist", () => {
  it("allows everything with an empty whitelist, else needs a covering entry for each", () => {
    const t = [{ key: "a", operator: "Equal", value: "1" }];
    expect(coveredByWhitelist(t, [])).toBe(true);
    expect(coveredByWhitelist(t, [{ key: "a", operator: "Exists" }])).toBe(true);
    expect(coveredByWhitelist(t, [{ key: "b", operator: "Exists" }])).toBe(false);
  });
});

describe("parseLabelMap", () => {
  it("parses k=v lists, the last value of a key winning", () => {
    expect(parseLabelMap("")).toEqual({});
    expect(parseLabelMap("env=prod, team=a")).toEqual({ env: "prod", team: "a" });
    expect(parseLabelMap("a=1,a=2")).toEqual({ a: "2" });
  });

  it("refuses anything but equality", () => {
    expect(() => parseLabelMap("env!=prod")).toThrow("invalid selector: env!=prod");
    expect(() => parseLabelMap("env")).toThrow("invalid selector: env");
    expect(() => parseLabelMap("env in (a)")).toThrow("invalid selector");
    expect(() => parseLabelMap("a=b=c")).toThrow("invalid selector: a=b=c");
  });
});

describe("labelsConflict", () => {
  it("is true only for a shared key with different values", () => {
    expect(labelsConflict({ a: "1" }, { a: "2" })).toBe(true);
    expect(labelsConflict({ a: "1" }, { a: "1", b: "2" })).toBe(false);
    expect(labelsConflict({}, { a: "1" })).toBe(false);
  });
});

describe("resourceListsEqual", () => {
  it("compares quantities by value, unset as empty", () => {
    expect(resourceListsEqual({ cpu: "100m" }, { cpu: "0.1" })).toBe(true);
    expect(resourceListsEqual({ cpu: "100m" }, { cpu: "200m" })).toBe(false);
    expect(resourceListsEqual({ cpu: "100m" }, { cpu: "100m", memory: "1Mi" })).toBe(false);
    expect(resourceListsEqual(undefined, {})).toBe(true);
  });
});
