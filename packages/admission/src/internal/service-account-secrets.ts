/**
 * The secrets a pod spec refers to, as the ServiceAccount plugin checks them: whether a mirror
 * pod names any (the reference's `VisitPodSecretNames`), and which reference an account that
 * enforces its mountable secrets does not allow (the reference's `limitSecretReferences`).
 * Not exported from the package.
 * @module
 */

import { record, records, str } from "./json.js";

type Fields = Record<string, unknown>;

/** `fields[a][b]...` as a string, `""` when absent. */
function textAt(fields: Fields | undefined, ...path: string[]): string {
  let at: unknown = fields;
  for (const key of path) at = record(at)?.[key];
  return str(at);
}

/** The volume sources that name a secret, and where (the reference's `VisitPodSecretNames`). */
const volumeSecretPaths: readonly (readonly string[])[] = [
  ["secret", "secretName"],
  ["azureFile", "secretName"],
  ["cephfs", "secretRef", "name"],
  ["cinder", "secretRef", "name"],
  ["flexVolume", "secretRef", "name"],
  ["iscsi", "secretRef", "name"],
  ["rbd", "secretRef", "name"],
  ["scaleIO", "secretRef", "name"],
  ["storageos", "secretRef", "name"],
  ["csi", "nodePublishSecretRef", "name"],
];

/** The container lists of a pod spec with how the reference's messages name their members. */
const containerKinds = [
  { field: "initContainers", label: "init container" },
  { field: "containers", label: "container" },
  { field: "ephemeralContainers", label: "ephemeral container" },
] as const;

/** The secrets one container's environment names: `env[].valueFrom.secretKeyRef`, `envFrom[].secretRef`. */
function containerSecretNames(container: Fields): string[] {
  return [
    ...records(container["env"]).map((e) => textAt(e, "valueFrom", "secretKeyRef", "name")),
    ...records(container["envFrom"]).map((e) => textAt(e, "secretRef", "name")),
  ];
}

/** Every secret name `spec` refers to: pull secrets, container environments, volumes. */
export function podSecretNames(spec: Fields): string[] {
  const names = records(spec["imagePullSecrets"]).map((r) => str(r["name"]));
  for (const { field } of containerKinds) for (const c of records(spec[field])) names.push(...containerSecretNames(c));
  for (const volume of records(spec["volumes"])) {
    for (const path of volumeSecretPaths) names.push(textAt(volume, ...path));
    for (const source of records(record(volume["projected"])?.["sources"])) names.push(textAt(source, "secret", "name"));
  }
  return names.filter((n) => n !== "");
}

/** The names of the `field` references of a ServiceAccount (`secrets`, `imagePullSecrets`). */
function accountReferences(account: Fields, field: string): Set<string> {
  return new Set(records(account[field]).map((r) => str(r["name"])));
}

/** The first environment reference of the containers in `field` that `allowed` lacks, as the reference words it. */
function containerViolation(spec: Fields, kind: (typeof containerKinds)[number], allowed: Set<string>, account: string): string | undefined {
  const tail = `is not allowed because service account ${account} does not reference that secret`;
  for (const c of records(spec[kind.field])) {
    const name = str(c["name"]);
    for (const env of records(c["env"])) {
      const secret = textAt(env, "valueFrom", "secretKeyRef", "name");
      if (record(record(env["valueFrom"])?.["secretKeyRef"]) && !allowed.has(secret)) {
        return `${kind.label} ${name} with envVar ${str(env["name"])} referencing secret.secretName="${secret}" ${tail}`;
      }
    }
    for (const from of records(c["envFrom"])) {
      const secret = textAt(from, "secretRef", "name");
      if (record(from["secretRef"]) && !allowed.has(secret)) return `${kind.label} ${name} with envFrom referencing secret.secretName="${secret}" ${tail}`;
    }
  }
  return undefined;
}

/**
 * Why `spec` may not run as `account` when the account enforces its mountable secrets: the
 * first secret volume, init container or container environment reference not in the account's
 * `secrets`, or pull secret not in its `imagePullSecrets`; `undefined` when all are allowed.
 */
export function unmountableSecret(spec: Fields, account: Fields): string | undefined {
  const name = textAt(account, "metadata", "name");
  const allowed = accountReferences(account, "secrets");
  for (const volume of records(spec["volumes"])) {
    const secret = record(volume["secret"]);
    if (secret && !allowed.has(str(secret["secretName"]))) {
      return `volume with secret.secretName="${str(secret["secretName"])}" is not allowed because service account ${name} does not reference that secret`;
    }
  }
  for (const kind of containerKinds.slice(0, 2)) {
    const why = containerViolation(spec, kind, allowed, name);
    if (why) return why;
  }
  const pulls = accountReferences(account, "imagePullSecrets");
  const refs = records(spec["imagePullSecrets"]);
  for (const [i, ref] of refs.entries()) {
    const pull = str(ref["name"]);
    if (!pulls.has(pull)) return `imagePullSecrets[${i}].name="${pull}" is not allowed because service account ${name} does not reference that imagePullSecret`;
  }
  return undefined;
}

/** As {@link unmountableSecret}, for the ephemeral containers only (the `ephemeralcontainers` update). */
export function unmountableEphemeralSecret(spec: Fields, account: Fields): string | undefined {
  const kind = containerKinds[2];
  return containerViolation(spec, kind, accountReferences(account, "secrets"), textAt(account, "metadata", "name"));
}
