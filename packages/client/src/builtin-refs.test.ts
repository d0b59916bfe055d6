import { configMapType, eventType, leaseType, namespaceType, secretType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { configMapsRef, eventsRef, leasesRef, namespacesRef, secretsRef } from "./builtin-refs.js";
import * as generated from "./generated/refs.js";
import { resourceRefOf } from "./resource-ref.js";

describe("built-in refs", () => {
  it("agree with the resource catalog", () => {
    expect(configMapsRef).toEqual(resourceRefOf(configMapType));
    expect(secretsRef).toEqual(resourceRefOf(secretType));
    expect(namespacesRef).toEqual(resourceRefOf(namespaceType));
    expect(eventsRef).toEqual(resourceRefOf(eventType));
    expect(leasesRef).toEqual(resourceRefOf(leaseType));
  });

  it("are the generated refs, not copies of them", () => {
    expect([configMapsRef, secretsRef, namespacesRef, eventsRef, leasesRef]).toEqual([
      generated.configMapsRef,
      generated.secretsRef,
      generated.namespacesRef,
      generated.eventsRef,
      generated.leasesRef,
    ]);
    expect(configMapsRef).toBe(generated.configMapsRef);
    expect(leasesRef).toBe(generated.leasesRef);
  });
});
