/** Schemas for the apply scenarios: a small one with every marker, and a Pod-like one. */
import { listType, mapType, patchStrategy, structType } from "@orch/meta";
import { z } from "zod";

const meta = z.object({
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: patchStrategy(listType(z.array(z.string()), "set"), "merge").optional(),
  managedFields: listType(z.array(z.record(z.string(), z.unknown())), "atomic").optional(),
});

/** Every list, map and struct type. */
export const widgetSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: meta.optional(),
  spec: z
    .object({
      replicas: z.number().optional(),
      paused: z.boolean().optional(),
      tags: listType(z.array(z.string()), "set").optional(),
      args: listType(z.array(z.string()), "atomic").optional(),
      plain: z.array(z.string()).optional(),
      items: listType(
        z.array(
          z.object({ name: z.string(), value: z.string().optional(), weight: z.number().optional(), flags: listType(z.array(z.string()), "set").optional() }),
        ),
        "map",
        ["name"],
      ).optional(),
      ports: listType(z.array(z.object({ port: z.number(), protocol: z.string().default("TCP"), name: z.string().optional() })), "map", [
        "port",
        "protocol",
      ]).optional(),
      merged: patchStrategy(z.array(z.object({ key: z.string(), v: z.string().optional() })), "merge", "key").optional(),
      selector: mapType(z.record(z.string(), z.string()), "atomic").optional(),
      settings: z.record(z.string(), z.string()).optional(),
      target: structType(z.object({ kind: z.string().optional(), name: z.string().optional() }), "atomic").optional(),
      template: z.object({ image: z.string().optional(), pull: z.string().optional() }).optional(),
      extra: z.unknown().optional(),
    })
    .optional(),
  status: z.object({ phase: z.string().optional() }).optional(),
});

/** The same widget where `tags`, `items` and `settings` became atomic (spec point 10). */
export const widgetAtomicSchema = widgetSchema.extend({
  spec: widgetSchema.shape.spec
    .unwrap()
    .extend({
      tags: listType(z.array(z.string()), "atomic").optional(),
      items: listType(z.array(z.object({ name: z.string(), value: z.string().optional() })), "atomic").optional(),
      settings: mapType(z.record(z.string(), z.string()), "atomic").optional(),
    })
    .optional(),
});

const envVar = z.object({ name: z.string(), value: z.string().optional() });
const container = z.object({
  name: z.string(),
  image: z.string().optional(),
  args: listType(z.array(z.string()), "atomic").optional(),
  env: patchStrategy(listType(z.array(envVar), "map", ["name"]), "merge", "name").optional(),
  ports: patchStrategy(
    listType(z.array(z.object({ containerPort: z.number(), protocol: z.string().default("TCP"), name: z.string().optional() })), "map", [
      "containerPort",
      "protocol",
    ]),
    "merge",
    "containerPort",
  ).optional(),
  resources: z.object({ limits: z.record(z.string(), z.string()).optional(), requests: z.record(z.string(), z.string()).optional() }).optional(),
  volumeMounts: patchStrategy(listType(z.array(z.object({ name: z.string(), mountPath: z.string() })), "map", ["mountPath"]), "merge", "mountPath").optional(),
});

/** A Pod-like schema: containers a map list keyed by name, tolerations atomic, nodeSelector atomic. */
export const podSchema = z.object({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  metadata: meta.optional(),
  spec: z
    .object({
      containers: patchStrategy(listType(z.array(container), "map", ["name"]), "merge", "name").optional(),
      nodeSelector: mapType(z.record(z.string(), z.string()), "atomic").optional(),
      tolerations: listType(z.array(z.object({ key: z.string().optional(), effect: z.string().optional() })), "atomic").optional(),
      volumes: patchStrategy(listType(z.array(z.object({ name: z.string() }).catchall(z.unknown())), "map", ["name"]), "merge,retainKeys", "name").optional(),
      restartPolicy: z.string().optional(),
    })
    .optional(),
  status: z.object({ phase: z.string().optional() }).optional(),
});
