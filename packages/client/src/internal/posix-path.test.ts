import { describe, expect, it } from "vitest";
import { posixDirname, posixResolve } from "./posix-path.js";

describe("posixDirname", () => {
  it("is the part before the last slash, `.` without one and `/` at the root", () => {
    expect(posixDirname("/home/me/.kube/config")).toBe("/home/me/.kube");
    expect(posixDirname("config")).toBe(".");
    expect(posixDirname("/config")).toBe("/");
    expect(posixDirname("a/b/")).toBe("a");
  });
});

describe("posixResolve", () => {
  it("keeps absolute paths and joins relative ones to the directory, folding . and ..", () => {
    expect(posixResolve("/etc/orch", "/tmp/ca.crt")).toBe("/tmp/ca.crt");
    expect(posixResolve("/etc/orch", "ca.crt")).toBe("/etc/orch/ca.crt");
    expect(posixResolve("/etc/orch", "./pki/../ca.crt")).toBe("/etc/orch/ca.crt");
    expect(posixResolve("/etc/orch", "../../../ca.crt")).toBe("/ca.crt");
    expect(posixResolve(".", "ca.crt")).toBe("ca.crt");
    expect(posixResolve("conf", "../../ca.crt")).toBe("../ca.crt");
  });
});
