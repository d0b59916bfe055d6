// Consumer test, step "type-check": every package's main entry, resolved as a user's TypeScript
// resolves them (`types`, not the workspace's `@orch/source` condition), and the catalog's zod
// schemas composed with the user's own zod 4 (the peer dependency: one zod for both).
import * as admission from "@orch/admission";
import * as authn from "@orch/authn";
import * as authz from "@orch/authz";
import * as certificates from "@orch/certificates";
import * as cli from "@orch/cli";
import * as client from "@orch/client";
import * as controllers from "@orch/controllers";
import * as list from "@orch/list";
import * as merge from "@orch/merge";
import * as meta from "@orch/meta";
import * as node from "@orch/node";
import * as protobuf from "@orch/protobuf";
import * as resources from "@orch/resources";
import * as server from "@orch/server";
import * as store from "@orch/store";
import * as storeEtcd from "@orch/store-etcd";
import * as storeSqlite from "@orch/store-sqlite";
import { z } from "zod";

export const modules = {
  admission,
  authn,
  authz,
  certificates,
  cli,
  client,
  controllers,
  list,
  merge,
  meta,
  node,
  protobuf,
  resources,
  server,
  store,
  storeEtcd,
  storeSqlite,
};

const settings = z.object({ config: resources.configMapV1Schema, replicas: z.number().int() });
type Settings = z.infer<typeof settings>;
export const parsed: Settings = settings.parse({
  config: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { mode: "fast" } },
  replicas: 1,
});
export const mode: string | undefined = parsed.config.data?.["mode"];
export const memory: store.Store = new store.MemoryStore();
