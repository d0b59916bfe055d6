/**
 * RBAC inside the server: the index the RBAC authorizer decides from, kept current by watching
 * the four RBAC resources in the store, and the bootstrap policy, created and reconciled at
 * start. (Keeping aggregated ClusterRoles' rules current is the `clusterrole-aggregation`
 * controller's job, in `@orch/controllers`, as in the reference.)
 * @module
 */
import {
  bootstrapPolicy,
  RBACIndex,
  reconcileBinding,
  reconcileRole,
  type ClusterRole,
  type ClusterRoleBinding,
  type RBACKind,
  type Role,
  type RoleBinding,
} from "@orch/authz";
import { isAlreadyExists, type APIObject } from "@orch/meta";
import { ControlLoop, messageOf, type ControllerInput } from "./control-loop.js";
import type { WriteOptions } from "./object-store.js";
import { sameJSON } from "./same-json.js";
import { collectionPrefix, mutableCopy, objectKey, wireObject, type ServedResource } from "./served-resource.js";

const kinds: readonly { kind: RBACKind; resource: string }[] = [
  { kind: "ClusterRole", resource: "clusterroles" },
  { kind: "Role", resource: "roles" },
  { kind: "ClusterRoleBinding", resource: "clusterrolebindings" },
  { kind: "RoleBinding", resource: "rolebindings" },
];

/** The options of the server's own writes: no caller, no field validation, its manager. */
const systemWrite = (manager: string): WriteOptions => ({ dryRun: false, fieldValidation: "Ignore", warnings: [], fieldManager: manager });

/** Keeps the RBAC index and the bootstrap policy. */
export class RBACController {
  /** The index the RBAC authorizer reads. */
  readonly index = new RBACIndex();
  readonly #input: ControllerInput;
  readonly #loop: ControlLoop;

  /** A controller on `input`'s store and write path. */
  constructor(input: ControllerInput) {
    this.#input = input;
    this.#loop = new ControlLoop(input, {
      reload: () => this.#load(),
      reloadFailed: (error) => input.log(`RBAC: relist failed: ${messageOf(error)}`),
    });
  }

  #served(resource: string): ServedResource {
    const served = this.#input.served(`rbac.authorization.${this.#input.domain}`, resource);
    if (!served) throw new Error(`RBAC needs the ${resource} resource in the catalog`);
    return served;
  }

  /** Creates or reconciles the bootstrap policy, loads the index and starts watching. */
  async start(): Promise<void> {
    await this.#reconcileBootstrapPolicy();
    await this.#load();
  }

  /** Stops watching. */
  stop(): void {
    this.#loop.stop();
  }

  async #reconcileBootstrapPolicy(): Promise<void> {
    const policy = bootstrapPolicy(this.#input.domain);
    const { objects } = this.#input;
    const options = systemWrite("orch-apiserver");
    const write = async (resource: string, wanted: APIObject, reconcile: (existing: APIObject, wanted: APIObject) => APIObject | undefined) => {
      const served = this.#served(resource);
      const namespace = served.namespaced ? (wanted.metadata.namespace ?? "") : "";
      const name = wanted.metadata.name ?? "";
      const roleRefChanged = (current: APIObject, next: APIObject) => "roleRef" in next && !sameJSON(current["roleRef"] as never, next["roleRef"] as never);
      try {
        await objects.guaranteedUpdate(served, namespace, name, { dryRun: false, mode: "upsert" }, async (current) => {
          if (!current) return { kind: "create", object: await objects.prepareCreate(served, namespace, mutableCopy(wanted), options) };
          const next = reconcile(current, wanted);
          if (!next) return { kind: "noop", answer: { code: 200, body: current } };
          // A binding's roleRef cannot change: the reference deletes and recreates it.
          if (roleRefChanged(current, next)) return { kind: "delete", answer: { code: 200, body: current } };
          return { kind: "update", object: await objects.beforeUpdate(served, mutableCopy(next), current, options) };
        });
        if (!(await this.#input.store.get(objectKey(served, namespace, name)))) {
          await objects.create(served, namespace, mutableCopy(wanted), options);
        }
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    };
    const role = (e: APIObject, w: APIObject) => reconcileRole(e as unknown as ClusterRole, w as unknown as ClusterRole) as unknown as APIObject | undefined;
    const binding = (e: APIObject, w: APIObject) =>
      reconcileBinding(e as unknown as ClusterRoleBinding, w as unknown as ClusterRoleBinding) as unknown as APIObject | undefined;
    for (const o of policy.clusterRoles) await write("clusterroles", o as unknown as APIObject, role);
    for (const o of policy.clusterRoleBindings) await write("clusterrolebindings", o as unknown as APIObject, binding);
    for (const o of policy.roles) await write("roles", o as unknown as APIObject, role);
    for (const o of policy.roleBindings) await write("rolebindings", o as unknown as APIObject, binding);
  }

  /**
   * Lists the four resources at one revision, swaps them into the index at once (requests keep
   * the old index until the new one is whole), and watches them from that revision.
   */
  async #load(): Promise<void> {
    const signal = this.#loop.begin();
    const revision = await this.#input.store.revision();
    const listed = new Map<RBACKind, APIObject[]>();
    for (const { kind, resource } of kinds) {
      const { entries } = await this.#input.store.list(collectionPrefix(this.#served(resource), ""), { revision });
      listed.set(kind, entries.map(wireObject));
    }
    const of = <T>(kind: RBACKind) => (listed.get(kind) ?? []) as unknown as T[];
    this.index.reset({
      clusterRoles: of<ClusterRole>("ClusterRole"),
      roles: of<Role>("Role"),
      clusterRoleBindings: of<ClusterRoleBinding>("ClusterRoleBinding"),
      roleBindings: of<RoleBinding>("RoleBinding"),
    });
    for (const { kind, resource } of kinds) {
      this.#loop.follow(
        collectionPrefix(this.#served(resource), ""),
        revision,
        signal,
        (event) => {
          const type = event.type === "delete" ? "DELETED" : event.type === "create" ? "ADDED" : "MODIFIED";
          this.index.apply({ type, kind, object: wireObject(event.entry) as never });
        },
        // Compacted past us or the store went away: the loop starts over from a fresh list.
        (error) => this.#input.log(`RBAC: the ${resource} watch ended (${messageOf(error)}); relisting`),
      );
    }
  }
}
