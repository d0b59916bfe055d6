import { describe, expect, it } from "vitest";
import { reasonOf } from "@orch/meta";
import { parseRequestURL, resourceRequestInfo } from "./request-info.js";

const info = (method: string, url: string) => resourceRequestInfo(method, parseRequestURL(url));

describe("resourceRequestInfo", () => {
  it("reads group, version, namespace, resource, name and sub-resource, as the reference's RequestInfoFactory", () => {
    expect(info("GET", "/api/v1/namespaces/default/configmaps/a")).toEqual({
      prefix: "api",
      group: "",
      version: "v1",
      namespace: "default",
      resource: "configmaps",
      name: "a",
      subresource: "",
      verb: "get",
    });
    expect(info("PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale")).toEqual({
      prefix: "apis",
      group: "apps",
      version: "v1",
      namespace: "ns",
      resource: "deployments",
      name: "d",
      subresource: "scale",
      verb: "update",
    });
    expect(info("GET", "/api/v1/nodes")).toMatchObject({ namespace: "", resource: "nodes", name: "", verb: "list" });
    expect(info("GET", "/apis/apps/v1/deployments")).toMatchObject({ group: "apps", namespace: "", resource: "deployments", verb: "list" });
  });

  it("reads a namespace's own sub-resources and the namespace itself as the namespaces resource", () => {
    expect(info("PUT", "/api/v1/namespaces/ns/status")).toMatchObject({ namespace: "ns", resource: "namespaces", name: "ns", subresource: "status" });
    expect(info("PUT", "/api/v1/namespaces/ns/finalize")).toMatchObject({ resource: "namespaces", name: "ns", subresource: "finalize" });
    expect(info("GET", "/api/v1/namespaces/ns")).toMatchObject({ namespace: "ns", resource: "namespaces", name: "ns", verb: "get" });
    expect(info("GET", "/api/v1/namespaces")).toMatchObject({ namespace: "", resource: "namespaces", name: "", verb: "list" });
    expect(info("GET", "/api/v1/namespaces/ns/namespaces/x")).toBeUndefined();
  });

  it("keeps what follows a sub-resource as its path, and has no path otherwise", () => {
    expect(info("GET", "/api/v1/namespaces/ns/pods/p/proxy/metrics/x")).toMatchObject({
      resource: "pods",
      name: "p",
      subresource: "proxy",
      subpath: "metrics/x",
    });
    expect(info("GET", "/api/v1/namespaces/ns/pods/p/log")).not.toHaveProperty("subpath");
  });

  it("names the verb from the method, the name and the watch parameter", () => {
    expect(info("GET", "/api/v1/namespaces/ns/pods?watch=true")?.verb).toBe("watch");
    expect(info("GET", "/api/v1/namespaces/ns/pods/p?watch=1")?.verb).toBe("watch");
    expect(info("GET", "/api/v1/namespaces/ns/pods?watch=false")?.verb).toBe("list");
    expect(info("HEAD", "/api/v1/namespaces/ns/pods/p")?.verb).toBe("get");
    expect(info("POST", "/api/v1/namespaces/ns/pods")?.verb).toBe("create");
    expect(info("PATCH", "/api/v1/namespaces/ns/pods/p")?.verb).toBe("patch");
    expect(info("DELETE", "/api/v1/namespaces/ns/pods/p")?.verb).toBe("delete");
    expect(info("DELETE", "/api/v1/namespaces/ns/pods")?.verb).toBe("deletecollection");
    expect(info("OPTIONS", "/api/v1/namespaces/ns/pods")).toBeUndefined();
  });

  it("is undefined for discovery roots and other non-resource paths", () => {
    for (const url of ["/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/healthz", "/openapi/v3"])
      expect(info("GET", url)).toBeUndefined();
  });
});

describe("parseRequestURL", () => {
  it("decodes escaped segments and splits off the query", () => {
    const parsed = parseRequestURL("/api/v1/namespaces/a%2Db/configmaps?limit=5&labelSelector=x%3Dy");
    expect(parsed.segments).toEqual(["api", "v1", "namespaces", "a-b", "configmaps"]);
    expect(parsed.query.get("limit")).toBe("5");
    expect(parsed.query.get("labelSelector")).toBe("x=y");
  });

  it("refuses bad escapes and dot segments with 400", () => {
    for (const url of ["/api/v1/namespaces/%E0%A4%A", "/api/v1/namespaces/../secrets", "/api/v1/namespaces/%2e%2e/secrets", "/api/v1/namespaces/a%2Fb"]) {
      let error: unknown;
      try {
        parseRequestURL(url);
      } catch (e) {
        error = e;
      }
      expect(reasonOf(error)).toBe("BadRequest");
    }
  });
});
