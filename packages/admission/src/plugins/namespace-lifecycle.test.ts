import { StatusError, type APIObject } from "@orch/meta";
import { configMapType, localSubjectAccessReviewType, namespaceType, nodeType } from "@orch/resources";
import { describe, expect, it } from "vitest";
import { attributesFor, fakeServices, type FakeServices } from "../internal/testing.js";
import type { AdmissionServices, LiveList } from "../services.js";
import { passedAtOnce } from "../plugin.js";
import { namespaceLifecycle } from "./namespace-lifecycle.js";

const ns = (name: string, extra: Partial<APIObject> = {}): APIObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name },
  status: { phase: "Active" },
  ...extra,
});
const terminating = (name: string): APIObject => ns(name, { status: { phase: "Terminating" } });
const cm = (namespace: string, name = "c"): APIObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } });

function setup(domain = "orch.io", ...namespaces: APIObject[]) {
  const services = fakeServices({ domain });
  for (const n of namespaces) services.put("", "namespaces", n);
  return { services, plugin: namespaceLifecycle({ services, configuration: undefined }) };
}

async function refusal(run: () => Promise<void> | void): Promise<StatusError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

const createCM = (namespace: string, name = "c") => attributesFor({ operation: "CREATE", type: configMapType, object: cm(namespace, name) });

