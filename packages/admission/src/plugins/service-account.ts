/**
 * ServiceAccount: gives every new pod a service account (`default` unless it names one),
 * refuses pods whose account does not exist, mounts the account's API token (a projected
 * volume of a bound token, the cluster's root CA and the namespace) in every container, copies
 * the account's pull secrets, enforces the account's mountable secrets when it asks for it, and
 * keeps mirror pods away from accounts and secrets.
 * @module
 */
import { isNotFound, type APIObject } from "@orch/meta";
import { isResource, type AdmissionAttributes } from "../attributes.js";
import { CachedLookup } from "../internal/namespace-cache.js";
import { labelDomain, productName } from "../internal/domain.js";
import { record, records, str } from "../internal/json.js";
import { podSecretNames, unmountableEphemeralSecret, unmountableSecret } from "../internal/service-account-secrets.js";
import { podSpecOf } from "../internal/pod-spec.js";
import { admissionForbidden, type AdmissionPlugin, type PluginFactory } from "../plugin.js";
import type { AdmissionServices } from "../services.js";

type Fields = Record<string, unknown>;

/** The account of pods that name none. */
const defaultAccount = "default";
/** The validity the token volume asks for (the reference's `WarnOnlyBoundTokenExpirationSeconds`). */
const tokenExpirationSeconds = 3607;
/** The token volume's file mode: 0644. */
const tokenVolumeMode = 0o644;
/** Live reads of a missing `default` account before giving up: it may be being created. */
const defaultAccountAttempts = 10;
/** The pause between those reads, in milliseconds (about a second in all). */
const retryDelayMs = 100;

/** The names the plugin uses under one domain. */
interface Names {
  /** `orch-api-access-` (`kube-api-access-` under `k8s.io`). */
  volumePrefix: string;
  /** `orch-root-ca.crt` (`kube-root-ca.crt`). */
  rootCA: string;
  /** `/var/run/secrets/orch.io/serviceaccount` (`/var/run/secrets/kubernetes.io/serviceaccount`). */
  mountPath: string;
  /** `orch.io/enforce-mountable-secrets` (`kubernetes.io/...`). */
  enforceMountable: string;
  /** `orch.io/config.mirror` (`kubernetes.io/...`). */
  mirror: string;
}

function namesOf(domain: string): Names {
  const short = productName(domain);
  const prefix = labelDomain(domain);
  return {
    volumePrefix: `${short}-api-access-`,
    rootCA: `${short}-root-ca.crt`,
    mountPath: `/var/run/secrets/${prefix}/serviceaccount`,
    enforceMountable: `${prefix}/enforce-mountable-secrets`,
    mirror: `${prefix}/config.mirror`,
  };
}

const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

/** `prefix` and five random characters (the reference's `SimpleNameGenerator`). */
function generateName(prefix: string): string {
  // Uniqueness, not secrecy (the reference's utilrand.String): Math.random is ten times cheaper.
  let name = prefix;
  for (let i = 0; i < 5; i++) name += nameAlphabet[Math.floor(Math.random() * nameAlphabet.length)];
  return name;
}

