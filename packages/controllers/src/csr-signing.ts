/**
 * {@link CSRSigningController}: the `csrsigning` controller, the reference's
 * `pkg/controller/certificates/signer` as kube-controller-manager runs it with its cluster CA
 * files: one CA ({@link ControllerContext.signing}) for the four built-in signers
 * (`<d>/<p>-apiserver-client`, `<d>/<p>-apiserver-client-<agent>`, `<d>/<agent>-serving`,
 * `<d>/legacy-unknown`).
 *
 * A request that is approved (and not denied), not failed and not yet issued is checked
 * against its signer's restrictions; one that breaks any gets a `Failed` condition with reason
 * `SignerValidationFailure` and the first problem as its message (and a log line), the others
 * get `status.certificate` (PEM, lifetime the shorter of `spec.expirationSeconds` and the
 * signing duration), both through the `status` sub-resource. A signing error is logged and
 * retried with back-off, as the reference does. Without a CA the controller stays idle.
 * @module
 */
import { builtInSignerNames, parseCertificateRequest, signCertificate, signerRestrictionProblems } from "@orch/certificates";
import type { Informer } from "@orch/client";
import { formatTime } from "@orch/meta";
import { csrConditionTypes } from "@orch/resources";
import type { ClusterSigning, ControllerContext, ControllerDescriptor } from "./controller.js";
import { base64OfText } from "./internal/base64.js";
import { hasTrueCondition, isApproved, viewCSR, withCondition } from "./internal/csr.js";
import { messageOf } from "./internal/message-of.js";
import { QueueController } from "./internal/queue-controller.js";
import { csrRef } from "./internal/refs.js";

/** The signer; create one per term of leadership (the {@link ControllerManager} does). */
export class CSRSigningController extends QueueController {
  /** `csrsigning`. */
  readonly name = "csrsigning";
  /** The reference's certificate controllers start their back-off at 200 ms. */
  protected override readonly baseDelayMs = 200;
  #informer: Informer | undefined;
  #signing: ClusterSigning | undefined;

  protected override unableToRun(ctx: ControllerContext): string | undefined {
    this.#signing = ctx.signing;
    return ctx.signing ? undefined : "no cluster signing CA was given: not signing certificate requests";
  }

  protected watch(ctx: ControllerContext): (() => void)[] {
    const { informer, unregister } = this.follow(ctx, csrRef, { deletes: true });
    this.#informer = informer;
    return [unregister];
  }

  protected async sync(name: string): Promise<void> {
    const object = this.#informer?.get(name);
    const signing = this.#signing;
    if (!object || !signing) return;
    const csr = viewCSR(object);
    if (csr.certificate !== "") return;
    if (!isApproved(csr) || hasTrueCondition(csr, csrConditionTypes.failed)) return;
    const domain = this.client.domain;
    if (!Object.values(builtInSignerNames(domain)).includes(csr.signerName)) return;
    let problems: string[];
    try {
      problems = signerRestrictionProblems(parseCertificateRequest(csr.requestPem), csr.usages, csr.signerName, domain);
    } catch (error) {
      throw new Error(`unable to parse csr "${name}": ${messageOf(error)}`, { cause: error });
    }
    const csrs = this.client.resource(csrRef);
    const [problem] = problems;
    if (problem !== undefined) {
      this.log(`refusing to sign ${name} for ${csr.signerName}: ${problems.join("; ")}`);
      const failed = withCondition(structuredClone(object), {
        type: csrConditionTypes.failed,
        status: "True",
        reason: "SignerValidationFailure",
        message: problem,
        lastUpdateTime: formatTime(this.clock.now()),
      });
      try {
        await csrs.updateStatus(failed);
      } catch (error) {
        throw new Error(`error adding failure condition for csr: ${messageOf(error)}`, { cause: error });
      }
      return;
    }
    let certificate: string;
    try {
      certificate = await signCertificate({
        request: csr.requestPem,
        usages: csr.usages,
        signerName: csr.signerName,
        domain,
        ca: { certPem: signing.caCertPem, keyPem: signing.caKeyPem },
        ...(csr.expirationSeconds === undefined ? {} : { expirationSeconds: csr.expirationSeconds }),
        maxDurationMs: signing.durationMs,
        now: this.clock.now(),
      });
    } catch (error) {
      throw new Error(`error auto signing csr: ${messageOf(error)}`, { cause: error });
    }
    const signed = structuredClone(object);
    signed["status"] = {
      ...(typeof signed["status"] === "object" && signed["status"] !== null ? signed["status"] : {}),
      certificate: base64OfText(certificate),
    };
    try {
      await csrs.updateStatus(signed);
    } catch (error) {
      throw new Error(`error updating signature for csr: ${messageOf(error)}`, { cause: error });
    }
    this.log(`signed ${name} for ${csr.signerName}`);
  }
}

/** The {@link ControllerDescriptor} of the signer: `csrsigning`, on by default (idle without {@link ControllerContext.signing}). */
export const csrSigningController: ControllerDescriptor = {
  name: "csrsigning",
  enabledByDefault: true,
  create: () => new CSRSigningController(),
};
