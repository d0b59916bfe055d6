#!/usr/bin/env python3
"""The official Kubernetes Python client (Debian's python3-kubernetes) against orch-apiserver.

Run by test/python-client.test.ts with ORCH_KUBECONFIG naming the admin kubeconfig of a server
started with --domain k8s.io (the groups the client's generated APIs are bound to). Each test
drives one family of the client's APIs the way an application would: typed create, read, list,
patch, replace and delete of the core, apps, batch, networking, policy, autoscaling, rbac,
coordination, storage and discovery kinds, scale sub-resources, the YAML utilities
(create_from_yaml with lists, several documents and conflicts) and watch streams with resumption.
"""
import os
import tempfile
import textwrap
import unittest
import uuid

from kubernetes import client, config, utils, watch
from kubernetes.client.rest import ApiException

KUBECONFIG = os.environ["ORCH_KUBECONFIG"]


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def container(name="c", image="busybox"):
    return {"name": name, "image": image, "args": ["sleep", "3600"]}


def pod_template(labels):
    return {"metadata": {"labels": labels}, "spec": {"containers": [container()]}}


class Base(unittest.TestCase):
    """One namespace per test class, made in setUpClass."""

    @classmethod
    def setUpClass(cls):
        cls.api = config.new_client_from_config(config_file=KUBECONFIG)
        cls.core = client.CoreV1Api(cls.api)
        cls.ns = unique("py")
        cls.core.create_namespace({"metadata": {"name": cls.ns}})

    @classmethod
    def tearDownClass(cls):
        cls.core.delete_namespace(cls.ns)
        cls.api.close()

    def assertStatus(self, call, status, reason=None):
        with self.assertRaises(ApiException) as caught:
            call()
        self.assertEqual(caught.exception.status, status, caught.exception.body)
        if reason is not None:
            self.assertIn(f'"reason":"{reason}"', caught.exception.body.replace(" ", ""))


