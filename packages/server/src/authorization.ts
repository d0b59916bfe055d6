/**
 * The server's authorization: the chain of `--authorization-mode`, and what RBAC and the Node
 * authorizer need of the server (the RBAC objects kept in an index, the bootstrap policy,
 * ClusterRole aggregation, the pods of a node).
 * @module
 */
import type { UserInfo } from "@orch/authn";
import {
  alwaysAllow,
  alwaysDeny,
  chainAuthorizer,
  nodeAuthorizer,
  privilegedGroupAuthorizer,
  rbacAuthorizer,
  rulesFor,
  uncoveredRules,
  type Authorizer,
  type PolicyRule,
  type RuleResolver,
  type RulesResult,
} from "@orch/authz";
import type { APIObject } from "@orch/meta";
import type { AccessPolicyRule } from "@orch/resources";
import { messageOf, type ControllerInput } from "./control-loop.js";
import { RBACController } from "./rbac-controller.js";
import { collectionPrefix, objectKey, wireObject } from "./served-resource.js";

/** A built-in authorization mode, by its `--authorization-mode` name. */
export type AuthorizationMode = "AlwaysAllow" | "AlwaysDeny" | "RBAC" | "Node";

/**
 * What {@link serverAuthorization} builds the chain from: what the RBAC controller needs (it
 * watches RBAC objects in the store and writes the bootstrap policy through `objects`), and more.
 */
export interface ServerAuthorizationInput extends ControllerInput {
  /** The modes in order; an {@link Authorizer} stands for itself. */
  modes: readonly (AuthorizationMode | Authorizer)[];
  /** Resolves once the server has started (RBAC's index is loaded then). */
  ready(): Promise<void>;
}

/** The server's authorization, as {@link serverAuthorization} builds it. */
export interface ServerAuthorization {
  /** The chain: `system:masters` first, then the modes in order. */
  authorizer: Authorizer;
  /** The rules `user` holds in `namespace` across the chain (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
  /** The rules of `rules` that `user` does not hold (RBAC escalation checks); none without RBAC. */
  uncoveredRules(user: UserInfo, namespace: string, rules: readonly AccessPolicyRule[]): Promise<AccessPolicyRule[]>;
  /** Starts what the modes need (RBAC: the bootstrap policy, the index, aggregation). */
  start(): Promise<void>;
  /** Stops it. */
  stop(): void;
}

/** The pods bound to a node, read from the store (the Node authorizer's graph). */
function podsOnNode(input: ServerAuthorizationInput): (node: string) => Promise<APIObject[]> {
  return async (node) => {
    const pods = input.served("", "pods");
    if (!pods) return [];
    const { entries } = await input.store.list(collectionPrefix(pods, ""));
    const out: APIObject[] = [];
    for (const entry of entries) {
      const pod = entry.value as APIObject;
      if ((pod.spec as { nodeName?: string } | undefined)?.nodeName === node) out.push(wireObject(entry));
    }
    return out;
  };
}

/**
 * `authorizer` (RBAC) deciding only once the server has started, when its index is whole: a
 * server that cannot start (its store does not answer) has no opinion, with the reason.
 */
function afterStart(authorizer: Authorizer & RuleResolver, ready: () => Promise<void>): Authorizer & RuleResolver {
  return {
    async authorize(attributes) {
      try {
        await ready();
      } catch (error) {
        return { decision: "noOpinion", reason: "", error: `RBAC: the policy is not loaded: ${messageOf(error)}` };
      }
      return authorizer.authorize(attributes);
    },
    async rulesFor(user, namespace) {
      await ready();
      return authorizer.rulesFor(user, namespace);
    },
  };
}

/** One stored object of the core group, or `undefined`. */
async function storedObject(input: ServerAuthorizationInput, resource: string, namespace: string, name: string): Promise<APIObject | undefined> {
  const served = input.served("", resource);
  const entry = served ? await input.store.get(objectKey(served, namespace, name)) : undefined;
  return entry ? wireObject(entry) : undefined;
}

/** The chain of `modes`, with what RBAC and Node need. */
export function serverAuthorization(input: ServerAuthorizationInput): ServerAuthorization {
  let rbac: RBACController | undefined;
  const authorizers: Authorizer[] = [privilegedGroupAuthorizer];
  for (const mode of input.modes) {
    if (typeof mode !== "string") authorizers.push(mode);
    else if (mode === "AlwaysAllow") authorizers.push(alwaysAllow);
    else if (mode === "AlwaysDeny") authorizers.push(alwaysDeny);
    else if (mode === "RBAC") {
      rbac ??= new RBACController(input);
      authorizers.push(afterStart(rbacAuthorizer(rbac.index, { domain: input.domain }), input.ready));
    } else if (mode === "Node") {
      authorizers.push(
        nodeAuthorizer(
          {
            podsOnNode: podsOnNode(input),
            getPVC: (namespace, name) => storedObject(input, "persistentvolumeclaims", namespace, name),
            getPV: (name) => storedObject(input, "persistentvolumes", "", name),
          },
          { domain: input.domain },
        ),
      );
    } else throw new TypeError(`unknown authorization mode ${JSON.stringify(mode)}: want AlwaysAllow, AlwaysDeny, RBAC or Node`);
  }
  const authorizer = chainAuthorizer(authorizers);
  return {
    authorizer,
    rulesFor: (user, namespace) => rulesFor(authorizers, user, namespace),
    uncoveredRules: async (user, namespace, rules) => (rbac ? uncoveredRules(rbac.index, user, namespace, rules as PolicyRule[]) : []),
    start: async () => {
      await rbac?.start();
    },
    stop: () => rbac?.stop(),
  };
}
