/**
 * PodSecurity: applies the Pod Security Standards (the reference's pod-security-admission) to
 * pods, to the pod templates of workload resources, and to namespace label changes.
 *
 * A namespace's policy comes from its `pod-security.<domain>/{enforce,audit,warn}[-version]`
 * labels over the configured defaults. Pods (CREATE, and UPDATE when an image or an ephemeral
 * container changes; also the `ephemeralcontainers` sub-resource) are refused when they violate
 * the enforce level (403 `pods "<name>" is forbidden: violates PodSecurity "<level>:<version>":
 * ...`); audit violations go to the `pod-security.<domain>/audit-violations` audit annotation,
 * warn violations to a warning. Workload templates (Deployment, ReplicaSet, StatefulSet,
 * DaemonSet, Job, CronJob, ReplicationController, PodTemplate) only get audit annotations and
 * warnings. A namespace write with bad labels is refused (422); one that makes the enforce level
 * stricter warns about the existing pods that violate it. Exempt users, namespaces and runtime
 * classes are not evaluated (`pod-security.<domain>/exempt` says why).
 * @module
 */
import { badRequest, forbidden, formatFieldError, internalError, invalid, type APIObject, type FieldError } from "@orch/meta";
import type { AdmissionAttributes } from "../attributes.js";
import { labelDomain } from "../internal/domain.js";
import { CachedLookup } from "../internal/namespace-cache.js";
import { list, record, str } from "../internal/json.js";
import { podSpecOf, podTemplateOf } from "../internal/pod-spec.js";
import type { AdmissionPlugin, PluginContext, PluginFactory } from "../plugin.js";
import type { AdmissionServices } from "../services.js";
import { podView, type Violation } from "../pod-security/check.js";
import { parsePodSecurityConfiguration, type PodSecurityConfiguration } from "../pod-security/configuration.js";
import { Evaluator, forbiddenDetail } from "../pod-security/evaluator.js";
import {
  compareLevels,
  formatLevelVersion,
  fullyPrivileged,
  policyFromLabels,
  policyLabels,
  type EvaluatedPolicy,
  type LevelVersion,
  type Policy,
  type PolicyLabels,
} from "../pod-security/levels.js";
import { exemptNamespaceWarning, existingPodWarnings } from "../pod-security/namespace.js";

/** Pod sub-resources the plugin never looks at (their object is not the pod's spec). */
const ignoredPodSubresources = new Set(["exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"]);

/** The workload resources whose pod template is evaluated (warn and audit only), `group/resource` to kind. */
const templateResources: ReadonlyMap<string, string> = new Map([
  ["/replicationcontrollers", "ReplicationController"],
  ["/podtemplates", "PodTemplate"],
  ["apps/replicasets", "ReplicaSet"],
  ["apps/deployments", "Deployment"],
  ["apps/statefulsets", "StatefulSet"],
  ["apps/daemonsets", "DaemonSet"],
  ["batch/jobs", "Job"],
  ["batch/cronjobs", "CronJob"],
]);

let sharedEvaluator: Evaluator | undefined;

/** The evaluator of the standards, compiled on first use and shared by every plugin instance. */
function evaluatorOf(): Evaluator {
  sharedEvaluator ??= new Evaluator();
  return sharedEvaluator;
}

function aggregate(errors: readonly FieldError[]): string {
  const printed = errors.map(formatFieldError);
  return printed.length === 1 ? (printed[0] ?? "") : `[${printed.join(", ")}]`;
}

function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version === b.version;
}

function imagesDiffer(a: unknown, b: unknown): boolean {
  return str(record(a)?.["image"]) !== str(record(b)?.["image"]);
}

/**
 * True when an update of a pod can change its verdict (the reference's `isSignificantPodUpdate`):
 * a container or init container added, removed or given another image, or an ephemeral container
 * added or given another image. Other pod updates are not evaluated.
 */
export function isSignificantPodUpdate(pod: APIObject, old: APIObject): boolean {
  const spec = podSpecOf(pod) ?? {};
  const oldSpec = podSpecOf(old) ?? {};
  for (const field of ["containers", "initContainers"]) {
    const now = list(spec[field]);
    const before = list(oldSpec[field]);
    if (now.length !== before.length || now.some((c, i) => imagesDiffer(c, before[i]))) return true;
  }
  const oldEphemeral = list(oldSpec["ephemeralContainers"]);
  return list(spec["ephemeralContainers"]).some((c) => {
    const name = str(record(c)?.["name"]);
    const previous = oldEphemeral.find((o) => str(record(o)?.["name"]) === name);
    return previous === undefined || imagesDiffer(c, previous);
  });
}

/** The plugin's state: its configuration, label names and the shared evaluator. */
class PodSecurityAdmission {
  private readonly labelDomain: string;
  private readonly names: PolicyLabels;
  private readonly evaluator = evaluatorOf();
  /** The namespaces, from the watch-kept view (a live read on a miss), as the reference's namespace getter. */
  readonly namespaces: CachedLookup;

