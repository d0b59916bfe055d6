import type { APIObject, FieldError } from "@orch/meta";
import { describe, expect, it } from "vitest";
import { defaultPriorityLevelConfiguration, priorityLevelConfigurationType, validatePriorityLevelConfiguration } from "./priority-level-configuration.js";

const ctx = { domain: "orch.io", now: 0 };
const queuing = { queues: 64, handSize: 8, queueLengthLimit: 50 };
const limited = (extra: Record<string, unknown> = {}, response: Record<string, unknown> = { type: "Queue", queuing }) => ({
  assuredConcurrencyShares: 30,
  limitResponse: response,
  ...extra,
});
const pl = (spec: Record<string, unknown>, name = "workload-low", status?: Record<string, unknown>): APIObject => ({
  metadata: { name },
  spec,
  ...(status ? { status } : {}),
});
const causes = (errors: FieldError[]) => errors.map((e) => [e.field, e.type]);
const strategy = priorityLevelConfigurationType.strategy ?? {};

describe("PriorityLevelConfiguration", () => {
  it("is a cluster-scoped flowcontrol.apiserver.{domain}/v1beta2 kind with a status sub-resource", () => {
    expect(priorityLevelConfigurationType).toMatchObject({
      group: "flowcontrol.apiserver.{domain}",
      resource: "prioritylevelconfigurations",
      scope: "Cluster",
      subresources: ["status"],
    });
  });

  it("defaults shares, lendablePercent and the queuing parameters", () => {
    const object = pl({ type: "Limited", limited: { limitResponse: { type: "Queue", queuing: {} } } });
    defaultPriorityLevelConfiguration(object);
    expect(object["spec"]).toEqual({
      type: "Limited",
      limited: {
        assuredConcurrencyShares: 30,
        lendablePercent: 0,
        limitResponse: { type: "Queue", queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
      },
    });
    const reject = pl({ type: "Limited", limited: { assuredConcurrencyShares: 5, limitResponse: { type: "Reject" } } });
    strategy.defaults?.(reject, ctx);
    expect(reject["spec"]).toEqual({ type: "Limited", limited: { assuredConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: "Reject" } } });
    const exempt = pl({ type: "Exempt" }, "exempt");
    strategy.defaults?.(exempt, ctx);
    expect(exempt["spec"]).toEqual({ type: "Exempt" });
  });

  it.each([
    ["a valid queuing level", pl({ type: "Limited", limited: limited({ lendablePercent: 50, borrowingLimitPercent: 10 }) }), []],
    ["a valid rejecting level", pl({ type: "Limited", limited: limited({}, { type: "Reject" }) }), []],
    ["the exempt level", pl({ type: "Exempt" }, "exempt"), []],
    ["Exempt under another name", pl({ type: "Exempt" }), [["spec.type", "FieldValueInvalid"]]],
    ["Limited under the name exempt", pl({ type: "Limited", limited: limited() }, "exempt"), [["spec.type", "FieldValueInvalid"]]],
    ["an unknown type", pl({ type: "Open" }), [["spec.type", "FieldValueNotSupported"]]],
    ["a missing type", pl({}), [["spec.type", "FieldValueNotSupported"]]],
    ["Exempt with limited", pl({ type: "Exempt", limited: limited() }, "exempt"), [["spec.limited", "FieldValueForbidden"]]],
    ["Limited without limited", pl({ type: "Limited" }), [["spec.limited", "FieldValueRequired"]]],
    [
      "zero shares",
      pl({ type: "Limited", limited: limited({ assuredConcurrencyShares: 0 }) }),
      [["spec.limited.assuredConcurrencyShares", "FieldValueInvalid"]],
    ],
    [
      "an unknown limit response",
      pl({ type: "Limited", limited: limited({}, { type: "Drop" }) }),
      [["spec.limited.limitResponse.type", "FieldValueNotSupported"]],
    ],
    [
      "Reject with queuing",
      pl({ type: "Limited", limited: limited({}, { type: "Reject", queuing }) }),
      [["spec.limited.limitResponse.queuing", "FieldValueForbidden"]],
    ],
    ["Queue without queuing", pl({ type: "Limited", limited: limited({}, { type: "Queue" }) }), [["spec.limited.limitResponse.queuing", "FieldValueRequired"]]],
    [
      "zero queues",
      pl({ type: "Limited", limited: limited({}, { type: "Queue", queuing: { ...queuing, queues: 0 } }) }),
      [
        ["spec.limited.limitResponse.queuing.queues", "FieldValueInvalid"],
        ["spec.limited.limitResponse.queuing.handSize", "FieldValueInvalid"],
      ],
    ],
    [
      "too many queues",
      pl({ type: "Limited", limited: limited({}, { type: "Queue", queuing: { ...queuing, queues: 10_000_001 } }) }),
      [
        ["spec.limited.limitResponse.queuing.queues", "FieldValueInvalid"],
        ["spec.limited.limitResponse.queuing.handSize", "FieldValueInvalid"],
      ],
    ],
    [
      "zero queue length",
      pl({ type: "Limited", limited: limited({}, { type: "Queue", queuing: { ...queuing, queueLengthLimit: 0 } }) }),
      [["spec.limited.limitResponse.queuing.queueLengthLimit", "FieldValueInvalid"]],
    ],
    [
      "zero hand size",
      pl({ type: "Limited", limited: limited({}, { type: "Queue", queuing: { ...queuing, handSize: 0 } }) }),
      [["spec.limited.limitResponse.queuing.handSize", "FieldValueInvalid"]],
    ],
    [
      "a hand larger than the queues",
      pl({ type: "Limited", limited: limited({}, { type: "Queue", queuing: { ...queuing, queues: 4, handSize: 5 } }) }),
      [["spec.limited.limitResponse.queuing.handSize", "FieldValueInvalid"]],
    ],
    [
      "a hand needing more than 60 entropy bits",
      pl({ type: "Limited", limited: limited({}, { type: "Queue", queuing: { ...queuing, queues: 1024, handSize: 7 } }) }),
      [["spec.limited.limitResponse.queuing.handSize", "FieldValueInvalid"]],
    ],
    ["lendablePercent 101", pl({ type: "Limited", limited: limited({ lendablePercent: 101 }) }), [["spec.limited.lendablePercent", "FieldValueInvalid"]]],
    [
      "a negative borrowingLimitPercent",
      pl({ type: "Limited", limited: limited({ borrowingLimitPercent: -1 }) }),
      [["spec.limited.borrowingLimitPercent", "FieldValueInvalid"]],
    ],
    [
      "duplicate condition types",
      pl({ type: "Exempt" }, "exempt", { conditions: [{ type: "A" }, { type: "A" }] }),
      [["status.conditions[1].type", "FieldValueDuplicate"]],
    ],
  ])("validates %s", (_what, object, expected) => {
    expect(causes(validatePriorityLevelConfiguration(object))).toEqual(expected);
  });

  it("prints the reference's messages", () => {
    expect(validatePriorityLevelConfiguration(pl({ type: "Exempt" }))[0]?.detail).toBe("type must be 'Exempt' if and only if name is 'exempt'");
    const entropy = pl({ type: "Limited", limited: limited({}, { type: "Queue", queuing: { ...queuing, queues: 1024, handSize: 7 } }) });
    expect(validatePriorityLevelConfiguration(entropy)[0]?.detail).toBe("required entropy bits of deckSize 1024 and handSize 7 should not be greater than 60");
  });

  it("resets status on create and keeps it on spec writes", () => {
    const object = pl({ type: "Exempt" }, "exempt", { conditions: [{ type: "A" }] });
    strategy.prepareForCreate?.(object, ctx);
    expect(object["status"]).toEqual({});
    const old = pl({ type: "Exempt" }, "exempt", { conditions: [{ type: "A" }] });
    const next = pl({ type: "Exempt" }, "exempt");
    strategy.prepareForUpdate?.(next, old, ctx);
    expect(next["status"]).toEqual({ conditions: [{ type: "A" }] });
  });

  it("prints TYPE ASSUREDCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT", () => {
    const columns = strategy.tableColumns ?? [];
    expect(columns.map((c) => c.cell(pl({ type: "Limited", limited: limited() })))).toEqual(["Limited", "30", "64", "8", "50"]);
    expect(columns.map((c) => c.cell(pl({ type: "Exempt" }, "exempt")))).toEqual(["Exempt", "<none>", "<none>", "<none>", "<none>"]);
  });
});
