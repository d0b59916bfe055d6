import { APIServer } from "@orch/server";
const ns = "bench";
async function call(s: APIServer, m: string, u: string, b: unknown) {
  const r = await s.handle({
    method: m,
    url: u,
    headers: new Headers({ "content-type": "application/json" }),
    body: new TextEncoder().encode(JSON.stringify(b)),
  });
  if (r.status >= 300 && r.status !== 409) throw new Error(`${u} ${r.status} ${r.body}`);
}
const s = new APIServer({});
await s.ready();
await call(s, "POST", "/api/v1/namespaces", { metadata: { name: ns, labels: { "pod-security.orch.io/enforce": "baseline" } } });
await call(s, "POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "default" } });
for (let i = 0; i < 8000; i++)
  await call(s, "POST", `/api/v1/namespaces/${ns}/pods`, {
    metadata: { name: `p${i}`, labels: { app: "bench" } },
    spec: { containers: [{ name: "app", image: "registry.example/app:1.0", ports: [{ containerPort: 8080 }] }] },
  });
await s.shutdown();
