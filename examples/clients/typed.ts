/**
 * The typed client: an accessor for every kind of the catalog (`client.pods`,
 * `client.serviceAccounts`, ...), typed by the catalog's schemas, with a method per sub-resource
 * (`bind`, `createToken`, `patchStatus`, ...), and `forType` for the embedder's own kinds.
 * @module
 */
import { Client, inProcessTransport } from "@orch/client";
import { startInProcessControllers } from "@orch/controllers";
import { int32, kindSchema, stringMap, type ResourceType } from "@orch/resources";
import { APIServer } from "@orch/server";

/** Creates a ServiceAccount and a Pod, binds the Pod, sets its status, and gets a token for the account. */
export async function typedAccessors(
  log: (line: string) => void = console.log,
): Promise<{ nodeName: string | undefined; phase: string | undefined; tokenUser: string | undefined }> {
  const server = new APIServer();
  await server.ready();
  // The control loops: among them, `serviceaccount` gives every namespace its `default` account,
  // which the ServiceAccount admission plugin needs before it admits a Pod.
  const controllers = startInProcessControllers(server);
  const client = new Client({ transport: inProcessTransport(server) });
  const ns = { namespace: "default" };
  try {
    // A watch without a resourceVersion starts with what exists: wait for `default` to be there.
    for await (const event of client.serviceAccounts.watch({ ...ns, fieldSelector: "metadata.name=default" })) if (event.type === "ADDED") break;

    await client.serviceAccounts.create({ metadata: { name: "builder" } }, ns);
    const pod = await client.pods.create(
      { metadata: { name: "build-1" }, spec: { serviceAccountName: "builder", containers: [{ name: "build", image: "registry.example/build:1" }] } },
      ns,
    );
    log(`created pod ${pod.metadata.name} (phase ${pod.status?.phase}, service account ${pod.spec?.serviceAccountName})`);

    // Sub-resources: `binding` (what a scheduler posts), then `status` (what a node agent writes).
    await client.pods.bind("build-1", { target: { kind: "Node", name: "node-1" } }, ns);
    const running = await client.pods.patchStatus("build-1", { status: { phase: "Running" } }, "merge", ns);
    log(`bound to ${running.spec?.nodeName}, phase ${running.status?.phase}`);

    // `token`: a service-account token, signed by the server (a key it generates on first use).
    const request = await client.serviceAccounts.createToken("builder", { spec: { expirationSeconds: 600 } }, ns);
    const asBuilder = new Client({ transport: inProcessTransport(server, { headers: { Authorization: `Bearer ${request.status?.token}` } }) });
    const review = await asBuilder.selfSubjectReviews.create({ metadata: {} });
    const tokenUser = review.status?.userInfo?.username;
    log(`the token authenticates ${tokenUser}`);
    return { nodeName: running.spec?.nodeName, phase: running.status?.phase, tokenUser };
  } finally {
    await controllers.stop();
    await server.shutdown();
  }
}

/** The embedder's own kind: `widgets` in `example.<domain>`, declared with `satisfies` so its schema's type survives. */
export const widgetType = {
  group: "example.{domain}",
  resource: "widgets",
  singular: "widget",
  kind: "Widget",
  scope: "Namespaced",
  versions: [{ name: "v1", schema: kindSchema({ size: int32().optional(), status: stringMap().optional() }, "A widget."), storage: true }],
  subresources: ["status"],
} satisfies ResourceType;

/** Serves `widgets` beside the built-in kinds and uses them through `client.forType`. */
export async function ownKinds(log: (line: string) => void = console.log): Promise<{ size: number | undefined; status: Record<string, string> | undefined }> {
  const server = new APIServer({ resources: [widgetType] });
  const client = new Client({ transport: inProcessTransport(server) });
  const widgets = client.forType(widgetType, { validate: true }); // answers are checked against the schema
  const ns = { namespace: "default" };

  const created = await widgets.create({ metadata: { name: "w1" }, size: 3 }, ns); // `size: "big"` does not compile
  await widgets.patch("w1", { size: 4 }, "merge", ns);
  const ready = await widgets.patchStatus("w1", { status: { ready: "true" } }, "merge", ns);
  log(`${created.apiVersion} ${created.kind} ${created.metadata.name}: size ${ready.size}, status ${JSON.stringify(ready.status)}`);
  await server.shutdown();
  return { size: ready.size, status: ready.status };
}
