/**
 * An embedder's own authorizer, chained before RBAC: outside business hours every write is
 * denied, whatever RBAC would say; reads, and every request in business hours, are left to
 * RBAC (no opinion). Members of `system:masters` are asked before any authorizer, so the
 * on-call admin can still fix things at night.
 * @module
 */
import type { Attributes, AuthorizationResult, Authorizer } from "@orch/authz";
import { Client, inProcessTransport } from "@orch/client";
import { APIServer } from "@orch/server";
import { refusal, roleBindings, waitUntilAllowed } from "./access.js";
import { startInProcessControllers } from "@orch/controllers";

const readVerbs = new Set(["get", "list", "watch"]);
/** Reviews are created, but store nothing: "can I?" is not a write. */
const reviews = new Set([
  "selfsubjectaccessreviews",
  "selfsubjectrulesreviews",
  "selfsubjectreviews",
  "subjectaccessreviews",
  "localsubjectaccessreviews",
  "tokenreviews",
]);

/**
 * Denies writes to resources outside Monday to Friday, 08:00 to 18:00 UTC (as `now()` tells the
 * time); no opinion on everything else (reads, reviews, non-resource paths), so the next
 * authorizer of the chain decides.
 */
export function businessHoursAuthorizer(now: () => Date = () => new Date()): Authorizer {
  return {
    async authorize(attributes: Attributes): Promise<AuthorizationResult> {
      if (!attributes.resourceRequest || readVerbs.has(attributes.verb) || reviews.has(attributes.resource ?? "")) return { decision: "noOpinion", reason: "" };
      const time = now();
      const day = time.getUTCDay();
      const hour = time.getUTCHours();
      if (day >= 1 && day <= 5 && hour >= 8 && hour < 18) return { decision: "noOpinion", reason: "" };
      return { decision: "deny", reason: "writes are allowed Monday to Friday, 08:00 to 18:00 UTC" };
    },
  };
}

/** What the business-hours example saw: each call and its outcome. */
export type BusinessHoursResult = Record<string, string>;

/** Bob, an editor of `team-a`, writes at 10:00 and at 22:00; the admin writes at 22:00. */
export async function businessHours(log: (line: string) => void = console.log): Promise<BusinessHoursResult> {
  let clock = new Date("2026-11-24T10:00:00Z"); // a Tuesday
  const server = new APIServer({ authorization: [businessHoursAuthorizer(() => clock), "RBAC"] });
  // The control loops orch-apiserver runs (default ServiceAccounts, quota usage, aggregated roles).
  const controllers = startInProcessControllers(server);
  await server.ready();
  const admin = new Client({ transport: inProcessTransport(server, { user: { name: "admin", groups: ["system:masters"] } }) });
  const bob = new Client({ transport: inProcessTransport(server, { user: { name: "bob", groups: ["system:authenticated"] } }) });
  await admin.namespaces.create({ metadata: { name: "team-a" } });
  await admin.resource(roleBindings).create(
    {
      metadata: { name: "bob-edit" },
      roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "edit" },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.orch.io", name: "bob" }],
    },
    { namespace: "team-a" },
  );
  await waitUntilAllowed(bob, { verb: "create", resource: "configmaps", namespace: "team-a" });

  const seen: BusinessHoursResult = {};
  const attempt = async (what: string, call: () => Promise<unknown>) => {
    seen[what] = await call().then(
      () => "ok",
      (error: unknown) => refusal(error),
    );
    log(`${what}: ${seen[what]}`);
  };
  await attempt("bob creates a ConfigMap on Tuesday 10:00", () => bob.configMaps.create({ metadata: { name: "day" } }, { namespace: "team-a" }));
  clock = new Date("2026-11-24T22:00:00Z");
  await attempt("bob creates a ConfigMap on Tuesday 22:00", () => bob.configMaps.create({ metadata: { name: "night" } }, { namespace: "team-a" }));
  await attempt("bob reads a ConfigMap on Tuesday 22:00", () => bob.configMaps.get("day", { namespace: "team-a" }));
  await attempt("admin creates a ConfigMap on Tuesday 22:00", () => admin.configMaps.create({ metadata: { name: "hotfix" } }, { namespace: "team-a" }));
  await controllers.stop();
  await server.shutdown();
  return seen;
}
