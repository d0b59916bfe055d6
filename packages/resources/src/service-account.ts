/**
 * ServiceAccount (core `v1`, namespaced, short name `sa`): an identity for processes in pods,
 * with the secrets and image pull secrets it may use, and the `token` sub-resource that issues
 * tokens for it (see token-request.ts).
 * @module
 */
import { listType, patchStrategy } from "@orch/meta";
import { z } from "zod";
import { record } from "./internal/rules.js";
import { list, localObjectReferenceSchema, workloadObjectReferenceSchema } from "./internal/workloads-common.js";
import type { ResourceType } from "./resource-type.js";
import { kindSchema } from "./schema/object-meta.js";
import { serviceAccountTokenAction } from "./token-request.js";

/** The zod schema of a ServiceAccount in `v1`. */
export const serviceAccountV1Schema = kindSchema(
  {
    automountServiceAccountToken: z.boolean().optional().describe("Whether pods running as this service account get an API token mounted automatically."),
    imagePullSecrets: listType(z.array(localObjectReferenceSchema), "atomic")
      .optional()
      .describe("Secrets in the same namespace for pulling the images of pods that use this service account."),
    secrets: patchStrategy(listType(z.array(workloadObjectReferenceSchema), "map", ["name"]), "merge", "name")
      .optional()
      .describe("Secrets in the same namespace that pods running as this service account may use."),
  },
  "ServiceAccount binds together a name understood by users and peripheral systems, an identity for the principal, and a set of secrets.",
);

/** The SECRETS cell: how many secrets the service account lists. */
export function serviceAccountSecretsCell(object: Record<string, unknown>): number {
  return list(object["secrets"]).length;
}

/**
 * The ServiceAccount resource type. It has no rules beyond metadata (the reference validates
 * only the object metadata). `POST serviceaccounts/{name}/token` with a TokenRequest issues a
 * signed token for the account ({@link serviceAccountTokenAction}).
 */
export const serviceAccountType: ResourceType = {
  group: "",
  resource: "serviceaccounts",
  singular: "serviceaccount",
  kind: "ServiceAccount",
  shortNames: ["sa"],
  scope: "Namespaced",
  versions: [{ name: "v1", schema: serviceAccountV1Schema, storage: true }],
  subresources: ["token"],
  strategy: {
    actions: { token: serviceAccountTokenAction },
    // As the reference's service account registry (`ReturnDeletedObject`): a delete answers with the account.
    deleteReturnsObject: true,
    tableColumns: [
      {
        name: "Secrets",
        type: "string",
        description: "The number of secrets of the service account.",
        priority: 0,
        cell: (object) => serviceAccountSecretsCell(record(object) ?? {}),
      },
    ],
  },
};
