import { describe, expect, it } from "vitest";
import { mergeClientConfigs } from "./merge-client-configs.js";
import { parseClientConfig } from "./parse-client-config.js";

const first = parseClientConfig(
  `
clusters: [{name: shared, cluster: {server: https://first, certificate-authority: ca.crt}}]
users: [{name: me, user: {token: first-token}}]
contexts: [{name: a, context: {cluster: shared, user: me}}]
`,
  "/one/config",
);
const second = parseClientConfig(
  `
clusters:
- {name: shared, cluster: {server: https://second}}
- {name: only-second, cluster: {server: https://only, certificate-authority: ca.crt}}
users: [{name: me, user: {token: second-token}}, {name: other, user: {tokenFile: t}}]
contexts: [{name: a, context: {cluster: only-second}}, {name: b, context: {cluster: shared}}]
current-context: b
`,
  "/two/config",
);
const third = parseClientConfig("current-context: a", "/three/config");

describe("mergeClientConfigs", () => {
  it("keeps, for each name, the whole entry of the first file that defines it", () => {
    const merged = mergeClientConfigs([first, second]);
    expect(merged.clusters.get("shared")).toEqual(first.clusters.get("shared"));
    expect(merged.users.get("me")?.token).toBe("first-token");
    expect(merged.contexts.get("a")?.cluster).toBe("shared");
    expect(merged.contexts.get("b")?.source).toBe("/two/config");
  });

  it("adds entries only later files define, with their own file's directory in their paths", () => {
    const merged = mergeClientConfigs([first, second]);
    expect(merged.clusters.get("shared")?.certificateAuthority).toBe("/one/ca.crt");
    expect(merged.clusters.get("only-second")?.certificateAuthority).toBe("/two/ca.crt");
    expect(merged.users.get("other")).toEqual({ name: "other", source: "/two/config", tokenFile: "/two/t" });
  });

  it("takes current-context from the first file that sets one", () => {
    expect(mergeClientConfigs([first, second, third]).currentContext).toEqual({ name: "b", source: "/two/config" });
    expect(mergeClientConfigs([third, second]).currentContext).toEqual({ name: "a", source: "/three/config" });
    expect(mergeClientConfigs([first]).currentContext).toBeUndefined();
  });

  it("lists every file in precedence order", () => {
    expect(mergeClientConfigs([second, first]).files).toEqual(["/two/config", "/one/config"]);
    expect(mergeClientConfigs([]).files).toEqual([]);
  });
});