/** Go's `strconv.ParseBool` for true. */
const isTrue = (value: string | undefined) => value !== undefined && ["1", "t", "T", "true", "TRUE", "True"].includes(value);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The projected volume of the account token, the root CA and the namespace. */
function tokenVolume(name: string, names: Names): Fields {
  return {
    name,
    projected: {
      defaultMode: tokenVolumeMode,
      sources: [
        { serviceAccountToken: { expirationSeconds: tokenExpirationSeconds, path: "token" } },
        { configMap: { name: names.rootCA, items: [{ key: "ca.crt", path: "ca.crt" }] } },
        { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
      ],
    },
  };
}

/**
 * Mounts the token volume read-only at the token path in every init container and container
 * that mounts nothing there, adding the volume (under a fresh name, unless the pod already has a
 * token volume) when some container needs it.
 */
function mountToken(spec: Fields, names: Names): void {
  const volumes = records(spec["volumes"]);
  const existing = volumes.find((v) => str(v["name"]).startsWith(names.volumePrefix));
  const volumeName = existing ? str(existing["name"]) : generateName(names.volumePrefix);
  let needed = false;
  for (const field of ["initContainers", "containers"]) {
    for (const container of records(spec[field])) {
      const mounts = records(container["volumeMounts"]);
      if (mounts.some((m) => m["mountPath"] === names.mountPath)) continue;
      container["volumeMounts"] = [...mounts, { name: volumeName, readOnly: true, mountPath: names.mountPath }];
      needed = true;
    }
  }
  if (needed && !existing) spec["volumes"] = [...volumes, tokenVolume(volumeName, names)];
}

/** The pod's choice of token automounting wins, then the account's, else true. */
function shouldAutomount(account: APIObject, spec: Fields): boolean {
  if (typeof spec["automountServiceAccountToken"] === "boolean") return spec["automountServiceAccountToken"];
  if (typeof account["automountServiceAccountToken"] === "boolean") return account["automountServiceAccountToken"];
  return true;
}

/** Why a mirror pod is refused: it names an account, a secret, or a projected token. */
function mirrorViolation(spec: Fields): string | undefined {
  if (str(spec["serviceAccountName"]) !== "") return "a mirror pod may not reference service accounts";
  if (podSecretNames(spec).length > 0) return "a mirror pod may not reference secrets";
  const sources = records(spec["volumes"]).flatMap((v) => records(record(v["projected"])?.["sources"]));
  if (sources.some((s) => record(s["serviceAccountToken"]))) return "a mirror pod may not use ServiceAccountToken volume projections";
  return undefined;
}

class ServiceAccountPlugin implements AdmissionPlugin {
  readonly name = "ServiceAccount";
  readonly operations = ["CREATE", "UPDATE"] as const;

  /** Only pods (and their `ephemeralcontainers`) are looked at. */
  handlesResource(group: string, resource: string): boolean {
    return group === "" && resource === "pods";
  }
  readonly #names: Names;
  readonly #accounts: CachedLookup;

  constructor(services: AdmissionServices) {
    this.#names = namesOf(services.domain);
    this.#accounts = new CachedLookup(services, "", "serviceaccounts");
  }

  ready(): Promise<void> {
    return this.#accounts.ready();
  }

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const pod = podOf(attrs);
    if (!pod || attrs.operation !== "CREATE") return;
    const spec = specOf(pod);
    // A mirror pod's spec is the node's file: changing it makes the node delete the pod.
    if (!this.#isMirror(pod)) {
      if (str(spec["serviceAccountName"]) === "") {
        spec["serviceAccountName"] = defaultAccount;
        spec["serviceAccount"] = defaultAccount;
      }
      const account = await this.#account(attrs, str(spec["serviceAccountName"]));
      if (shouldAutomount(account, spec)) mountToken(spec, this.#names);
      const pulls = records(account["imagePullSecrets"]).map((r) => ({ name: str(r["name"]) }));
      if (records(spec["imagePullSecrets"]).length === 0 && pulls.length > 0) spec["imagePullSecrets"] = pulls;
    }
    await this.#validateCreate(attrs, pod);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const pod = podOf(attrs);
    if (!pod) return;
    if (attrs.operation === "UPDATE" && attrs.subresource === "ephemeralcontainers") await this.#validateEphemeral(attrs, pod);
    else if (attrs.operation === "CREATE") await this.#validateCreate(attrs, pod);
  }

  #isMirror(pod: APIObject): boolean {
    return pod.metadata.annotations?.[this.#names.mirror] !== undefined;
  }

  async #validateCreate(attrs: AdmissionAttributes, pod: APIObject): Promise<void> {
    const spec = specOf(pod);
    if (this.#isMirror(pod)) {
      const why = mirrorViolation(spec);
      if (why) throw admissionForbidden(attrs, why);
      return;
    }
    const account = await this.#requiredAccount(attrs, pod);
    const why = this.#enforcesMountable(account) ? unmountableSecret(spec, account) : undefined;
    if (why) throw admissionForbidden(attrs, why);
  }

  async #validateEphemeral(attrs: AdmissionAttributes, pod: APIObject): Promise<void> {
    const account = await this.#requiredAccount(attrs, pod);
    const why = this.#enforcesMountable(account) ? unmountableEphemeralSecret(specOf(pod), account) : undefined;
    if (why) throw admissionForbidden(attrs, why);
  }

  /** The pod's account; 403 when the pod names none or it does not exist. */
  async #requiredAccount(attrs: AdmissionAttributes, pod: APIObject): Promise<APIObject> {
    const name = str(specOf(pod)["serviceAccountName"]);
    if (name === "") throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${pod.metadata.name ?? ""}`);
    return this.#account(attrs, name);
  }

  #enforcesMountable(account: APIObject): boolean {
    return isTrue(account.metadata.annotations?.[this.#names.enforceMountable]);
  }

  /**
   * The account `name` of the write's namespace: from the watch-kept view, else read live (ten
   * times about a second apart for `default`, which the controller may be creating).
   * @throws 403 `error looking up service account <ns>/<name>: <why>`
   */
  async #account(attrs: AdmissionAttributes, name: string): Promise<APIObject> {
    const cached = this.#accounts.cached(attrs.namespace, name);
    if (cached) return cached;
    const attempts = name === defaultAccount ? defaultAccountAttempts : 1;
    try {
      for (let i = 0; i < attempts; i++) {
        if (i > 0) await sleep(retryDelayMs);
        const found = await this.#accounts.live(attrs.namespace, name);
        if (found) return found;
      }
    } catch (error) {
      if (!isNotFound(error)) throw lookupError(attrs, name, error instanceof Error ? error.message : String(error));
    }
    throw lookupError(attrs, name, `serviceaccount "${name}" not found`);
  }
}

function lookupError(attrs: AdmissionAttributes, name: string, why: string): Error {
  return admissionForbidden(attrs, `error looking up service account ${attrs.namespace}/${name}: ${why}`);
}

/** The pod of a write the plugin looks at: pods (main resource or `ephemeralcontainers`) with an object. */
function podOf(attrs: AdmissionAttributes): APIObject | undefined {
  if (!isResource(attrs, "", "pods") && !isResource(attrs, "", "pods", "ephemeralcontainers")) return undefined;
  return attrs.kind.kind === "Pod" ? attrs.object : undefined;
}

/** The pod's `spec`, created when missing. */
function specOf(pod: APIObject): Fields {
  const spec = podSpecOf(pod) ?? {};
  pod["spec"] = spec;
  return spec;
}

/**
 * The ServiceAccount plugin (both phases; CREATE, and UPDATE of `pods/ephemeralcontainers`):
 * - a new pod without `spec.serviceAccountName` gets `default` (and `spec.serviceAccount`);
 * - the account must exist: 403 `error looking up service account <ns>/<name>: serviceaccount
 *   "<name>" not found` (a missing `default` is read again for about a second first);
 * - unless the pod's or else the account's `automountServiceAccountToken` is false, the
 *   projected volume `<short>-api-access-xxxxx` (token of 3607 s at `token`, config map
 *   `<short>-root-ca.crt` key `ca.crt`, the namespace from `metadata.namespace`, mode 0644) is
 *   mounted read-only at `/var/run/secrets/<domain>/serviceaccount` in every init container and
 *   container that mounts nothing there;
 * - a pod without pull secrets gets the account's `imagePullSecrets`;
 * - an account annotated `<domain>/enforce-mountable-secrets: "true"` refuses secrets it does not
 *   list (volumes, environments, pull secrets; ephemeral containers on their update);
 * - a mirror pod (`<domain>/config.mirror`) is left unchanged and refused when it names an
 *   account, a secret or a projected token.
 */
export const serviceAccount: PluginFactory = ({ services }) => new ServiceAccountPlugin(services);
