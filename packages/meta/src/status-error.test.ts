import { describe, expect, it } from "vitest";
import { FieldPath, invalidField, requiredField } from "./field-error.js";
import {
  StatusError,
  alreadyExists,
  conflict,
  invalid,
  isConflict,
  isNotFound,
  notFound,
  resourceVersionTooLarge,
  statusError,
  toStatusError,
  tooOldResourceVersion,
} from "./status-error.js";
import { statusCodes, statusReasons } from "./status-reason.js";

describe("StatusError", () => {
  it("gives every reason its HTTP code", () => {
    expect(statusCodes).toEqual({
      BadRequest: 400,
      Unauthorized: 401,
      Forbidden: 403,
      NotFound: 404,
      MethodNotAllowed: 405,
      NotAcceptable: 406,
      AlreadyExists: 409,
      Conflict: 409,
      Gone: 410,
      Expired: 410,
      RequestEntityTooLarge: 413,
      UnsupportedMediaType: 415,
      Invalid: 422,
      TooManyRequests: 429,
      InternalError: 500,
      ServiceUnavailable: 503,
      Timeout: 504,
    });
    for (const reason of statusReasons) expect(statusError(reason, "x").code).toBe(statusCodes[reason]);
  });

  it("builds the reference's Status body for a missing object", () => {
    const error = notFound({ group: "", resource: "configmaps" }, "cfg");
    expect(error.toJSON()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "cfg" not found',
      reason: "NotFound",
      details: { name: "cfg", kind: "configmaps" },
      code: 404,
    });
    expect(isNotFound(error)).toBe(true);
    expect(isConflict(error)).toBe(false);
  });

  it("qualifies resources of named groups", () => {
    expect(alreadyExists({ group: "coordination.orch.io", resource: "leases" }, "l").message).toBe('leases.coordination.orch.io "l" already exists');
  });

  it("words an optimistic-concurrency conflict as the reference does", () => {
    expect(conflict({ group: "", resource: "configmaps" }, "c").message).toBe(
      'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("lists one cause per field error of an invalid object", () => {
    const error = invalid({ group: "", kind: "ConfigMap" }, "Bad", [
      invalidField(FieldPath.root("metadata").child("name"), "Bad", "must be lowercase"),
      requiredField(FieldPath.root("data").key("a b")),
    ]);
    expect(error.code).toBe(422);
    expect(error.message).toBe('ConfigMap "Bad" is invalid: [metadata.name: Invalid value: "Bad": must be lowercase, data[a b]: Required value]');
    expect(error.status.details?.causes).toEqual([
      { reason: "FieldValueInvalid", message: 'Invalid value: "Bad": must be lowercase', field: "metadata.name" },
      { reason: "FieldValueRequired", message: "Required value", field: "data[a b]" },
    ]);
  });

  it("reports a too-large resourceVersion as a 504 with Retry-After seconds", () => {
    const error = resourceVersionTooLarge(15, 10);
    expect(error.code).toBe(504);
    expect(error.message).toContain("Too large resource version");
    expect(error.status.details).toEqual({
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    });
  });

  it("reports a compacted start with the reference's message", () => {
    const error = tooOldResourceVersion(5, 10);
    expect(error.status).toMatchObject({ code: 410, reason: "Expired", message: "too old resource version: 5 (10)" });
  });

  it("turns anything thrown into an InternalError without a stack trace", () => {
    const error = toStatusError(new TypeError("boom"));
    expect(error).toBeInstanceOf(StatusError);
    expect(error.code).toBe(500);
    expect(error.message).toBe("Internal error occurred: boom");
    expect(JSON.stringify(error.toJSON())).not.toContain("at ");
    const passthrough = notFound({ group: "", resource: "pods" }, "p");
    expect(toStatusError(passthrough)).toBe(passthrough);
    expect(toStatusError(passthrough.toJSON()).reason).toBe("NotFound");
  });
});
