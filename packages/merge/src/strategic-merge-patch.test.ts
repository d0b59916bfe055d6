import { patchStrategy, StatusError } from "@orch/meta";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { strategicMergePatch, strategicMergePatchSupported } from "./strategic-merge-patch.js";

// A Pod-like schema carrying the markers the reference's Go types carry.
const envVar = z.object({ name: z.string(), value: z.string().optional() });
const container = z.object({
  name: z.string(),
  image: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: patchStrategy(z.array(envVar), "merge", "name").optional(),
  ports: patchStrategy(z.array(z.object({ containerPort: z.number(), name: z.string().optional() })), "merge", "containerPort").optional(),
  resources: z.object({ limits: z.record(z.string(), z.string()).optional() }).optional(),
});
const volume = z.object({
  name: z.string(),
  hostPath: z.object({ path: z.string() }).optional(),
  emptyDir: z.object({ medium: z.string().optional() }).optional(),
  configMap: z.object({ name: z.string().optional() }).optional(),
});
const podSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.object({
    name: z.string(),
    labels: z.record(z.string(), z.string()).optional(),
    finalizers: patchStrategy(z.array(z.string()), "merge").optional(),
  }),
  spec: z
    .object({
      containers: patchStrategy(z.array(container), "merge", "name").optional(),
      volumes: patchStrategy(z.array(volume), "merge,retainKeys", "name").optional(),
      tolerations: z.array(z.object({ key: z.string() })).optional(),
      nodeSelector: patchStrategy(z.record(z.string(), z.string()), "replace").optional(),
    })
    .optional(),
});

const pod = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", ...metadata },
  spec,
});

const c = (name: string, image = `${name}:1`, extra: Record<string, unknown> = {}) => ({ name, image, ...extra });

interface Case {
  name: string;
  original: unknown;
  patch: unknown;
  expected: unknown;
}