class CoreTest(Base):
    def test_pod_lifecycle(self):
        name = unique("pod")
        created = self.core.create_namespaced_pod(self.ns, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [container()]}})
        self.assertEqual(created.status.phase, "Pending")
        self.assertEqual(created.spec.containers[0].image_pull_policy, "Always")
        self.assertEqual(created.spec.restart_policy, "Always")
        self.assertEqual(created.spec.containers[0].termination_message_path, "/dev/termination-log")
        read = self.core.read_namespaced_pod(name, self.ns)
        self.assertEqual(read.metadata.uid, created.metadata.uid)
        self.assertIn(name, [p.metadata.name for p in self.core.list_namespaced_pod(self.ns).items])
        patched = self.core.patch_namespaced_pod(name, self.ns, {"metadata": {"labels": {"patched": "yes"}}})
        self.assertEqual(patched.metadata.labels, {"patched": "yes"})
        self.assertNotEqual(patched.metadata.resource_version, created.metadata.resource_version)
        selected = self.core.list_namespaced_pod(self.ns, label_selector="patched=yes")
        self.assertEqual([p.metadata.name for p in selected.items], [name])
        by_field = self.core.list_namespaced_pod(self.ns, field_selector=f"metadata.name={name}")
        self.assertEqual(len(by_field.items), 1)
        status = self.core.read_namespaced_pod_status(name, self.ns)
        self.assertEqual(status.status.phase, "Pending")
        self.core.delete_namespaced_pod(name, self.ns)
        # An unscheduled Pod goes at once, as in the reference.
        self.assertStatus(lambda: self.core.read_namespaced_pod(name, self.ns), 404, "NotFound")

    def test_service(self):
        name = unique("svc")
        body = {"metadata": {"name": name, "labels": {"app": "py"}}, "spec": {"selector": {"app": "py"}, "ports": [{"name": "http", "port": 80, "targetPort": 8080}]}}
        created = self.core.create_namespaced_service(self.ns, body)
        self.assertEqual(created.spec.type, "ClusterIP")
        self.assertEqual(created.spec.ports[0].protocol, "TCP")
        self.assertEqual(created.spec.session_affinity, "None")
        # A strategic merge patch (what the client sends for a dict) merges ports by `port`.
        patched = self.core.patch_namespaced_service(name, self.ns, {"spec": {"ports": [{"port": 80, "targetPort": 9090}]}})
        self.assertEqual([(p.name, p.port, p.target_port) for p in patched.spec.ports], [("http", 80, 9090)])
        self.assertStatus(
            lambda: self.core.patch_namespaced_service(name, self.ns, {"spec": {"ports": [{"name": "http", "port": 8080}]}}), 422, "Invalid"
        )
        self.assertStatus(lambda: self.core.create_namespaced_service(self.ns, body), 409, "AlreadyExists")
        self.core.delete_namespaced_service(name, self.ns)
        self.assertStatus(lambda: self.core.read_namespaced_service(name, self.ns), 404)

    def test_replication_controller_and_scale(self):
        name = unique("rc")
        body = {"metadata": {"name": name}, "spec": {"replicas": 1, "selector": {"app": name}, "template": pod_template({"app": name})}}
        created = self.core.create_namespaced_replication_controller(self.ns, body)
        self.assertEqual(created.spec.replicas, 1)
        scale = self.core.read_namespaced_replication_controller_scale(name, self.ns)
        self.assertEqual(scale.spec.replicas, 1)
        self.core.patch_namespaced_replication_controller_scale(name, self.ns, {"spec": {"replicas": 3}})
        self.assertEqual(self.core.read_namespaced_replication_controller(name, self.ns).spec.replicas, 3)
        self.core.delete_namespaced_replication_controller(name, self.ns)

    def test_config_map_selectors_replace_and_delete_collection(self):
        names = [unique("cm") for _ in range(3)]
        for i, name in enumerate(names):
            self.core.create_namespaced_config_map(self.ns, {"metadata": {"name": name, "labels": {"batch": "py", "index": str(i)}}, "data": {"i": str(i)}})
        listed = self.core.list_namespaced_config_map(self.ns, label_selector="batch=py,index in (0,2)")
        self.assertEqual(sorted(c.metadata.name for c in listed.items), sorted([names[0], names[2]]))
        page = self.core.list_namespaced_config_map(self.ns, label_selector="batch=py", limit=2)
        self.assertEqual(len(page.items), 2)
        self.assertTrue(page.metadata._continue)
        rest = self.core.list_namespaced_config_map(self.ns, label_selector="batch=py", limit=2, _continue=page.metadata._continue)
        self.assertEqual(len(rest.items), 1)
        current = self.core.read_namespaced_config_map(names[1], self.ns)
        current.data = {"replaced": "yes"}
        replaced = self.core.replace_namespaced_config_map(names[1], self.ns, current)
        self.assertEqual(replaced.data, {"replaced": "yes"})
        current.data = {"stale": "yes"}
        self.assertStatus(lambda: self.core.replace_namespaced_config_map(names[1], self.ns, current), 409, "Conflict")
        self.core.delete_collection_namespaced_config_map(self.ns, label_selector="batch=py")
        self.assertEqual(self.core.list_namespaced_config_map(self.ns, label_selector="batch=py").items, [])

    def test_secret_service_account_endpoints_pod_template_and_event(self):
        secret = self.core.create_namespaced_secret(self.ns, {"metadata": {"name": "creds"}, "stringData": {"user": "admin"}})
        self.assertEqual(secret.type, "Opaque")
        self.assertEqual(self.core.read_namespaced_secret("creds", self.ns).data, {"user": "YWRtaW4="})
        self.core.create_namespaced_service_account(self.ns, {"metadata": {"name": "robot"}})
        self.assertEqual(self.core.read_namespaced_service_account("robot", self.ns).metadata.name, "robot")
        self.assertEqual(self.core.delete_namespaced_service_account("robot", self.ns).metadata.name, "robot")
        endpoints = self.core.create_namespaced_endpoints(
            self.ns, {"metadata": {"name": "ext"}, "subsets": [{"addresses": [{"ip": "10.1.2.3"}], "ports": [{"port": 443}]}]}
        )
        self.assertEqual(endpoints.subsets[0].ports[0].protocol, "TCP")
        template = self.core.create_namespaced_pod_template(self.ns, {"metadata": {"name": "tpl"}, "template": pod_template({"app": "tpl"})})
        self.assertEqual(template.template.spec.dns_policy, "ClusterFirst")
        event = self.core.create_namespaced_event(
            self.ns,
            {
                "metadata": {"name": "ev"},
                "involvedObject": {"kind": "Pod", "name": "p", "namespace": self.ns},
                "reason": "Tested",
                "message": "from python",
                "type": "Normal",
            },
        )
        self.assertEqual(event.reason, "Tested")
        self.assertStatus(lambda: self.core.create_namespaced_secret(self.ns, {"metadata": {"name": "Bad_Name"}}), 422, "Invalid")

    def test_nodes(self):
        name = unique("node")
        self.core.create_node({"metadata": {"name": name, "labels": {"role": "py"}}})
        self.assertIn(name, [n.metadata.name for n in self.core.list_node(label_selector="role=py").items])
        self.core.patch_node_status(name, {"status": {"conditions": [{"type": "Ready", "status": "True"}]}})
        self.assertEqual(self.core.read_node_status(name).status.conditions[0].type, "Ready")
        self.core.delete_node(name)
        self.assertStatus(lambda: self.core.read_node(name), 404)

    def test_namespaces_and_discovery(self):
        names = [n.metadata.name for n in self.core.list_namespace().items]
        self.assertIn("default", names)
        self.assertIn("kube-system", names)
        groups = {g.name for g in client.ApisApi(self.api).get_api_versions().groups}
        for group in ["apps", "batch", "networking.k8s.io", "policy", "rbac.authorization.k8s.io", "autoscaling", "coordination.k8s.io", "storage.k8s.io"]:
            self.assertIn(group, groups)
        self.assertTrue(client.VersionApi(self.api).get_code().git_version)