describe("NamespaceLifecycle", () => {
  it("looks at CREATE, UPDATE and DELETE in the mutating phase", () => {
    const { plugin } = setup();
    expect(plugin.name).toBe("NamespaceLifecycle");
    expect(plugin.operations).toEqual(["CREATE", "UPDATE", "DELETE"]);
    expect(plugin.admit).toBeTypeOf("function");
    expect(plugin.validate).toBeUndefined();
  });

  it.each(["default", "orch-system", "orch-public"])("refuses deleting the built-in namespace %s with 403", async (name) => {
    const { plugin } = setup("orch.io", ns(name));
    const error = await refusal(() => plugin.admit?.(attributesFor({ operation: "DELETE", type: namespaceType, oldObject: ns(name) })));
    expect(error.code).toBe(403);
    expect(error.reason).toBe("Forbidden");
    expect(error.message).toBe(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
    expect(error.status.details).toMatchObject({ name, kind: "namespaces" });
  });

  it("protects kube-system and kube-public under domain k8s.io, and lets other namespaces be deleted", async () => {
    const { plugin } = setup("k8s.io", ns("kube-system"), ns("team"));
    const error = await refusal(() =>
      plugin.admit?.(attributesFor({ operation: "DELETE", type: namespaceType, oldObject: ns("kube-system"), domain: "k8s.io" })),
    );
    expect(error.message).toBe('namespaces "kube-system" is forbidden: this namespace may not be deleted');
    await expect(
      plugin.admit?.(attributesFor({ operation: "DELETE", type: namespaceType, oldObject: ns("kube-public"), domain: "k8s.io" })),
    ).rejects.toMatchObject({ code: 403 });
    await expect(plugin.admit?.(attributesFor({ operation: "DELETE", type: namespaceType, oldObject: ns("team"), domain: "k8s.io" }))).resolves.toBeUndefined();
    await expect(
      plugin.admit?.(attributesFor({ operation: "DELETE", type: namespaceType, oldObject: ns("orch-system"), domain: "k8s.io" })),
    ).resolves.toBeUndefined();
  });

  it('refuses a create in a missing namespace with 404 namespaces "x" not found', async () => {
    const { plugin } = setup();
    const error = await refusal(() => plugin.admit?.(createCM("missing")));
    expect(error.code).toBe(404);
    expect(error.reason).toBe("NotFound");
    expect(error.message).toBe('namespaces "missing" not found');
    expect(error.status.details).toMatchObject({ name: "missing", kind: "namespaces" });
  });

  it("refuses an update in a missing namespace with 404, but lets deletes through", async () => {
    const { plugin } = setup();
    const update = attributesFor({ operation: "UPDATE", type: configMapType, object: cm("missing"), oldObject: cm("missing") });
    await expect(plugin.admit?.(update)).rejects.toMatchObject({ code: 404, message: 'namespaces "missing" not found' });
    await expect(plugin.admit?.(attributesFor({ operation: "DELETE", type: configMapType, oldObject: cm("missing") }))).resolves.toBeUndefined();
  });

  it("refuses a create in a terminating namespace with 403 and the NamespaceTerminating cause", async () => {
    const { plugin } = setup("orch.io", terminating("gone"));
    const error = await refusal(() => plugin.admit?.(createCM("gone", "late")));
    expect(error.code).toBe(403);
    expect(error.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace gone because it is being terminated');
    expect(error.status.details?.causes).toEqual([
      { reason: "NamespaceTerminating", message: "namespace gone is being terminated", field: "metadata.namespace" },
    ]);
  });

  it("counts a namespace with a deletion timestamp as terminating", async () => {
    const { plugin } = setup("orch.io", ns("going", { metadata: { name: "going", deletionTimestamp: "2026-01-01T00:00:00Z" } }));
    await expect(plugin.admit?.(createCM("going"))).rejects.toMatchObject({ code: 403 });
  });

  it("lets updates and deletes in a terminating namespace through, and creates in an active one", async () => {
    const { plugin } = setup("orch.io", terminating("gone"), ns("live"));
    await expect(
      plugin.admit?.(attributesFor({ operation: "UPDATE", type: configMapType, object: cm("gone"), oldObject: cm("gone") })),
    ).resolves.toBeUndefined();
    await expect(plugin.admit?.(attributesFor({ operation: "DELETE", type: configMapType, oldObject: cm("gone") }))).resolves.toBeUndefined();
    await expect(plugin.admit?.(createCM("live"))).resolves.toBeUndefined();
  });

  it("leaves Namespace objects and cluster-scoped objects alone", async () => {
    const { plugin } = setup();
    await expect(plugin.admit?.(attributesFor({ operation: "CREATE", type: namespaceType, object: ns("new") }))).resolves.toBeUndefined();
    await expect(
      plugin.admit?.(attributesFor({ operation: "UPDATE", type: namespaceType, object: ns("new"), oldObject: ns("new"), subresource: "finalize" })),
    ).resolves.toBeUndefined();
    const node: APIObject = { apiVersion: "v1", kind: "Node", metadata: { name: "n1" } };
    await expect(plugin.admit?.(attributesFor({ operation: "CREATE", type: nodeType, object: node }))).resolves.toBeUndefined();
  });

  it("lets LocalSubjectAccessReviews through in a missing namespace (a 404 would tell which exist)", async () => {
    const { plugin } = setup();
    const review: APIObject = { apiVersion: "authorization.orch.io/v1", kind: "LocalSubjectAccessReview", metadata: { namespace: "secret-plans" }, spec: {} };
    await expect(plugin.admit?.(attributesFor({ operation: "CREATE", type: localSubjectAccessReviewType, object: review }))).resolves.toBeUndefined();
  });
});

/** Services whose watch-kept namespaces are `view` (possibly stale) while reads see the store. */
function withView(services: FakeServices, view: APIObject[]): AdmissionServices & { readied: number } {
  const out = {
    ...services,
    readied: 0,
    watchList(): LiveList {
      return {
        items: () => view,
        generation: () => view.length,
        ready: async () => {
          out.readied++;
        },
      };
    },
  };
  return out;
}

describe("NamespaceLifecycle: the watch-kept view and live reads", () => {
  it("waits for the namespace view before it is ready", async () => {
    const services = withView(fakeServices(), []);
    const plugin = namespaceLifecycle({ services, configuration: undefined });
    await plugin.ready?.();
    expect(services.readied).toBe(1);
  });

  it("reads a namespace the view does not know live (it may have just been created)", async () => {
    const fake = fakeServices();
    fake.put("", "namespaces", ns("fresh"));
    const plugin = namespaceLifecycle({ services: withView(fake, []), configuration: undefined });
    await expect(plugin.admit?.(createCM("fresh"))).resolves.toBeUndefined();
  });

  it("decides from the view when it knows the namespace", async () => {
    const fake = fakeServices();
    // The view still shows the namespace; the store no longer has it.
    const plugin = namespaceLifecycle({ services: withView(fake, [ns("cached")]), configuration: undefined });
    await expect(plugin.admit?.(createCM("cached"))).resolves.toBeUndefined();
  });

  it("reads live for 30 seconds after a namespace's DELETE went through it, while the view still shows it active", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const fake = fakeServices({ now: () => now });
    fake.put("", "namespaces", terminating("team"));
    const plugin = namespaceLifecycle({ services: withView(fake, [ns("team")]), configuration: undefined });
    await expect(plugin.admit?.(createCM("team"))).resolves.toBeUndefined();
    await plugin.admit?.(attributesFor({ operation: "DELETE", type: namespaceType, oldObject: ns("team") }));
    await expect(plugin.admit?.(createCM("team"))).rejects.toMatchObject({ code: 403 });
    now += 30_001;
    await expect(plugin.admit?.(createCM("team"))).resolves.toBeUndefined();
  });
});

describe("NamespaceLifecycle: answering at once", () => {
  it("answers passedAtOnce when the view holds the active namespace, and a promise when it reads live", async () => {
    const { services, plugin } = setup("orch.io", ns("team"));
    await plugin.ready?.();
    expect(plugin.admit?.(createCM("team"))).toBe(passedAtOnce);
    expect(plugin.admit?.(attributesFor({ operation: "DELETE", type: configMapType, oldObject: cm("team") }))).toBe(passedAtOnce);
    // A namespace the view does not know is read live: a promise of its own, refused when missing.
    const missing = plugin.admit?.(createCM("missing"));
    expect(missing).not.toBe(passedAtOnce);
    await expect(missing).rejects.toMatchObject({ code: 404 });
    services.put("", "namespaces", terminating("going"));
    const refused = plugin.admit?.(createCM("going"));
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toMatchObject({ code: 403 });
  });
});