const cases: Case[] = [
  {
    // As in the reference (and its kubectl patch tutorial): without $setElementOrder a new
    // element lands before the live ones it cannot be placed against.
    name: "containers merge by name: a new container is added, ahead of the live ones",
    original: pod({ containers: [c("nginx", "nginx-1.0")] }),
    patch: { spec: { containers: [c("log-tailer", "log-tailer-1.0")] } },
    expected: pod({ containers: [c("log-tailer", "log-tailer-1.0"), c("nginx", "nginx-1.0")] }),
  },
  {
    name: "containers merge by name: a field of a matching container changes, the others stay",
    original: pod({ containers: [c("a"), c("b", "b:1", { args: ["x"] })] }),
    patch: { spec: { containers: [{ name: "b", image: "b:2" }] } },
    expected: pod({ containers: [c("a"), c("b", "b:2", { args: ["x"] })] }),
  },
  {
    name: "$patch: delete removes the container with that key",
    original: pod({ containers: [c("a"), c("b"), c("c")] }),
    patch: { spec: { containers: [{ name: "b", $patch: "delete" }] } },
    expected: pod({ containers: [c("a"), c("c")] }),
  },
  {
    name: "$patch: delete of a key the list lacks changes nothing",
    original: pod({ containers: [c("a")] }),
    patch: { spec: { containers: [{ name: "zz", $patch: "delete" }] } },
    expected: pod({ containers: [c("a")] }),
  },
  {
    name: "$patch: replace in a merge list replaces the list by the other elements",
    original: pod({ containers: [c("a"), c("b")] }),
    patch: { spec: { containers: [c("z"), { $patch: "replace" }] } },
    expected: pod({ containers: [c("z")] }),
  },
  {
    name: "$patch: replace on a map replaces it whole",
    original: pod({ containers: [c("a")], tolerations: [{ key: "k" }] }),
    patch: { spec: { $patch: "replace", containers: [c("n", "nginx-1.0")] } },
    expected: pod({ containers: [c("n", "nginx-1.0")] }),
  },
  {
    name: "$patch: delete on a present map leaves it empty",
    original: pod({ containers: [c("a")] }, { labels: { app: "web" } }),
    patch: { metadata: { labels: { $patch: "delete" } } },
    expected: pod({ containers: [c("a")] }, { labels: {} }),
  },
  {
    name: "a map carrying $patch for an absent key is dropped",
    original: pod({ containers: [c("a")] }),
    patch: { metadata: { labels: { $patch: "delete" } } },
    expected: pod({ containers: [c("a")] }),
  },
  {
    name: "$retainKeys on a volume keeps only the listed fields of its source",
    original: pod({
      volumes: [
        { name: "v", hostPath: { path: "/a" } },
        { name: "w", emptyDir: {} },
      ],
    }),
    patch: { spec: { volumes: [{ name: "v", emptyDir: {}, $retainKeys: ["emptyDir", "name"] }] } },
    expected: pod({
      volumes: [
        { name: "v", emptyDir: {} },
        { name: "w", emptyDir: {} },
      ],
    }),
  },
  {
    name: "$deleteFromPrimitiveList/finalizers removes those values",
    original: pod({}, { finalizers: ["a", "b", "c"] }),
    patch: { metadata: { "$deleteFromPrimitiveList/finalizers": ["b", "x"] } },
    expected: pod({}, { finalizers: ["a", "c"] }),
  },
  {
    name: "a merge list of scalars merges as a set",
    original: pod({}, { finalizers: ["a", "b"] }),
    patch: { metadata: { finalizers: ["b", "c"] } },
    expected: pod({}, { finalizers: ["a", "b", "c"] }),
  },
  {
    name: "$setElementOrder/containers orders the merged list",
    original: pod({ containers: [c("a"), c("b"), c("c")] }),
    patch: { spec: { "$setElementOrder/containers": [{ name: "c" }, { name: "a" }, { name: "b" }], containers: [{ name: "a", image: "a:2" }] } },
    expected: pod({ containers: [c("c"), c("a", "a:2"), c("b")] }),
  },
  {
    name: "$setElementOrder of a scalar merge list orders it",
    original: pod({}, { finalizers: ["a", "b"] }),
    patch: { metadata: { "$setElementOrder/finalizers": ["c", "b", "a"], finalizers: ["c"] } },
    expected: pod({}, { finalizers: ["c", "b", "a"] }),
  },
  {
    name: "$setElementOrder places a new container where it says",
    original: pod({ containers: [c("a"), c("b")] }),
    patch: { spec: { "$setElementOrder/containers": [{ name: "a" }, { name: "b" }, { name: "n" }], containers: [c("n")] } },
    expected: pod({ containers: [c("a"), c("b"), c("n")] }),
  },
  {
    name: "patch elements come in the patch's order, server-only ones before what followed them",
    original: pod({ containers: [c("a"), c("b"), c("c")] }),
    patch: { spec: { containers: [{ name: "c" }, { name: "a" }] } },
    expected: pod({ containers: [c("b"), c("c"), c("a")] }),
  },
  {
    name: "null deletes a key; nulls under a new key are dropped",
    original: pod({ containers: [c("a")] }, { labels: { app: "web", tier: "front" } }),
    patch: { metadata: { labels: { tier: null, team: "x" } }, spec: { nodeSelector: { disk: "ssd", gone: null } } },
    expected: pod({ containers: [c("a")], nodeSelector: { disk: "ssd" } }, { labels: { app: "web", team: "x" } }),
  },
  {
    name: "nested merge inside a merged element: env by name, resources key by key",
    original: pod({ containers: [c("a", "a:1", { env: [{ name: "A", value: "1" }], resources: { limits: { cpu: "1", memory: "1Gi" } } })] }),
    patch: {
      spec: {
        containers: [
          {
            name: "a",
            env: [
              { name: "B", value: "2" },
              { name: "A", value: "3" },
            ],
            resources: { limits: { cpu: "2" } },
          },
        ],
      },
    },
    expected: pod({
      containers: [
        c("a", "a:1", {
          env: [
            { name: "B", value: "2" },
            { name: "A", value: "3" },
          ],
          resources: { limits: { cpu: "2", memory: "1Gi" } },
        }),
      ],
    }),
  },
  {
    name: "lists without a merge strategy are replaced",
    original: pod({ containers: [c("a", "a:1", { args: ["x", "y"] })], tolerations: [{ key: "a" }, { key: "b" }] }),
    patch: { spec: { containers: [{ name: "a", args: ["z"] }], tolerations: [{ key: "c" }] } },
    expected: pod({ containers: [c("a", "a:1", { args: ["z"] })], tolerations: [{ key: "c" }] }),
  },
  {
    name: "a map with patchStrategy replace is replaced",
    original: pod({ nodeSelector: { disk: "ssd", zone: "a" } }),
    patch: { spec: { nodeSelector: { zone: "b" } } },
    expected: pod({ nodeSelector: { zone: "b" } }),
  },
  {
    name: "a value of another type replaces the live one",
    original: pod({ containers: [c("a")] }, { labels: { app: "web" } }),
    patch: { metadata: { labels: "x" } },
    expected: pod({ containers: [c("a")] }, { labels: "x" }),
  },
  {
    name: "a merge list merges by a numeric key",
    original: pod({ containers: [c("a", "a:1", { ports: [{ containerPort: 80, name: "http" }] })] }),
    patch: { spec: { containers: [{ name: "a", ports: [{ containerPort: 80, name: "web" }, { containerPort: 443 }] }] } },
    expected: pod({ containers: [c("a", "a:1", { ports: [{ containerPort: 80, name: "web" }, { containerPort: 443 }] })] }),
  },
  {
    name: "a null patch changes nothing",
    original: pod({ containers: [c("a")] }),
    patch: null,
    expected: pod({ containers: [c("a")] }),
  },
];