  constructor(
    private readonly services: AdmissionServices,
    private readonly config: PodSecurityConfiguration,
  ) {
    this.labelDomain = labelDomain(services.domain);
    this.names = policyLabels(this.labelDomain);
    this.namespaces = new CachedLookup(services, "", "namespaces");
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const { group, resource } = attrs.resource;
    if (group === "" && resource === "pods") return this.validatePod(attrs);
    if (group === "" && resource === "namespaces") return this.validateNamespace(attrs);
    const kind = templateResources.get(`${group}/${resource}`);
    if (kind !== undefined) return this.validateTemplate(attrs, kind);
  }

  private annotate(attrs: AdmissionAttributes, key: string, value: string): void {
    attrs.auditAnnotations[`${this.names.annotationPrefix}${key}`] = value;
  }

  /** Policies by the (frozen, stored) labels object they were read from: a namespace's labels are parsed once per revision. */
  private readonly policies = new WeakMap<object, EvaluatedPolicy>();
  private unlabelled: EvaluatedPolicy | undefined;

  private policyOf(labels: Readonly<Record<string, string>> | undefined): EvaluatedPolicy {
    if (!labels) return (this.unlabelled ??= policyFromLabels(undefined, this.config.defaults, this.names));
    if (!Object.isFrozen(labels)) return policyFromLabels(labels, this.config.defaults, this.names);
    let policy = this.policies.get(labels);
    if (!policy) {
      policy = policyFromLabels(labels, this.config.defaults, this.names);
      this.policies.set(labels, policy);
    }
    return policy;
  }

  /** Annotates and returns true when the namespace or the user is exempt. */
  private exempt(attrs: AdmissionAttributes): boolean {
    if (attrs.namespace !== "" && this.config.exemptNamespaces.has(attrs.namespace)) this.annotate(attrs, "exempt", "namespace");
    else if (attrs.user.name !== "" && this.config.exemptUsernames.has(attrs.user.name)) this.annotate(attrs, "exempt", "user");
    else return false;
    return true;
  }

  /** The namespace's labels; throws with what went wrong when it cannot be read. */
  private async namespaceLabels(namespace: string): Promise<Record<string, string> | undefined> {
    const found = await this.namespaces.find("", namespace);
    if (!found) throw new Error(`namespaces ${JSON.stringify(namespace)} not found`);
    return found.metadata.labels;
  }

  private async validatePod(attrs: AdmissionAttributes): Promise<void> {
    if (ignoredPodSubresources.has(attrs.subresource) || this.exempt(attrs)) return;
    let labels: Record<string, string> | undefined;
    try {
      labels = await this.namespaceLabels(attrs.namespace);
    } catch (error) {
      const why = `failed to lookup namespace ${JSON.stringify(attrs.namespace)}`;
      this.annotate(attrs, "error", `Internal error occurred: ${why}: ${error instanceof Error ? error.message : String(error)}`);
      throw internalError(why, error);
    }
    const { policy, errors } = this.policyOf(labels);
    if (errors.length === 0 && fullyPrivileged(policy)) {
      this.annotate(attrs, "enforce-policy", "privileged:latest");
      return;
    }
    const pod = attrs.object;
    if (!pod || attrs.kind.kind !== "Pod") throw badRequest("failed to decode pod");
    if (attrs.operation === "UPDATE") {
      if (!attrs.oldObject) throw badRequest("failed to decode old pod");
      if (!isSignificantPodUpdate(pod, attrs.oldObject)) return;
    }
    this.evaluate(attrs, { policy, errors }, pod.metadata, pod["spec"], true);
  }

