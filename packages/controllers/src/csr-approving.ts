/**
 * {@link CSRApprovingController}: the `csrapproving` controller, the reference's
 * `pkg/controller/certificates/approver` (`sarapprove.go`). It approves node-agent client
 * certificate requests (signer `<d>/<p>-apiserver-client-<agent>`,
 * `kubernetes.io/kube-apiserver-client-kubelet` under `k8s.io`) that meet the signer's
 * restrictions (O `system:nodes`, CN `system:node:<name>`, no subject alternative names, exactly
 * the node client usages) when the requester may have them approved, which a SubjectAccessReview
 * for the requester of the request (`spec.username`, `uid`, `groups`, `extra`) decides:
 *
 * - `create` on `certificatesigningrequests/selfnodeclient` in `certificates.<domain>` when
 *   the requester is the node the certificate names (a renewal);
 * - `create` on `certificatesigningrequests/nodeclient` otherwise (a new node's bootstrap).
 *
 * Approval goes through the `approval` sub-resource with condition `Approved`, reason
 * `AutoApproved`. A request that is recognised but not allowed is retried with back-off (the
 * requester's permissions may change), quietly, as the reference's `IgnorableError`.
 * @module
 */
import { builtInSignerNames, parseCertificateRequest, signerRestrictionProblems } from "@orch/certificates";
import type { Informer } from "@orch/client";
import { csrConditionTypes } from "@orch/resources";
import type { ControllerContext, ControllerDescriptor } from "./controller.js";
import { messageOf } from "./internal/message-of.js";
import { isDecided, viewCSR, withCondition, type CSRView } from "./internal/csr.js";
import { RetryQuietly, QueueController } from "./internal/queue-controller.js";
import { csrRef, subjectAccessReviewRef } from "./internal/refs.js";

/** One kind of request the approver recognises, and the permission its requester needs. */
interface Recognizer {
  /** The sub-resource of `certificatesigningrequests` the requester must be allowed to `create`. */
  subresource: "selfnodeclient" | "nodeclient";
  recognize(csr: CSRView, commonName: string): boolean;
  successMessage: string;
}

/** The node agent's name in messages: `kubelet` under `k8s.io`, `nodeagent` otherwise. */
const agentOf = (domain: string): string => (domain === "k8s.io" ? "kubelet" : "nodeagent");

/** The reference's recognizers, in its order: a renewal first, then a new node. */
function recognizers(domain: string): Recognizer[] {
  const signer = builtInSignerNames(domain).apiServerClientNodeAgent;
  const isNodeClient = (csr: CSRView): boolean => {
    if (csr.signerName !== signer) return false;
    return signerRestrictionProblems(parseCertificateRequest(csr.requestPem), csr.usages, signer, domain).length === 0;
  };
  const agent = agentOf(domain);
  return [
    {
      subresource: "selfnodeclient",
      recognize: (csr, commonName) => csr.username === commonName && isNodeClient(csr),
      successMessage: `Auto approving self ${agent} client certificate after SubjectAccessReview.`,
    },
    {
      subresource: "nodeclient",
      recognize: (csr) => isNodeClient(csr),
      successMessage: `Auto approving ${agent} client certificate after SubjectAccessReview.`,
    },
  ];
}

/** The approver; create one per term of leadership (the {@link ControllerManager} does). */
export class CSRApprovingController extends QueueController {
  /** `csrapproving`. */
  readonly name = "csrapproving";
  /** The reference's certificate controllers start their back-off at 200 ms. */
  protected override readonly baseDelayMs = 200;
  #informer: Informer | undefined;

  protected watch(ctx: ControllerContext): (() => void)[] {
    const { informer, unregister } = this.follow(ctx, csrRef, { deletes: true });
    this.#informer = informer;
    return [unregister];
  }

  protected async sync(name: string): Promise<void> {
    const object = this.#informer?.get(name);
    if (!object) return;
    const csr = viewCSR(object);
    if (csr.certificate !== "" || isDecided(csr)) return;
    const domain = this.client.domain;
    if (csr.signerName !== builtInSignerNames(domain).apiServerClientNodeAgent) return;
    let commonName: string;
    try {
      commonName = parseCertificateRequest(csr.requestPem).commonName;
    } catch (error) {
      throw new Error(`unable to parse csr "${name}": ${messageOf(error)}`, { cause: error });
    }
    const tried: string[] = [];
    for (const r of recognizers(domain)) {
      if (!r.recognize(csr, commonName)) continue;
      tried.push(r.subresource);
      if (!(await this.#authorize(csr, r.subresource))) continue;
      const approved = withCondition(structuredClone(object), {
        type: csrConditionTypes.approved,
        status: "True",
        reason: "AutoApproved",
        message: r.successMessage,
      });
      try {
        await this.client.resource(csrRef).update(approved, { subresource: "approval" });
      } catch (error) {
        throw new Error(`error updating approval for csr: ${messageOf(error)}`, { cause: error });
      }
      this.log(`approved ${name}: ${r.successMessage}`);
      return;
    }
    if (tried.length) throw new RetryQuietly(`recognized csr "${name}" as [${tried.join(" ")}] but subject access review was not approved`);
  }

  /** Whether the requester of `csr` may `create` `certificatesigningrequests/<subresource>`, by a SubjectAccessReview. */
  async #authorize(csr: CSRView, subresource: string): Promise<boolean> {
    const review = await this.client.resource(subjectAccessReviewRef).create({
      metadata: {},
      spec: {
        user: csr.username,
        uid: csr.uid,
        groups: csr.groups,
        extra: csr.extra,
        resourceAttributes: { group: `certificates.${this.client.domain}`, version: "*", resource: "certificatesigningrequests", subresource, verb: "create" },
      },
    });
    const status = review["status"];
    return typeof status === "object" && status !== null && (status as { allowed?: unknown }).allowed === true;
  }
}

/** The {@link ControllerDescriptor} of the approver: `csrapproving`, on by default. */
export const csrApprovingController: ControllerDescriptor = {
  name: "csrapproving",
  enabledByDefault: true,
  create: () => new CSRApprovingController(),
};
