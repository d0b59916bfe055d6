import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FieldPath, formatFieldError } from "./field-error.js";
import { invalid } from "./status-error.js";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  validateAnnotations,
  validateDNS1123Label,
  validateDNS1123Subdomain,
  validateLabels,
  validateLabelValue,
  validateObjectName,
  validateQualifiedName,
} from "./validation.js";

const subdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const namePartMessage =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const details = (errors: { detail: string }[]) => errors.map((e) => e.detail);

describe("DNS names", () => {
  it("accepts lowercase RFC 1123 subdomains and labels", () => {
    for (const ok of ["a", "0", "example.com", "a-b.c-d", "1.2.3", "a".repeat(253)]) expect(isDNS1123Subdomain(ok)).toBe(true);
    for (const ok of ["a", "my-name", "123-abc", "a".repeat(63)]) expect(isDNS1123Label(ok)).toBe(true);
  });

  it("rejects what the reference rejects", () => {
    for (const bad of ["", "A", "-a", "a-", "a..b", ".a", "a.", "a_b", "a b", "é", "a".repeat(254)]) {
      expect(isDNS1123Subdomain(bad), bad).toBe(false);
    }
    for (const bad of ["", "a.b", "A", "-a", "a-", "a".repeat(64)]) expect(isDNS1123Label(bad), bad).toBe(false);
  });

  it("words subdomain errors as the reference does", () => {
    expect(validateDNS1123Subdomain("Foo", "metadata.name")).toEqual([
      { type: "FieldValueInvalid", field: "metadata.name", value: "Foo", detail: subdomainMessage },
    ]);
    expect(details(validateDNS1123Subdomain(`${"a".repeat(253)}-`, "n"))).toEqual(["must be no more than 253 characters", subdomainMessage]);
  });

  it("says a label with dots must not contain dots", () => {
    expect(details(validateDNS1123Label("a.b", "metadata.name"))).toEqual(["must not contain dots"]);
    expect(details(validateDNS1123Label("A", "metadata.name"))).toEqual([labelMessage]);
  });

  it("counts bytes, not UTF-16 units, for the length limit", () => {
    expect(details(validateDNS1123Label("é".repeat(32), "x"))).toContain("must be no more than 63 characters");
  });

  it("stays linear on long hostile names", () => {
    const hostile = `${"a-".repeat(200_000)}!`;
    const start = performance.now();
    expect(isDNS1123Subdomain(hostile)).toBe(false);
    expect(validateQualifiedName(hostile, "k")).not.toEqual([]);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe("validateObjectName", () => {
  it("requires a name", () => {
    expect(validateObjectName("")).toEqual([{ type: "FieldValueRequired", field: "metadata.name", detail: "name or generateName is required" }]);
  });

  it("checks DNS subdomains by default and DNS labels on request", () => {
    expect(validateObjectName("a.b")).toEqual([]);
    const errors = validateObjectName("a.b", { label: true });
    expect(errors.map(formatFieldError)).toEqual(['metadata.name: Invalid value: "a.b": must not contain dots']);
  });

  it("allows a trailing dash in a generateName prefix", () => {
    const path = FieldPath.root("metadata").child("generateName");
    expect(validateObjectName("web-", { prefix: true }, path)).toEqual([]);
    expect(validateObjectName("web-", {}, path)).toHaveLength(1);
    expect(validateObjectName("Web-", { prefix: true }, path).map((e) => e.field)).toEqual(["metadata.generateName"]);
  });

  it("feeds invalid() for a 422", () => {
    const error = invalid({ group: "", kind: "ConfigMap" }, "Bad", validateObjectName("Bad"));
    expect(error.code).toBe(422);
    expect(error.message).toBe(`ConfigMap "Bad" is invalid: metadata.name: Invalid value: "Bad": ${subdomainMessage}`);
  });
});

describe("qualified names and label values", () => {
  it("accepts keys with and without a prefix", () => {
    for (const ok of ["app", "App_1", "a.b-c", "example.com/MyName", "orch.io/x", "k".repeat(63), `${"a".repeat(253)}/b`]) {
      expect(validateQualifiedName(ok, "k"), ok).toEqual([]);
    }
  });

  it("words key errors as the reference does", () => {
    expect(details(validateQualifiedName("app:x", "k"))).toEqual([namePartMessage]);
    expect(details(validateQualifiedName("/x", "k"))).toEqual(["prefix part must be non-empty"]);
    expect(details(validateQualifiedName("x/", "k"))).toEqual(["name part must be non-empty", namePartMessage]);
    expect(details(validateQualifiedName("k".repeat(64), "k"))).toEqual(["name part must be no more than 63 characters"]);
    expect(details(validateQualifiedName("Example.com/x", "k"))).toEqual([`prefix part ${subdomainMessage}`]);
    expect(details(validateQualifiedName("a/b/c", "k"))).toEqual([
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });

  it("accepts empty label values and rejects bad ones with the reference's message", () => {
    expect(validateLabelValue("", "v")).toEqual([]);
    expect(validateLabelValue("v1.2_3-x", "v")).toEqual([]);
    expect(details(validateLabelValue("-x", "v"))).toEqual([labelValueMessage]);
    expect(details(validateLabelValue("x".repeat(64), "v"))).toEqual(["must be no more than 63 characters"]);
  });
});

describe("validateLabels", () => {
  it("reports keys and values on metadata.labels", () => {
    const errors = validateLabels({ good: "ok", "bad key": "v", k: "bad value" });
    expect(errors.map(formatFieldError)).toEqual([
      `metadata.labels: Invalid value: "bad key": ${namePartMessage}`,
      `metadata.labels: Invalid value: "bad value": ${labelValueMessage}`,
    ]);
    expect(validateLabels(undefined)).toEqual([]);
  });
});

describe("validateAnnotations", () => {
  it("checks keys without regard to case and allows any value", () => {
    expect(validateAnnotations({ "Example.COM/Some-Key": "any text: ✓ \n" })).toEqual([]);
    expect(validateAnnotations({ "a b": "" }).map(formatFieldError)).toEqual([`metadata.annotations: Invalid value: "a b": ${namePartMessage}`]);
  });

  it("limits keys and values together to 256 KiB", () => {
    expect(validateAnnotations({ k: "v".repeat(262_143) })).toEqual([]);
    const errors = validateAnnotations({ k: "v".repeat(262_144) });
    expect(errors.map(formatFieldError)).toEqual(["metadata.annotations: Too long: must have at most 262144 bytes"]);
    expect(validateAnnotations({ k: "é".repeat(131_072) })).toHaveLength(1);
  });
});

describe("properties", () => {
  const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);

  it("accepts every generated DNS label and subdomain", () => {
    fc.assert(fc.property(label, (l) => isDNS1123Label(l) && isDNS1123Subdomain(l)));
    fc.assert(fc.property(fc.array(label, { minLength: 1, maxLength: 8 }), (ls) => isDNS1123Subdomain(ls.join("."))));
  });

  it("agrees with the reference pattern on arbitrary strings", () => {
    const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
    const chars = fc.constantFrom("a", "z", "0", "9", "-", ".", "A", "_", "/", " ");
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 30 }).map((cs) => cs.join("")),
        (s) => {
          expect(isDNS1123Subdomain(s)).toBe(subdomain.test(s));
          const qualified = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
          if (!s.includes("/")) expect(validateQualifiedName(s, "k").length === 0).toBe(qualified.test(s));
        },
      ),
    );
  });
});
