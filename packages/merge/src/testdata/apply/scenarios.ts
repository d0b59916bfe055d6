/**
 * The apply scenario table: given a live object (and its managedFields, or a sequence of writes
 * building them), a manager applies or updates; expect an object, managed fields, or conflicts.
 * `managed` maps `"<manager>/<Operation>"` to the expected FieldsV1 of that entry; entries not
 * listed must not exist.
 */
export interface Step {
  manager: string;
  apply?: Record<string, unknown>;
  update?: Record<string, unknown>;
  force?: boolean;
  subresource?: string;
  /** The schema the step runs under (spec point 10), default the scenario's. */
  schema?: SchemaName;
}

/** The schemas of `schemas.ts`, plus none. */
export type SchemaName = "widget" | "widgetAtomic" | "pod" | "unstructured";

export interface Scenario {
  name: string;
  /** The rule of server-side apply the scenario shows, or the type it covers. */
  point: string;
  schema: SchemaName;
  live?: Record<string, unknown>;
  steps: Step[];
  expect: {
    /** The object after the last step, without `metadata.managedFields`. */
    object?: Record<string, unknown>;
    managed?: Record<string, Record<string, unknown>>;
    /** The `field` of each cause of the 409 of the last step. */
    conflicts?: string[];
    /** The message of the 409 of the last step. */
    message?: string;
    /** The reason of another error of the last step. */
    error?: string;
  };
}

const w = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "example.orch.io/v1",
  kind: "Widget",
  metadata: { name: "w", ...metadata },
  spec,
});
const k = (name: string) => `k:{"name":"${name}"}`;

