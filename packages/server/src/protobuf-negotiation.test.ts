import { decodeProtobufObject, encodeProtobufObject } from "@orch/protobuf";
import { MemoryStore } from "@orch/store";
import { describe, expect, it } from "vitest";
import { APIServer } from "./api-server.js";

const pb = "application/vnd.kubernetes.protobuf";

async function call(server: APIServer, method: string, url: string, headers: Record<string, string>, body?: Uint8Array) {
  const res = await server.handle({ method, url, headers: new Headers(headers), ...(body ? { body } : {}) });
  return res;
}

const text = (body: Uint8Array | string | undefined) => (typeof body === "string" ? body : new TextDecoder().decode(body));

describe("APIServer: protobuf bodies and answers", () => {
  const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "p" }, data: { a: "b" } };

  it("reads a protobuf create and answers JSON unless protobuf comes first in Accept", async () => {
    const server = new APIServer({ store: new MemoryStore() });
    const json = await call(
      server,
      "POST",
      "/api/v1/namespaces/default/configmaps",
      { "content-type": pb, accept: "application/json" },
      encodeProtobufObject(configMap),
    );
    expect(json.status).toBe(201);
    expect(json.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(text(json.body))).toMatchObject({ metadata: { name: "p", namespace: "default" }, data: { a: "b" } });

    const get = await call(server, "GET", "/api/v1/namespaces/default/configmaps/p", { accept: `${pb},application/json` });
    expect(get.headers.get("content-type")).toBe(pb);
    const decoded = decodeProtobufObject(get.body as Uint8Array);
    expect(decoded.object).toMatchObject({ kind: "ConfigMap", metadata: { name: "p", namespace: "default" }, data: { a: "b" } });

    const jsonFirst = await call(server, "GET", "/api/v1/namespaces/default/configmaps/p", { accept: `application/json,${pb}` });
    expect(jsonFirst.headers.get("content-type")).toBe("application/json");
  });

  it("keeps lists, errors and Status answers JSON", async () => {
    const server = new APIServer({ store: new MemoryStore() });
    const list = await call(server, "GET", "/api/v1/namespaces/default/configmaps", { accept: `${pb},application/json` });
    expect(list.headers.get("content-type")).toBe("application/json");
    const missing = await call(server, "GET", "/api/v1/namespaces/default/configmaps/none", { accept: `${pb},application/json` });
    expect(missing.status).toBe(404);
    expect(JSON.parse(text(missing.body)).reason).toBe("NotFound");
    await call(server, "POST", "/api/v1/namespaces/default/configmaps", { "content-type": pb }, encodeProtobufObject(configMap));
    const deleteOptions = encodeProtobufObject({ apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background" });
    const deleted = await call(
      server,
      "DELETE",
      "/api/v1/namespaces/default/configmaps/p",
      { "content-type": pb, accept: `${pb},application/json` },
      deleteOptions,
    );
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(text(deleted.body))).toMatchObject({ kind: "Status", status: "Success" });
  });

  it("answers 400 for a bad prefix and 415 for a kind without a codec, naming protobuf as accepted", async () => {
    const server = new APIServer({ store: new MemoryStore() });
    const bad = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { "content-type": pb }, new TextEncoder().encode("{}"));
    expect(bad.status).toBe(400);
    const unknownKind = encodeProtobufObject(configMap).slice();
    // "ConfigMap" -> "ConfigMaq": a kind with no codec
    unknownKind[unknownKind.indexOf(0x70)] = 0x71;
    const unsupported = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { "content-type": pb }, unknownKind);
    expect(unsupported.status).toBe(415);
    const csv = await call(server, "POST", "/api/v1/namespaces/default/configmaps", { "content-type": "text/csv" }, new TextEncoder().encode("x"));
    expect(csv.status).toBe(415);
    expect(JSON.parse(text(csv.body)).message).toContain(pb);
  });
});