describe("strategicMergePatch: the reference's documented behaviour", () => {
  it.each(cases)("$name", ({ original, patch, expected }) => {
    const before = structuredClone(original);
    const patchBefore = structuredClone(patch);
    expect(strategicMergePatch(original, patch, podSchema)).toEqual(expected);
    expect(original).toEqual(before);
    expect(patch).toEqual(patchBefore);
  });
});

interface BadCase {
  name: string;
  original?: unknown;
  patch: unknown;
  message: string;
}

const live = pod({ containers: [c("a"), c("b")], volumes: [{ name: "v", emptyDir: {} }] }, { finalizers: ["f"] });

const badCases: BadCase[] = [
  {
    name: "an unknown $patch value on a map",
    patch: { spec: { $patch: "frobnicate" } },
    message: "unknown patch type: frobnicate in map: map[$patch:frobnicate]",
  },
  {
    name: "an unknown $patch value in a merge list",
    patch: { spec: { containers: [{ name: "a", $patch: "nope" }] } },
    message: "unknown patch type: nope in map: map[$patch:nope name:a]",
  },
  { name: "a non-string $patch", patch: { metadata: { $patch: 3 } }, message: "unknown patch type: %!s(int64=3) in map: map[$patch:3]" },
  { name: "$patch: merge on a map", patch: { spec: { $patch: "merge" } }, message: "unknown patch type: merge in map: map[$patch:merge]" },
  { name: "$patch: merge in a list", patch: { spec: { containers: [{ $patch: "merge" }] } }, message: "merging lists cannot yet be specified in the patch" },
  {
    name: "a merge-list element without its merge key",
    patch: { spec: { containers: [{ image: "x" }] } },
    message: "map: map[image:x] does not contain declared merge key: name",
  },
  {
    name: "a $patch: delete element without its merge key",
    patch: { spec: { containers: [{ $patch: "delete" }] } },
    message: "map: map[$patch:delete] does not contain declared merge key: name",
  },
  { name: "$retainKeys that is not a list", patch: { spec: { volumes: [{ name: "v", $retainKeys: "name" }] } }, message: "invalid patch format of retainKeys" },
  {
    name: "$retainKeys missing a key the patch sets",
    patch: { spec: { volumes: [{ name: "v", emptyDir: {}, $retainKeys: ["name"] }] } },
    message: "invalid patch format of retainKeys",
  },
  {
    name: "$setElementOrder that is not a list",
    patch: { spec: { "$setElementOrder/containers": "a" } },
    message: "expected a []interface {}, but received a string",
  },
  {
    name: "$setElementOrder out of step with the patch list",
    patch: { spec: { "$setElementOrder/containers": [{ name: "a" }, { name: "b" }], containers: [{ name: "b" }, { name: "a" }] } },
    message: "the order in patch list:\n[map[name:b] map[name:a]]\n doesn't match $setElementOrder list:\n[map[name:a] map[name:b]]",
  },
  {
    name: "a malformed $deleteFromPrimitiveList key",
    patch: { metadata: { $deleteFromPrimitiveListfinalizers: ["f"] } },
    message: "invalid patch format of primitive list",
  },
  { name: "a malformed $setElementOrder key", patch: { spec: { $setElementOrder: [] } }, message: "invalid patch format of setElementOrder list" },
  {
    name: "scalars in a list of maps",
    patch: { spec: { containers: ["a"] } },
    message: "list element types are not identical: [[map[image:a:1 name:a] map[image:b:1 name:b]] [a]]",
  },
  { name: "lists of lists", patch: { metadata: { finalizers: [["x"]] } }, message: "list element types are not identical: [[f] [[x]]]" },
  {
    name: "lists of lists from the start",
    original: pod({}, { finalizers: [] }),
    patch: { metadata: { finalizers: [["x"]] } },
    message: "lists of lists are not supported",
  },
  { name: "a patch that is a list", patch: [], message: "json: cannot unmarshal array into Go value of type map[string]interface {}" },
  { name: "a patch that is a string", patch: "x", message: "json: cannot unmarshal string into Go value of type map[string]interface {}" },
];

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("strategicMergePatch: malformed patches are a 400 with the reference's message", () => {
  it.each(badCases)("$name", ({ original, patch, message }) => {
    const error = thrown(() => strategicMergePatch(original ?? live, patch, podSchema));
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).code).toBe(400);
    expect((error as StatusError).status).toMatchObject({ reason: "BadRequest", message });
  });

  it("a patch nested deeper than the decoder's limit is a 400", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 20000; i++) deep = { a: deep };
    const error = thrown(() => strategicMergePatch({}, deep, podSchema));
    expect((error as StatusError).code).toBe(400);
  });
});

