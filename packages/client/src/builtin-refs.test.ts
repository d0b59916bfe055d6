import { configMapType, eventType, leaseType, namespaceType, secretType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { configMapsRef, eventsRef, leasesRef, namespacesRef, secretsRef } from "./builtin-refs.js";
import { resourceRefOf } from "./resource-ref.js";

describe("built-in refs", () => {
  it("agree with the resource catalog", () => {
    expect(configMapsRef).toEqual(resourceRefOf(configMapType));
    expect(secretsRef).toEqual(resourceRefOf(secretType));
    expect(namespacesRef).toEqual(resourceRefOf(namespaceType));
    expect(eventsRef).toEqual(resourceRefOf(eventType));
    expect(leasesRef).toEqual(resourceRefOf(leaseType));
  });
});
