/**
 * CertificateSubjectRestriction: a CertificateSigningRequest for the API-server client signer
 * (`<domain>/orch-apiserver-client`, `kubernetes.io/kube-apiserver-client` under `k8s.io`) may
 * not ask for the `system:masters` group, whose members may do everything (the reference's
 * plugin of the same name).
 * @module
 */
import { parseCertificateRequest } from "@orch/certificates";
import { badRequest, type APIObject } from "@orch/meta";
import { builtInSignerNames } from "@orch/resources";
import { isResource } from "../attributes.js";
import { admissionForbidden, type PluginFactory } from "../plugin.js";
import { record, str } from "../internal/json.js";

/** The group a certificate may not put its holder in through the client signer. */
const mastersGroup = "system:masters";

/** The PEM of a request's `spec.request` (base64 in JSON); `undefined` when it is not base64 text. */
function requestPEM(csr: APIObject): string | undefined {
  const encoded = str(record(csr["spec"])?.["request"]);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/**
 * The CertificateSubjectRestriction plugin (validating; CREATE of `certificatesigningrequests`).
 * A request of the API-server client signer whose subject names the organization
 * `system:masters` is refused: 403 `use of <signer> signer with system:masters group is not
 * allowed`; one whose request does not parse is 400 (the kind's own validation reports the
 * details first in practice).
 */
export const certificateSubjectRestriction: PluginFactory = ({ services }) => {
  const group = `certificates.${services.domain}`;
  const signer = builtInSignerNames(services.domain).apiServerClient;
  return {
    name: "CertificateSubjectRestriction",
    operations: ["CREATE"],
    handlesResource: (g, resource) => g === group && resource === "certificatesigningrequests",
    validate(attrs) {
      const csr = attrs.object;
      if (!csr || !isResource(attrs, group, "certificatesigningrequests")) return;
      if (str(record(csr["spec"])?.["signerName"]) !== signer) return;
      const pem = requestPEM(csr);
      let organizations: readonly string[];
      try {
        if (pem === undefined) throw new Error("not base64 text");
        organizations = parseCertificateRequest(pem).organizations;
      } catch (error) {
        throw badRequest(`failed to parse CSR: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (organizations.includes(mastersGroup)) throw admissionForbidden(attrs, `use of ${signer} signer with ${mastersGroup} group is not allowed`);
    },
  };
};