describe("strategicMergePatchSupported", () => {
  it("offers strategic merge patch only with a schema; without one the patch is a 415", () => {
    expect(strategicMergePatchSupported(podSchema)).toBe(true);
    expect(strategicMergePatchSupported(undefined)).toBe(false);
    const error = thrown(() => strategicMergePatch({}, {}, undefined));
    expect((error as StatusError).code).toBe(415);
  });
});

/** RFC 7386. */
function rfc7386(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const base: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete base[k];
    else base[k] = rfc7386(base[k], v);
  }
  return base;
}

const safeKey = fc.string({ maxLength: 6 }).filter((k) => !k.startsWith("$") && k !== "__proto__");
const anyObject = fc.dictionary(safeKey, fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 });
const listFreePatch = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), tie("map")),
  map: fc.dictionary(safeKey, tie("value"), { maxKeys: 5 }),
})).map as fc.Arbitrary<Record<string, unknown>>;
const unmarked = z.record(z.string(), z.unknown());

describe("strategicMergePatch: laws (fast-check)", () => {
  it("an empty patch is the identity on any object", () => {
    fc.assert(
      fc.property(anyObject, (object) => {
        expect(strategicMergePatch(object, {}, podSchema)).toEqual(object);
        expect(strategicMergePatch(object, {}, unmarked)).toEqual(object);
      }),
    );
  });

  it("a patch without lists or directives is RFC 7386 merge patch", () => {
    fc.assert(
      fc.property(anyObject, listFreePatch, (object, patch) => {
        expect(strategicMergePatch(object, patch, unmarked)).toEqual(rfc7386(object, patch));
        expect(strategicMergePatch(object, patch, podSchema)).toEqual(rfc7386(object, patch));
      }),
    );
  });

  const directiveKey = fc.constantFrom(
    "$patch",
    "$retainKeys",
    "$setElementOrder/containers",
    "$setElementOrder/finalizers",
    "$setElementOrder/",
    "$deleteFromPrimitiveList/finalizers",
    "$deleteFromPrimitiveList/containers",
    "$deleteFromPrimitiveListx",
    "containers",
    "volumes",
    "finalizers",
    "labels",
    "name",
    "image",
    "spec",
    "metadata",
    "emptyDir",
  );
  const directiveValue = fc.oneof(fc.constantFrom("replace", "delete", "merge", "bogus", "a", "b", "name"), fc.jsonValue({ maxDepth: 2 }));
  const wildPatch = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, directiveValue, tie("map"), fc.array(tie("value"), { maxLength: 3 })),
    map: fc.dictionary(directiveKey, tie("value"), { maxKeys: 4 }),
  })).map;

  it("any patch either applies or is a 400 StatusError, never another exception", () => {
    fc.assert(
      fc.property(wildPatch, (patch) => {
        try {
          strategicMergePatch(live, patch, podSchema);
        } catch (error) {
          expect(error).toBeInstanceOf(StatusError);
          expect((error as StatusError).code).toBe(400);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