class AppsTest(Base):
    def test_deployment(self):
        apps = client.AppsV1Api(self.api)
        name = unique("deploy")
        body = {"metadata": {"name": name}, "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}}, "template": pod_template({"app": name})}}
        created = apps.create_namespaced_deployment(self.ns, body)
        self.assertEqual(created.spec.strategy.type, "RollingUpdate")
        self.assertEqual(created.spec.strategy.rolling_update.max_surge, "25%")
        self.assertEqual(created.spec.revision_history_limit, 10)
        self.assertEqual(created.spec.progress_deadline_seconds, 600)
        patched = apps.patch_namespaced_deployment(name, self.ns, {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        self.assertEqual(patched.spec.template.spec.containers[0].image, "nginx")
        self.assertEqual(patched.spec.template.spec.containers[0].args, ["sleep", "3600"])
        apps.patch_namespaced_deployment_scale(name, self.ns, {"spec": {"replicas": 5}})
        self.assertEqual(apps.read_namespaced_deployment_scale(name, self.ns).spec.replicas, 5)
        self.assertStatus(
            lambda: apps.patch_namespaced_deployment(name, self.ns, {"spec": {"selector": {"matchLabels": {"app": "other"}}}}), 422, "Invalid"
        )
        apps.delete_namespaced_deployment(name, self.ns, propagation_policy="Background")
        self.assertStatus(lambda: apps.read_namespaced_deployment(name, self.ns), 404)

    def test_daemon_set_stateful_set_and_replica_set(self):
        apps = client.AppsV1Api(self.api)
        ds = apps.create_namespaced_daemon_set(self.ns, {"metadata": {"name": "ds"}, "spec": {"selector": {"matchLabels": {"app": "ds"}}, "template": pod_template({"app": "ds"})}})
        self.assertEqual(ds.spec.update_strategy.type, "RollingUpdate")
        sts = apps.create_namespaced_stateful_set(
            self.ns, {"metadata": {"name": "sts"}, "spec": {"serviceName": "sts", "selector": {"matchLabels": {"app": "sts"}}, "template": pod_template({"app": "sts"})}}
        )
        self.assertEqual(sts.spec.pod_management_policy, "OrderedReady")
        self.assertEqual(sts.spec.replicas, 1)
        rs = apps.create_namespaced_replica_set(
            self.ns, {"metadata": {"name": "rs"}, "spec": {"replicas": 0, "selector": {"matchLabels": {"app": "rs"}}, "template": pod_template({"app": "rs"})}}
        )
        self.assertEqual(rs.spec.replicas, 0)
        self.assertEqual({d.metadata.name for d in apps.list_namespaced_daemon_set(self.ns).items}, {"ds"})
        apps.delete_namespaced_daemon_set("ds", self.ns)
        apps.delete_namespaced_stateful_set("sts", self.ns)
        apps.delete_namespaced_replica_set("rs", self.ns)


class BatchTest(Base):
    def test_job(self):
        batch = client.BatchV1Api(self.api)
        name = unique("job")
        template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl", "command": ["perl", "-e", "print 1"]}]}}
        created = batch.create_namespaced_job(self.ns, {"metadata": {"name": name}, "spec": {"template": template}})
        self.assertEqual(created.spec.completions, 1)
        self.assertEqual(created.spec.parallelism, 1)
        self.assertEqual(created.spec.backoff_limit, 6)
        uid = created.metadata.uid
        self.assertEqual(created.spec.selector.match_labels, {"batch.kubernetes.io/controller-uid": uid})
        self.assertEqual(batch.read_namespaced_job(name, self.ns).metadata.uid, uid)
        self.assertStatus(
            lambda: batch.patch_namespaced_job(name, self.ns, {"spec": {"template": {"spec": {"containers": [{"name": "pi", "image": "other"}]}}}}), 422, "Invalid"
        )
        batch.delete_namespaced_job(name, self.ns, propagation_policy="Foreground")

    def test_cron_job(self):
        batch = client.BatchV1Api(self.api)
        template = {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": [container()]}}}}
        created = batch.create_namespaced_cron_job(self.ns, {"metadata": {"name": "nightly"}, "spec": {"schedule": "0 3 * * *", "jobTemplate": template}})
        self.assertEqual(created.spec.concurrency_policy, "Allow")
        self.assertEqual(created.spec.successful_jobs_history_limit, 3)
        self.assertStatus(
            lambda: batch.create_namespaced_cron_job(self.ns, {"metadata": {"name": "bad"}, "spec": {"schedule": "every night", "jobTemplate": template}}),
            422,
            "Invalid",
        )
        batch.delete_namespaced_cron_job("nightly", self.ns)


class NetworkingPolicyAutoscalingTest(Base):
    def test_ingress_class_ingress_and_network_policy(self):
        net = client.NetworkingV1Api(self.api)
        cls_name = unique("ic")
        net.create_ingress_class({"metadata": {"name": cls_name}, "spec": {"controller": "example.com/ingress"}})
        ingress = net.create_namespaced_ingress(
            self.ns,
            {
                "metadata": {"name": "web"},
                "spec": {
                    "ingressClassName": cls_name,
                    "rules": [{"host": "example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}],
                },
            },
        )
        self.assertEqual(ingress.spec.rules[0].http.paths[0].backend.service.port.number, 80)
        policy = net.create_namespaced_network_policy(self.ns, {"metadata": {"name": "deny"}, "spec": {"podSelector": {}}})
        self.assertEqual(policy.spec.policy_types, ["Ingress"])
        net.delete_namespaced_ingress("web", self.ns)
        net.delete_ingress_class(cls_name)

    def test_pod_disruption_budget_and_horizontal_pod_autoscaler(self):
        policy = client.PolicyV1Api(self.api)
        pdb = policy.create_namespaced_pod_disruption_budget(self.ns, {"metadata": {"name": "pdb"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}})
        self.assertEqual(pdb.spec.min_available, 1)
        autoscaling = client.AutoscalingV1Api(self.api)
        hpa = autoscaling.create_namespaced_horizontal_pod_autoscaler(
            self.ns, {"metadata": {"name": "hpa"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": 4}}
        )
        self.assertEqual(hpa.spec.min_replicas, 1)
        self.assertStatus(
            lambda: autoscaling.create_namespaced_horizontal_pod_autoscaler(
                self.ns, {"metadata": {"name": "bad"}, "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 0}}
            ),
            422,
            "Invalid",
        )


class RbacCoordinationStorageTest(Base):
    def test_role_binding_lease_and_storage_class(self):
        rbac = client.RbacAuthorizationV1Api(self.api)
        rbac.create_namespaced_role(self.ns, {"metadata": {"name": "reader"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]})
        rbac.create_namespaced_role_binding(
            self.ns,
            {
                "metadata": {"name": "reader"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
                "subjects": [{"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"}],
            },
        )
        review = client.AuthorizationV1Api(self.api).create_subject_access_review(
            {"spec": {"user": "jane", "resourceAttributes": {"namespace": self.ns, "verb": "list", "resource": "pods"}}}
        )
        self.assertTrue(review.status.allowed)
        lease = client.CoordinationV1Api(self.api).create_namespaced_lease(self.ns, {"metadata": {"name": "leader"}, "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15}})
        self.assertEqual(lease.spec.holder_identity, "me")
        storage = client.StorageV1Api(self.api)
        name = unique("sc")
        sc = storage.create_storage_class({"metadata": {"name": name}, "provisioner": "example.com/disk"})
        self.assertEqual(sc.reclaim_policy, "Delete")
        self.assertEqual(sc.volume_binding_mode, "Immediate")
        self.assertEqual(storage.delete_storage_class(name).provisioner, "example.com/disk")


class YamlUtilitiesTest(Base):
    def write(self, text):
        handle = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
        handle.write(textwrap.dedent(text))
        handle.close()
        self.addCleanup(os.unlink, handle.name)
        return handle.name

    def test_create_from_yaml_with_several_documents_and_a_list(self):
        path = self.write(
            f"""
            apiVersion: v1
            kind: Service
            metadata: {{name: frontend, namespace: {self.ns}}}
            spec:
              selector: {{app: frontend}}
              ports: [{{port: 80}}]
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: {{name: frontend, namespace: {self.ns}}}
            spec:
              selector: {{matchLabels: {{app: frontend}}}}
              template:
                metadata: {{labels: {{app: frontend}}}}
                spec: {{containers: [{{name: web, image: nginx}}]}}
            ---
            apiVersion: v1
            kind: List
            items:
            - apiVersion: v1
              kind: ConfigMap
              metadata: {{name: one, namespace: {self.ns}}}
            - apiVersion: rbac.authorization.k8s.io/v1
              kind: Role
              metadata: {{name: yaml-role, namespace: {self.ns}}}
              rules: [{{apiGroups: [""], resources: [pods], verbs: [get]}}]
            """
        )
        created = utils.create_from_yaml(self.api, path)
        kinds = sorted(obj.kind for group in created for obj in group)
        self.assertEqual(kinds, ["ConfigMap", "Deployment", "Role", "Service"])
        self.assertEqual(client.AppsV1Api(self.api).read_namespaced_deployment("frontend", self.ns).spec.replicas, 1)

    def test_create_from_yaml_reports_every_conflict(self):
        path = self.write(
            f"""
            apiVersion: v1
            kind: ConfigMap
            metadata: {{name: twice, namespace: {self.ns}}}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata: {{name: twice, namespace: {self.ns}}}
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata: {{name: once, namespace: {self.ns}}}
            """
        )
        with self.assertRaises(utils.FailToCreateError) as caught:
            utils.create_from_yaml(self.api, path)
        self.assertEqual([e.status for e in caught.exception.api_exceptions], [409])
        self.core.read_namespaced_config_map("once", self.ns)

    def test_create_api_service(self):
        registration = client.ApiregistrationV1Api(self.api)
        name = "v1alpha1.py.example.com"
        registration.create_api_service(
            {"metadata": {"name": name}, "spec": {"group": "py.example.com", "version": "v1alpha1", "groupPriorityMinimum": 100, "versionPriority": 100}}
        )
        self.assertEqual(registration.read_api_service(name).spec.group, "py.example.com")
        self.assertStatus(
            lambda: registration.create_api_service(
                {"metadata": {"name": name}, "spec": {"group": "py.example.com", "version": "v1alpha1", "groupPriorityMinimum": 100, "versionPriority": 100}}
            ),
            409,
            "AlreadyExists",
        )
        registration.delete_api_service(name)


class WatchTest(Base):
    def test_watch_sees_every_change_and_resumes(self):
        name = unique("watched")
        start = self.core.list_namespaced_config_map(self.ns).metadata.resource_version
        self.core.create_namespaced_config_map(self.ns, {"metadata": {"name": name}, "data": {"v": "1"}})
        self.core.patch_namespaced_config_map(name, self.ns, {"data": {"v": "2"}})
        self.core.delete_namespaced_config_map(name, self.ns)
        seen = []
        w = watch.Watch()
        for event in w.stream(self.core.list_namespaced_config_map, self.ns, resource_version=start, timeout_seconds=10):
            if event["object"].metadata.name != name:
                continue
            seen.append((event["type"], (event["object"].data or {}).get("v")))
            if event["type"] == "DELETED":
                w.stop()
        self.assertEqual(seen, [("ADDED", "1"), ("MODIFIED", "2"), ("DELETED", "2")])
        # A resumed watch (from the second change) delivers the rest only.
        self.core.create_namespaced_config_map(self.ns, {"metadata": {"name": name + "-b"}})
        created_rv = self.core.read_namespaced_config_map(name + "-b", self.ns).metadata.resource_version
        self.core.patch_namespaced_config_map(name + "-b", self.ns, {"data": {"v": "3"}})
        w = watch.Watch()
        resumed = []
        for event in w.stream(self.core.list_namespaced_config_map, self.ns, resource_version=created_rv, timeout_seconds=10):
            resumed.append((event["type"], event["object"].metadata.name))
            w.stop()
        self.assertEqual(resumed, [("MODIFIED", name + "-b")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
