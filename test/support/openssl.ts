/**
 * Key pairs and PKCS#10 certificate requests made by the `openssl` of this machine, as a user
 * outside Node would make them for a CertificateSigningRequest.
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A P-256 key and a PKCS#10 request for `subject` (`/CN=alice/O=dev`), both PEM, made by
 * `openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes` (10 s at most).
 */
export function opensslRequest(subject: string): { key: string; request: string } {
  const dir = mkdtempSync(join(tmpdir(), "orch-openssl-"));
  try {
    const key = join(dir, "client.key");
    const csr = join(dir, "client.csr");
    execFileSync("openssl", ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subject, "-keyout", key, "-out", csr], {
      stdio: "ignore",
      timeout: 10_000,
    });
    return { key: readFileSync(key, "utf8"), request: readFileSync(csr, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
