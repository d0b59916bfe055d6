/**
 * {@link ClusterRoleAggregationController}: the `clusterrole-aggregation` controller, the
 * reference's `pkg/controller/clusterroleaggregation`. Every ClusterRole with an
 * `aggregationRule` gets as `rules` the union of the rules of the ClusterRoles its
 * `clusterRoleSelectors` pick (`aggregatedRules` of `@orch/authz`: roles in name order, each
 * rule once). Any ClusterRole added, changed or deleted queues every aggregated role; a role
 * whose rules are already right is not written.
 * @module
 */
import type { Informer } from "@orch/client";
import { aggregatedRules, type ClusterRole } from "@orch/authz";
import { isNotFound, jsonEqual, type APIObject } from "@orch/meta";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { QueueController } from "./internal/queue-controller.js";
import { clusterRolesRef } from "./internal/refs.js";

const aggregated = (role: APIObject): boolean => role["aggregationRule"] !== undefined && role["aggregationRule"] !== null;

/** The ClusterRole aggregation loop; create one per term of leadership (the {@link ControllerManager} does). */
export class ClusterRoleAggregationController extends QueueController {
  /** `clusterrole-aggregation`. */
  readonly name = "clusterrole-aggregation";
  #roles: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const roles = ctx.informers.informerFor(clusterRolesRef);
    this.#roles = roles;
    // Any role may now match (or stop matching) a selector: every aggregated role is looked at again.
    const enqueueAggregated = (): void => {
      for (const role of roles.list()) if (aggregated(role)) this.queue.add(role.metadata.name ?? "");
    };
    return [ctx.informers.addEventHandler(clusterRolesRef, { onAdd: enqueueAggregated, onUpdate: enqueueAggregated, onDelete: enqueueAggregated })];
  }

  protected async sync(name: string): Promise<void> {
    const role = this.#roles?.get(name) as ClusterRole | undefined;
    if (!role) return;
    const all = (this.#roles?.list() ?? []) as unknown as ClusterRole[];
    const rules = aggregatedRules(role, all);
    if (rules === undefined || jsonEqual(rules, role.rules ?? [])) return;
    try {
      await this.client.resource(clusterRolesRef).update({ ...(role as unknown as APIObject), rules }, { fieldManager: "clusterrole-aggregation-controller" });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    // Quiet when it works: the bootstrap roles are aggregated at every start.
  }
}

/** The {@link ControllerDescriptor} of the ClusterRole aggregation loop: `clusterrole-aggregation`, on by default. */
export const clusterRoleAggregationController: ControllerDescriptor = {
  name: "clusterrole-aggregation",
  enabledByDefault: true,
  create: () => new ClusterRoleAggregationController(),
};
