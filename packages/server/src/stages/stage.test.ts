import { describe, expect, it } from "vitest";
import type { APIResponse } from "../api-request.js";
import { requestInfoOf, withBodyLimit, withErrorResponses, withRequestInfo } from "./request-info-stage.js";
import { chain, type ServerRequest, type Stage } from "./stage.js";

const answer = (status: number): APIResponse => ({ status, headers: new Headers() });

describe("chain", () => {
  it("runs stages outermost first, each around the next, then the handler", async () => {
    const order: string[] = [];
    const stage =
      (name: string): Stage =>
      async (request, next) => {
        order.push(`${name} in`);
        const response = await next(request);
        order.push(`${name} out`);
        return response;
      };
    const handler = chain([stage("a"), stage("b")], async () => {
      order.push("handler");
      return answer(200);
    });
    await handler({ method: "GET", url: "/", headers: new Headers() });
    expect(order).toEqual(["a in", "b in", "handler", "b out", "a out"]);
  });

  it("lets a stage answer without calling the rest", async () => {
    const handler = chain([async () => answer(418)], async () => answer(200));
    expect((await handler({ method: "GET", url: "/", headers: new Headers() })).status).toBe(418);
  });
});

describe("the first stages", () => {
  const run = (request: ServerRequest) =>
    chain([withErrorResponses, withBodyLimit(4), withRequestInfo], async (r) => ({ status: 200, headers: new Headers(), body: JSON.stringify(r.info) }))(
      request,
    );

  it("parses a resource request into group, version, resource, namespace, name and verb", async () => {
    const response = await run({ method: "DELETE", url: "/apis/apps/v1/namespaces/ns/deployments/web?dryRun=All", headers: new Headers() });
    expect(JSON.parse(String(response.body))).toMatchObject({
      isResourceRequest: true,
      path: "/apis/apps/v1/namespaces/ns/deployments/web",
      group: "apps",
      version: "v1",
      namespace: "ns",
      resource: "deployments",
      name: "web",
      verb: "delete",
    });
  });

  it("gives a non-resource request the lower-cased method as its verb", () => {
    expect(requestInfoOf("GET", "/healthz?verbose")).toMatchObject({ isResourceRequest: false, path: "/healthz", verb: "get" });
  });

  it("turns a bad path into a 400 Status response", async () => {
    const response = await run({ method: "GET", url: "/api/v1/namespaces/%zz", headers: new Headers() });
    expect(response.status).toBe(400);
    expect(JSON.parse(String(response.body))).toMatchObject({ kind: "Status", reason: "BadRequest" });
  });

  it("refuses a body over the limit with 413 before it is read", async () => {
    const response = await run({ method: "POST", url: "/api/v1/namespaces", headers: new Headers(), body: new Uint8Array(5) });
    expect(response.status).toBe(413);
  });
});
