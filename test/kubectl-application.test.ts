/**
 * A realistic application of sixteen kinds (Namespace, Deployment, Service, ConfigMap, Secret,
 * ServiceAccount, Role, RoleBinding, Job, CronJob, Ingress, NetworkPolicy, PodDisruptionBudget,
 * HorizontalPodAutoscaler, StatefulSet, DaemonSet) in one multi-document manifest, as a
 * controller author's test fixture would hold it: `kubectl create -f` makes every object,
 * `kubectl apply --server-side` of the same file changes nothing and then rolls a changed image
 * out, and `kubectl rollout status` completes once a stand-in for the node agent marks the Pods
 * ready. Against `orch-apiserver --domain k8s.io` with its controller manager.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminRequest, startAPIServer, type RunningAPIServer } from "./support/apiserver.js";
import { until } from "./support/authorization.js";
import { kubectlFor, type Kubectl } from "./support/kubectl.js";
import { startPodReadiness } from "./support/node-agent.js";

const ns = "shop";

/** The application, with `image` as the web Deployment's image. */
function manifest(image: string): string {
  return `apiVersion: v1
kind: Namespace
metadata:
  name: ${ns}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: web, namespace: ${ns}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web-config, namespace: ${ns}}
data:
  LOG_LEVEL: info
---
apiVersion: v1
kind: Secret
metadata: {name: web-secret, namespace: ${ns}}
type: Opaque
stringData:
  password: s3cr3t
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: web-reader, namespace: ${ns}}
rules:
- apiGroups: [""]
  resources: [configmaps, secrets]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: web-reader, namespace: ${ns}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: web-reader}
subjects:
- {kind: ServiceAccount, name: web, namespace: ${ns}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: web
      containers:
      - name: web
        image: ${image}
        ports: [{name: http, containerPort: 8080}]
        envFrom: [{configMapRef: {name: web-config}}]
        env:
        - name: PASSWORD
          valueFrom: {secretKeyRef: {name: web-secret, key: password}}
        readinessProbe:
          httpGet: {path: /healthz, port: http}
        resources:
          requests: {cpu: 100m, memory: 64Mi}
        securityContext: {runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: ${ns}}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: ${ns}}
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web, namespace: ${ns}}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - ports: [{port: 8080}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: ${ns}}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: ${ns}}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: ${ns}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: shop/migrate:1.0}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: report, namespace: ${ns}}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: report, image: shop/report:1.0}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ${ns}}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres:16}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: log-agent, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: log-agent}}
  template:
    metadata: {labels: {app: log-agent}}
    spec:
      containers: [{name: agent, image: shop/log-agent:1.0}]
`;
}

const created = [
  "namespace/shop created",
  "serviceaccount/web created",
  "configmap/web-config created",
  "secret/web-secret created",
  "role.rbac.authorization.k8s.io/web-reader created",
  "rolebinding.rbac.authorization.k8s.io/web-reader created",
  "deployment.apps/web created",
  "service/web created",
  "ingress.networking.k8s.io/web created",
  "networkpolicy.networking.k8s.io/web created",
  "poddisruptionbudget.policy/web created",
  "horizontalpodautoscaler.autoscaling/web created",
  "job.batch/migrate created",
  "cronjob.batch/report created",
  "statefulset.apps/db created",
  "daemonset.apps/log-agent created",
];

describe("a sixteen-kind application with kubectl against orch-apiserver --domain k8s.io", () => {
  let server: RunningAPIServer;
  let kubectl: Kubectl;
  let stopReadiness: (() => void) | undefined;

  beforeAll(async () => {
    server = await startAPIServer({ flags: ["--domain", "k8s.io"] });
    kubectl = await kubectlFor(server);
    stopReadiness = startPodReadiness(server, ns);
  }, 60_000);

  afterAll(async () => {
    stopReadiness?.();
    await kubectl?.close();
    await server?.stop();
  });

  it("creates every object with kubectl create -f", async () => {
    const file = await kubectl.file("app.yaml", manifest("shop/web:1.0"));
    const res = await kubectl(["create", "-f", file], { timeoutSeconds: 60 });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim().split("\n")).toEqual(created);
    const got = await kubectl(["get", "all,cm,secret,sa,role,rolebinding,ingress,networkpolicy,pdb", "-n", ns, "-o", "name"]);
    expect(got.code, got.stderr).toBe(0);
    for (const name of ["deployment.apps/web", "service/web", "cronjob.batch/report", "job.batch/migrate", "statefulset.apps/db", "daemonset.apps/log-agent"]) {
      expect(got.stdout).toContain(name);
    }
  }, 90_000);

  it("applies the same file server-side without a change, then rolls out a new image", async () => {
    // The namespace's default ServiceAccount must exist before Pods are admitted; the controllers make it.
    await until(
      async () => (await adminRequest(server, { path: `/api/v1/namespaces/${ns}/serviceaccounts/default` })).status === 200,
      () => "the default ServiceAccount",
      20_000,
    );
    const rolledOut = await kubectl(["rollout", "status", "deployment/web", "-n", ns, "--timeout=60s"], { timeoutSeconds: 70 });
    expect(rolledOut.code, rolledOut.stderr).toBe(0);
    const before = (await adminRequest(server, { path: `/apis/apps/v1/namespaces/${ns}/deployments/web` })).json as { metadata: { generation: number } };

    const same = await kubectl.file("same.yaml", manifest("shop/web:1.0"));
    const applied = await kubectl(["apply", "--server-side", "--force-conflicts", "-f", same], { timeoutSeconds: 60 });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.trim().split("\n")).toHaveLength(16);
    const after = (await adminRequest(server, { path: `/apis/apps/v1/namespaces/${ns}/deployments/web` })).json as { metadata: { generation: number } };
    expect(after.metadata.generation).toBe(before.metadata.generation);

    const changed = await kubectl.file("v2.yaml", manifest("shop/web:2.0"));
    const reapplied = await kubectl(["apply", "--server-side", "--force-conflicts", "-f", changed], { timeoutSeconds: 60 });
    expect(reapplied.code, reapplied.stderr).toBe(0);
    expect(reapplied.stdout).toContain("deployment.apps/web serverside-applied");
    const done = await kubectl(["rollout", "status", "deployment/web", "-n", ns, "--timeout=60s"], { timeoutSeconds: 70 });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('deployment "web" successfully rolled out');
    const image = await kubectl(["get", "deployment", "web", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[0].image}"]);
    expect(image.stdout).toBe("shop/web:2.0");
    const sts = await kubectl(["rollout", "status", "statefulset/db", "-n", ns, "--timeout=60s"], { timeoutSeconds: 70 });
    expect(sts.code, sts.stderr).toBe(0);
  }, 240_000);
});
