/**
 * The Secret types of the reference, apart from the Secret kind so that the modules of
 * per-type rules (such as `bootstrap-token-secret.ts`) can name them without importing it.
 * @module
 */

/**
 * The Secret types of the reference, with `domain` in their names: `orch.io/tls`,
 * `bootstrap.orch.io/token`. `domain` is used as given (the Secret kind's own rules pass the
 * product domain; the bootstrap token type of a `k8s.io` server is
 * `secretTypes("kubernetes.io").bootstrapToken`, see `bootstrapTokenSecretType`).
 */
export function secretTypes(domain: string) {
  return {
    opaque: "Opaque",
    serviceAccountToken: `${domain}/service-account-token`,
    dockercfg: `${domain}/dockercfg`,
    dockerConfigJSON: `${domain}/dockerconfigjson`,
    basicAuth: `${domain}/basic-auth`,
    sshAuth: `${domain}/ssh-auth`,
    tls: `${domain}/tls`,
    bootstrapToken: `bootstrap.${domain}/token`,
  } as const;
}