  private async validateTemplate(attrs: AdmissionAttributes, kind: string): Promise<void> {
    if (attrs.subresource !== "" || this.exempt(attrs)) return;
    let labels: Record<string, string> | undefined;
    try {
      labels = await this.namespaceLabels(attrs.namespace);
    } catch (error) {
      this.annotate(attrs, "error", `failed to lookup namespace ${JSON.stringify(attrs.namespace)}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const evaluated = this.policyOf(labels);
    const { policy, errors } = evaluated;
    if (errors.length === 0 && policy.warn.level === "privileged" && policy.audit.level === "privileged") return;
    const found = attrs.object ? podTemplateOf(attrs.object, kind) : undefined;
    if (!found) return;
    this.evaluate(attrs, evaluated, found.template["metadata"], found.template["spec"], false);
  }

  /** Evaluates one pod spec and records the outcome on `attrs`; throws the enforce refusal. */
  private evaluate(attrs: AdmissionAttributes, { policy, errors }: EvaluatedPolicy, metadata: unknown, spec: unknown, enforce: boolean): void {
    const pod = podView(metadata, spec, this.labelDomain);
    const runtimeClass = str(pod.spec["runtimeClassName"]);
    if (runtimeClass !== "" && this.config.exemptRuntimeClasses.has(runtimeClass)) {
      this.annotate(attrs, "exempt", "runtimeClass");
      return;
    }
    if (errors.length) this.annotate(attrs, "error", `Failed to parse policy: ${aggregate(errors)}`);
    const results = new Map<string, Violation[]>();
    const run = (lv: LevelVersion): Violation[] => {
      const key = `${lv.level}:${lv.version}`;
      let found = results.get(key);
      if (!found) results.set(key, (found = this.evaluator.evaluate(lv, pod)));
      return found;
    };
    let refusal: Error | undefined;
    if (enforce) {
      this.annotate(attrs, "enforce-policy", formatLevelVersion(policy.enforce));
      const violations = run(policy.enforce);
      if (violations.length) {
        const why = `violates PodSecurity ${JSON.stringify(formatLevelVersion(policy.enforce))}: ${forbiddenDetail(violations)}`;
        refusal = forbidden({ group: attrs.resource.group, resource: attrs.resource.resource }, attrs.name || str(record(metadata)?.["name"]), why);
      }
    }
    const audit = run(policy.audit);
    if (audit.length) this.annotate(attrs, "audit-violations", this.wouldViolate(policy.audit, audit));
    if (refusal) throw refusal;
    const warn = run(policy.warn);
    if (warn.length) attrs.warnings.push(this.wouldViolate(policy.warn, warn));
  }

  private wouldViolate(lv: LevelVersion, violations: readonly Violation[]): string {
    return `would violate PodSecurity ${JSON.stringify(formatLevelVersion(lv))}: ${forbiddenDetail(violations)}`;
  }

  private async validateNamespace(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== "") return;
    const namespace = attrs.object;
    if (!namespace) throw badRequest("failed to decode namespace");
    const name = namespace.metadata.name ?? attrs.name;
    const labels = namespace.metadata.labels ?? {};
    const { policy, errors } = this.policyOf(labels);
    const refuse = () => invalid({ group: attrs.kind.group, kind: attrs.kind.kind }, name, errors);
    if (attrs.operation === "CREATE") {
      if (errors.length) throw refuse();
      if (this.config.exemptNamespaces.has(name)) this.warnExempt(attrs, name, policy, labels);
      return;
    }
    if (!attrs.oldObject) throw badRequest("failed to decode  old namespace");
    const old = this.policyOf(attrs.oldObject.metadata.labels);
    if (errors.length && (old.errors.length === 0 || aggregate(errors) !== aggregate(old.errors))) throw refuse();
    if (!this.stricterEnforce(policy.enforce, old.policy.enforce)) return;
    if (this.config.exemptNamespaces.has(name)) {
      this.warnExempt(attrs, name, policy, labels);
      return;
    }
    attrs.warnings.push(...(await this.existingPods(name, policy.enforce)));
  }

  /** True when `now` may refuse pods `before` allowed: changed, not privileged, not merely looser. */
  private stricterEnforce(now: LevelVersion, before: LevelVersion): boolean {
    if (sameLevelVersion(now, before) || now.level === "privileged") return false;
    return !(now.version === before.version && compareLevels(now.level, before.level) < 1);
  }

  private warnExempt(attrs: AdmissionAttributes, name: string, policy: Policy, labels: Record<string, string>): void {
    const warning = exemptNamespaceWarning(name, policy, this.config.defaults, labels, this.names);
    if (warning) attrs.warnings.push(warning);
  }

  private async existingPods(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: APIObject[];
    try {
      pods = (await this.services.list("", "pods", namespace)).items;
    } catch {
      return ["failed to list pods while checking new PodSecurity enforce level"];
    }
    return existingPodWarnings(namespace, enforce, pods, {
      evaluator: this.evaluator,
      labelDomain: this.labelDomain,
      exemptRuntimeClass: (rc) => this.config.exemptRuntimeClasses.has(rc),
      now: () => this.services.now(),
    });
  }
}

/**
 * The PodSecurity plugin (validating; CREATE and UPDATE).
 * @throws Error at construction for an invalid PodSecurityConfiguration.
 */
export const podSecurity: PluginFactory = (ctx: PluginContext): AdmissionPlugin => {
  const admission = new PodSecurityAdmission(ctx.services, parsePodSecurityConfiguration(ctx.configuration, ctx.services.domain));
  return {
    name: "PodSecurity",
    operations: ["CREATE", "UPDATE"],
    handlesResource: (group, resource) => (group === "" && (resource === "pods" || resource === "namespaces")) || templateResources.has(`${group}/${resource}`),
    ready: () => admission.namespaces.ready(),
    validate: (attrs) => admission.validate(attrs),
  };
};
