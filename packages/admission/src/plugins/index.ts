/**
 * The factories of the built-in plugins, by name.
 * @module
 */
import type { PluginFactory } from "../plugin.js";
import { imagePolicyWebhook } from "./image-policy-webhook.js";
import { certificateSubjectRestriction } from "./certificate-subject-restriction.js";
import { limitPodHardAntiAffinityTopology } from "./limit-pod-hard-anti-affinity-topology.js";
import { limitRanger } from "./limit-ranger.js";
import { namespaceAutoProvision } from "./namespace-auto-provision.js";
import { namespaceExists } from "./namespace-exists.js";
import { namespaceLifecycle } from "./namespace-lifecycle.js";
import { nodeRestriction } from "./node-restriction.js";
import { ownerReferencesPermissionEnforcement } from "./owner-references-permission-enforcement.js";
import { persistentVolumeClaimResize } from "./persistent-volume-claim-resize.js";
import { persistentVolumeLabel } from "./persistent-volume-label.js";
import { podNodeSelector } from "./pod-node-selector.js";
import { podSecurity } from "./pod-security.js";
import { podTolerationRestriction } from "./pod-toleration-restriction.js";
import { priority } from "./priority.js";
import { resourceQuota } from "./resource-quota.js";
import { runtimeClass } from "./runtime-class.js";
import { securityContextDeny } from "./security-context-deny.js";
import { serviceAccount } from "./service-account.js";
import { storageObjectInUseProtection } from "./storage-object-in-use-protection.js";
import { taintNodesByCondition } from "./taint-nodes-by-condition.js";
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from "../webhook/index.js";

/** Every built-in plugin's factory. */
export const builtinPluginFactories: Readonly<Record<string, PluginFactory>> = {
  NamespaceAutoProvision: namespaceAutoProvision,
  NamespaceLifecycle: namespaceLifecycle,
  NamespaceExists: namespaceExists,
  SecurityContextDeny: securityContextDeny,
  LimitPodHardAntiAffinityTopology: limitPodHardAntiAffinityTopology,
  LimitRanger: limitRanger,
  ServiceAccount: serviceAccount,
  NodeRestriction: nodeRestriction,
  TaintNodesByCondition: taintNodesByCondition,
  ImagePolicyWebhook: imagePolicyWebhook,
  PodSecurity: podSecurity,
  PodNodeSelector: podNodeSelector,
  Priority: priority,
  PodTolerationRestriction: podTolerationRestriction,
  PersistentVolumeLabel: persistentVolumeLabel,
  StorageObjectInUseProtection: storageObjectInUseProtection,
  OwnerReferencesPermissionEnforcement: ownerReferencesPermissionEnforcement,
  PersistentVolumeClaimResize: persistentVolumeClaimResize,
  RuntimeClass: runtimeClass,
  CertificateSubjectRestriction: certificateSubjectRestriction,
  MutatingAdmissionWebhook: mutatingAdmissionWebhook,
  ValidatingAdmissionWebhook: validatingAdmissionWebhook,
  ResourceQuota: resourceQuota,
};