export const scenarios: Scenario[] = [
  {
    name: "apply to a missing object creates it, owned by the applier",
    point: "1",
    schema: "widget",
    steps: [{ manager: "m1", apply: w({ replicas: 1, template: { image: "a" } }, { labels: { app: "x" } }) }],
    expect: {
      object: w({ replicas: 1, template: { image: "a" } }, { labels: { app: "x" } }),
      managed: { "m1/Apply": { "f:metadata": { "f:labels": { "f:app": {} } }, "f:spec": { "f:replicas": {}, "f:template": { "f:image": {} } } } },
    },
  },
  {
    name: "an applied body carrying managedFields is refused",
    point: "1",
    schema: "widget",
    steps: [{ manager: "m1", apply: w({ replicas: 1 }, { managedFields: [] }) }],
    expect: { error: "BadRequest" },
  },
  {
    name: "applied values win over the live values the applier owns",
    point: "2",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 1, paused: true }) },
      { manager: "m1", apply: w({ replicas: 3, paused: true }) },
    ],
    expect: { object: w({ replicas: 3, paused: true }), managed: { "m1/Apply": { "f:spec": { "f:paused": {}, "f:replicas": {} } } } },
  },
  {
    name: "a field the applier applied before and omits now is removed",
    point: "2",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 1, paused: true }, { labels: { a: "1", b: "2" } }) },
      { manager: "m1", apply: w({ replicas: 1 }, { labels: { a: "1" } }) },
    ],
    expect: {
      object: w({ replicas: 1 }, { labels: { a: "1" } }),
      managed: { "m1/Apply": { "f:metadata": { "f:labels": { "f:a": {} } }, "f:spec": { "f:replicas": {} } } },
    },
  },
  {
    name: "a field the applier omits now stays when another manager owns it",
    point: "2",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 1, paused: true }) },
      { manager: "m2", apply: w({ paused: true }) },
      { manager: "m1", apply: w({ replicas: 1 }) },
    ],
    expect: {
      object: w({ replicas: 1, paused: true }),
      managed: { "m1/Apply": { "f:spec": { "f:replicas": {} } }, "m2/Apply": { "f:spec": { "f:paused": {} } } },
    },
  },
  {
    name: "a whole struct the applier gave up is removed when nobody owns anything in it",
    point: "2",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 1, template: { image: "a", pull: "Always" } }) },
      { manager: "m1", apply: w({ replicas: 1 }) },
    ],
    expect: { object: w({ replicas: 1 }), managed: { "m1/Apply": { "f:spec": { "f:replicas": {} } } } },
  },
  {
    name: "equal values applied by several managers give shared ownership",
    point: "3",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2 }) },
      { manager: "m2", apply: w({ replicas: 2 }) },
    ],
    expect: { object: w({ replicas: 2 }), managed: { "m1/Apply": { "f:spec": { "f:replicas": {} } }, "m2/Apply": { "f:spec": { "f:replicas": {} } } } },
  },
  {
    name: "an update takes the fields it changed, even from an applier",
    point: "3",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2, paused: false }) },
      { manager: "kubectl-edit", update: w({ replicas: 5, paused: false }) },
    ],
    expect: {
      object: w({ replicas: 5, paused: false }),
      managed: { "m1/Apply": { "f:spec": { "f:paused": {} } }, "kubectl-edit/Update": { "f:spec": { "f:replicas": {} } } },
    },
  },
  {
    name: "changing a field another manager owns is a conflict",
    point: "4",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2 }) },
      { manager: "m2", apply: w({ replicas: 3 }) },
    ],
    expect: { conflicts: [".spec.replicas"], message: 'Apply failed with 1 conflict: conflict with "m1": .spec.replicas' },
  },
  {
    name: "several conflicts are listed per manager",
    point: "4",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2, paused: true }) },
      { manager: "ctl", update: w({ replicas: 2, paused: true, template: { image: "a" } }) },
      { manager: "m2", apply: w({ replicas: 3, paused: false, template: { image: "b" } }) },
    ],
    expect: {
      conflicts: [".spec.paused", ".spec.replicas", ".spec.template.image"],
      message:
        'Apply failed with 3 conflicts: conflicts with "ctl" using example.orch.io/v1:\n- .spec.template.image\nconflicts with "m1":\n- .spec.paused\n- .spec.replicas',
    },
  },
  {
    name: "an update never conflicts",
    point: "4",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2 }) },
      { manager: "m2", update: w({ replicas: 9 }) },
    ],
    expect: { object: w({ replicas: 9 }), managed: { "m2/Update": { "f:spec": { "f:replicas": {} } } } },
  },
  {
    name: "force takes the field from every other manager",
    point: "5a",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2, paused: true }) },
      { manager: "m2", apply: w({ replicas: 2 }) },
      { manager: "ctl", apply: w({ replicas: 7 }), force: true },
    ],
    expect: {
      object: w({ replicas: 7, paused: true }),
      managed: { "m1/Apply": { "f:spec": { "f:paused": {} } }, "ctl/Apply": { "f:spec": { "f:replicas": {} } } },
    },
  },
  {
    name: "dropping a conflicting field keeps the value and releases ownership",
    point: "5b",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2, paused: true }) },
      { manager: "hpa", update: w({ replicas: 4, paused: true }) },
      { manager: "m1", apply: w({ paused: true }) },
    ],
    expect: {
      object: w({ replicas: 4, paused: true }),
      managed: { "m1/Apply": { "f:spec": { "f:paused": {} } }, "hpa/Update": { "f:spec": { "f:replicas": {} } } },
    },
  },
  {
    name: "applying the live value of a conflicting field shares it",
    point: "5c",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 2 }) },
      { manager: "hpa", update: w({ replicas: 4 }) },
      { manager: "m1", apply: w({ replicas: 4 }) },
    ],
    expect: { object: w({ replicas: 4 }), managed: { "m1/Apply": { "f:spec": { "f:replicas": {} } }, "hpa/Update": { "f:spec": { "f:replicas": {} } } } },
  },
  {
    name: "a controller applying with force always succeeds",
    point: "6",
    schema: "widget",
    steps: [
      { manager: "user", apply: w({ replicas: 1 }) },
      { manager: "controller", apply: w({ replicas: 5 }), force: true },
    ],
    expect: { object: w({ replicas: 5 }), managed: { "controller/Apply": { "f:spec": { "f:replicas": {} } } } },
  },
  {
    name: "ownership is handed over through a temporary manager, which disappears",
    point: "7",
    schema: "widget",
    steps: [
      { manager: "user", apply: w({ replicas: 3, paused: false }) },
      { manager: "handover-to-hpa", apply: w({ replicas: 3 }) },
      { manager: "user", apply: w({ paused: false }) },
      { manager: "hpa", apply: w({ replicas: 6 }), force: true },
    ],
    expect: {
      object: w({ replicas: 6, paused: false }),
      managed: { "user/Apply": { "f:spec": { "f:paused": {} } }, "hpa/Apply": { "f:spec": { "f:replicas": {} } } },
    },
  },
  {
    name: "the handover applier conflicts when the controller already owns the field",
    point: "7",
    schema: "widget",
    steps: [
      { manager: "hpa", apply: w({ replicas: 6 }) },
      { manager: "handover-to-hpa", apply: w({ replicas: 3 }) },
    ],
    expect: { conflicts: [".spec.replicas"] },
  },
  {
    name: "one empty managedFields entry on an update clears ownership; the requester owns what it changed",
    point: "8",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 1, paused: true }) },
      { manager: "m2", update: w({ replicas: 2, paused: true }, { managedFields: [{}] }) },
    ],
    expect: { object: w({ replicas: 2, paused: true }), managed: { "m2/Update": { "f:spec": { "f:replicas": {} } } } },
  },
  {
    name: "an empty managedFields list alone does not clear ownership",
    point: "8",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 1 }) },
      { manager: "m2", update: w({ replicas: 1 }, { managedFields: [] }) },
    ],
    expect: { object: w({ replicas: 1 }), managed: { "m1/Apply": { "f:spec": { "f:replicas": {} } } } },
  },
  {
    name: "an update through a sub-resource records the sub-resource",
    point: "9",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ replicas: 1 }) },
      { manager: "kubelet", update: { ...w({ replicas: 1 }), status: { phase: "Running" } }, subresource: "status" },
    ],
    expect: {
      managed: { "m1/Apply": { "f:spec": { "f:replicas": {} } }, "kubelet/Update/status": { "f:status": { "f:phase": {} } } },
    },
  },
  {
    name: "granular to atomic: the owners of the elements own the atomic field, so changes conflict",
    point: "10",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ tags: ["a"], settings: { x: "1" } }) },
      { manager: "m2", apply: w({ tags: ["a", "b"] }), schema: "widgetAtomic" },
    ],
    expect: { conflicts: [".spec.tags"] },
  },
  {
    name: "atomic to granular: the new elements have no inferred owner, so no conflict",
    point: "10",
    schema: "widgetAtomic",
    steps: [
      { manager: "m1", apply: w({ tags: ["a"] }) },
      { manager: "m2", apply: w({ tags: ["b"] }), schema: "widget" },
    ],
    expect: {
      object: w({ tags: ["a", "b"] }),
      managed: { "m1/Apply": { "f:spec": { "f:tags": {} } }, "m2/Apply": { "f:spec": { "f:tags": { 'v:"b"': {} } } } },
    },
  },
  {
    name: "an object stored without managedFields is owned by before-first-apply",
    point: "4",
    schema: "widget",
    live: w({ replicas: 1 }),
    steps: [{ manager: "m1", apply: w({ replicas: 2 }) }],
    expect: {
      conflicts: [".spec.replicas"],
      message: 'Apply failed with 1 conflict: conflict with "before-first-apply" using example.orch.io/v1: .spec.replicas',
    },
  },
  {
    name: "given live managedFields, a forced apply takes the field and keeps the rest",
    point: "5a",
    schema: "widget",
    live: {
      ...w({ replicas: 1, paused: true }),
      metadata: {
        name: "w",
        managedFields: [
          {
            manager: "old",
            operation: "Update",
            apiVersion: "example.orch.io/v1",
            time: "2026-01-01T00:00:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:spec": { "f:paused": {}, "f:replicas": {} } },
          },
        ],
      },
    },
    steps: [{ manager: "m1", apply: w({ replicas: 2 }), force: true }],
    expect: {
      object: w({ replicas: 2, paused: true }),
      managed: { "m1/Apply": { "f:spec": { "f:replicas": {} } }, "old/Update": { "f:spec": { "f:paused": {} } } },
    },
  },
  // ---- list, map and struct types
  {
    name: "set list: elements are owned one by one and merged",
    point: "set list",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ tags: ["a", "b"] }) },
      { manager: "m2", apply: w({ tags: ["b", "c"] }) },
      { manager: "m1", apply: w({ tags: ["b"] }) },
    ],
    expect: {
      object: w({ tags: ["b", "c"] }),
      managed: { "m1/Apply": { "f:spec": { "f:tags": { 'v:"b"': {} } } }, "m2/Apply": { "f:spec": { "f:tags": { 'v:"b"': {}, 'v:"c"': {} } } } },
    },
  },
  {
    name: "map list: entries merge by key and are owned per entry and field",
    point: "map list",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ items: [{ name: "a", value: "1" }] }) },
      {
        manager: "m2",
        apply: w({
          items: [
            { name: "b", value: "2" },
            { name: "a", weight: 5 },
          ],
        }),
      },
    ],
    expect: {
      object: w({
        items: [
          { name: "b", value: "2" },
          { name: "a", value: "1", weight: 5 },
        ],
      }),
      managed: {
        "m1/Apply": { "f:spec": { "f:items": { [k("a")]: { ".": {}, "f:name": {}, "f:value": {} } } } },
        "m2/Apply": { "f:spec": { "f:items": { [k("a")]: { ".": {}, "f:name": {}, "f:weight": {} }, [k("b")]: { ".": {}, "f:name": {}, "f:value": {} } } } },
      },
    },
  },
  {
    name: "map list: an entry the applier dropped is removed, another's entry stays",
    point: "map list",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ items: [{ name: "a" }, { name: "b" }] }) },
      { manager: "m2", apply: w({ items: [{ name: "c" }] }) },
      { manager: "m1", apply: w({ items: [{ name: "b" }] }) },
    ],
    expect: { object: w({ items: [{ name: "b" }, { name: "c" }] }) },
  },
  {
    name: "map list: changing a field of another's entry conflicts",
    point: "map list",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ items: [{ name: "a", value: "1" }] }) },
      { manager: "m2", apply: w({ items: [{ name: "a", value: "2" }] }) },
    ],
    expect: { conflicts: ['.spec.items[name="a"].value'] },
  },
  {
    name: "map list with several keys, a missing key taking its default",
    point: "map list",
    schema: "widget",
    steps: [
      {
        manager: "m1",
        apply: w({
          ports: [
            { port: 80, name: "http" },
            { port: 80, protocol: "UDP" },
          ],
        }),
      },
    ],
    expect: {
      managed: {
        "m1/Apply": {
          "f:spec": {
            "f:ports": {
              'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {} },
              'k:{"port":80,"protocol":"UDP"}': { ".": {}, "f:port": {}, "f:protocol": {} },
            },
          },
        },
      },
    },
  },
  {
    name: "duplicate keys in an applied map list are refused",
    point: "map list",
    schema: "widget",
    steps: [{ manager: "m1", apply: w({ items: [{ name: "a" }, { name: "a" }] }) }],
    expect: { error: "Invalid" },
  },
  {
    name: "patchStrategy merge with a key is read as a map list",
    point: "map list",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ merged: [{ key: "x", v: "1" }] }) },
      { manager: "m2", apply: w({ merged: [{ key: "y" }] }) },
    ],
    expect: { object: w({ merged: [{ key: "x", v: "1" }, { key: "y" }] }) },
  },
  {
    name: "atomic list: replaced whole with one owner",
    point: "atomic list",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ args: ["a", "b"] }) },
      { manager: "m2", apply: w({ args: ["c"] }), force: true },
    ],
    expect: { object: w({ args: ["c"] }), managed: { "m2/Apply": { "f:spec": { "f:args": {} } } } },
  },
  {
    name: "a list without markers is atomic: changing it conflicts",
    point: "atomic list",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ plain: ["a"] }) },
      { manager: "m2", apply: w({ plain: ["a", "b"] }) },
    ],
    expect: { conflicts: [".spec.plain"] },
  },
  {
    name: "atomic map: replaced whole; granular map: merged key by key",
    point: "atomic/granular map",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ selector: { a: "1", b: "2" }, settings: { a: "1" } }) },
      { manager: "m2", apply: w({ selector: { c: "3" }, settings: { b: "2" } }), force: true },
    ],
    expect: {
      object: w({ selector: { c: "3" }, settings: { a: "1", b: "2" } }),
      managed: { "m1/Apply": { "f:spec": { "f:settings": { "f:a": {} } } }, "m2/Apply": { "f:spec": { "f:selector": {}, "f:settings": { "f:b": {} } } } },
    },
  },
  {
    name: "atomic struct: replaced whole; granular struct: merged field by field",
    point: "atomic/granular struct",
    schema: "widget",
    steps: [
      { manager: "m1", apply: w({ target: { kind: "A", name: "x" }, template: { image: "i" } }) },
      { manager: "m2", apply: w({ target: { kind: "B" }, template: { pull: "Always" } }), force: true },
    ],
    expect: {
      object: w({ target: { kind: "B" }, template: { image: "i", pull: "Always" } }),
      managed: { "m1/Apply": { "f:spec": { "f:template": { "f:image": {} } } }, "m2/Apply": { "f:spec": { "f:target": {}, "f:template": { "f:pull": {} } } } },
    },
  },
  {
    name: "unstructured: every key a field, every list atomic",
    point: "unstructured",
    schema: "unstructured",
    steps: [
      { manager: "m1", apply: { apiVersion: "x.io/v1", kind: "Thing", metadata: { name: "t" }, spec: { a: { b: 1 }, list: [{ name: "x" }] } } },
      { manager: "m2", apply: { apiVersion: "x.io/v1", kind: "Thing", metadata: { name: "t" }, spec: { a: { c: 2 }, list: [{ name: "y" }] } } },
    ],
    expect: { conflicts: [".spec.list"] },
  },
  {
    name: "unstructured: different keys of one object merge",
    point: "unstructured",
    schema: "unstructured",
    steps: [
      { manager: "m1", apply: { apiVersion: "x.io/v1", kind: "Thing", metadata: { name: "t" }, spec: { a: { b: 1 } } } },
      { manager: "m2", apply: { apiVersion: "x.io/v1", kind: "Thing", metadata: { name: "t" }, spec: { a: { c: 2 } } } },
    ],
    expect: {
      object: { apiVersion: "x.io/v1", kind: "Thing", metadata: { name: "t" }, spec: { a: { b: 1, c: 2 } } },
      managed: { "m1/Apply": { "f:spec": { "f:a": { "f:b": {} } } }, "m2/Apply": { "f:spec": { "f:a": { "f:c": {} } } } },
    },
  },
  {
    name: "pod: containers merge by name, env by name, tolerations atomic",
    point: "map list",
    schema: "pod",
    steps: [
      {
        manager: "user",
        apply: {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "p" },
          spec: { containers: [{ name: "app", image: "a:1", env: [{ name: "A", value: "1" }] }], tolerations: [{ key: "k" }] },
        },
      },
      {
        manager: "injector",
        apply: {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "p" },
          spec: {
            containers: [
              { name: "app", env: [{ name: "B", value: "2" }] },
              { name: "sidecar", image: "s:1" },
            ],
          },
        },
      },
    ],
    expect: {
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p" },
        spec: {
          containers: [
            {
              name: "app",
              image: "a:1",
              env: [
                { name: "A", value: "1" },
                { name: "B", value: "2" },
              ],
            },
            { name: "sidecar", image: "s:1" },
          ],
          tolerations: [{ key: "k" }],
        },
      },
    },
  },
];
