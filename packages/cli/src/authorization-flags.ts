/**
 * The authorization flags of `orch-apiserver`, as the reference names them.
 * @module
 */
import type { FlagFailure } from "./authentication-flags.js";

/** An `--authorization-mode` entry. */
export type AuthorizationModeFlag = "AlwaysAllow" | "AlwaysDeny" | "RBAC" | "Node" | "Webhook";

/** The parsed authorization flags. */
export interface AuthorizationFlags {
  /** `--authorization-mode` (`Node,RBAC`): the authorizers, in order. */
  modes: AuthorizationModeFlag[];
  /** The webhook flags, with mode `Webhook`. */
  webhook?: {
    /** `--authorization-webhook-config-file`. */
    configFile: string;
    /** `--authorization-webhook-version` (`v1beta1`). */
    version: "v1" | "v1beta1";
    /** `--authorization-webhook-cache-authorized-ttl` in milliseconds (5m). */
    authorizedTTLMs: number;
    /** `--authorization-webhook-cache-unauthorized-ttl` in milliseconds (30s). */
    unauthorizedTTLMs: number;
  };
}

/** The `parseArgs` options of the authorization flags. */
export const authorizationOptions = {
  "authorization-mode": { type: "string" },
  "authorization-webhook-config-file": { type: "string" },
  "authorization-webhook-version": { type: "string" },
  "authorization-webhook-cache-authorized-ttl": { type: "string" },
  "authorization-webhook-cache-unauthorized-ttl": { type: "string" },
} as const;

/** The usage lines of the authorization flags. */
export const authorizationUsage = `
Authorization:
      --authorization-mode strings        authorizers in order: AlwaysAllow, AlwaysDeny, RBAC, Node, Webhook
                                          (default "Node,RBAC"); members of system:masters may do everything
      --authorization-webhook-config-file string
                                          kubeconfig-format file of the SubjectAccessReview webhook (mode Webhook)
      --authorization-webhook-version string
                                          SubjectAccessReview version sent to the webhook: v1beta1 or v1
                                          (default "v1beta1")
      --authorization-webhook-cache-authorized-ttl duration
                                          how long allowed answers are cached (default 5m0s)
      --authorization-webhook-cache-unauthorized-ttl duration
                                          how long denied answers are cached (default 30s)
`;

const known: readonly AuthorizationModeFlag[] = ["AlwaysAllow", "AlwaysDeny", "RBAC", "Node", "Webhook"];

/** Parses the authorization flags from `parseArgs` values. */
export function parseAuthorizationFlags(
  values: Record<string, unknown>,
  duration: (name: string, fallback: number) => number,
  fail: FlagFailure,
): AuthorizationFlags {
  const raw = values["authorization-mode"];
  const text = typeof raw === "string" ? raw : "Node,RBAC";
  const modes = text.split(",").map((m) => m.trim());
  for (const mode of modes) {
    if (!known.includes(mode as AuthorizationModeFlag)) fail(`invalid --authorization-mode "${mode}": want ${known.join(", ")}`);
  }
  if (new Set(modes).size !== modes.length) fail(`invalid --authorization-mode "${text}": a mode is named twice`);
  const flags: AuthorizationFlags = { modes: modes as AuthorizationModeFlag[] };
  const configFile = values["authorization-webhook-config-file"];
  const webhookFlags = Object.keys(authorizationOptions).filter((n) => n.startsWith("authorization-webhook-"));
  if (modes.includes("Webhook")) {
    if (typeof configFile !== "string" || configFile === "") fail("--authorization-mode Webhook needs --authorization-webhook-config-file");
    const version = typeof values["authorization-webhook-version"] === "string" ? values["authorization-webhook-version"] : "v1beta1";
    if (version !== "v1" && version !== "v1beta1") fail(`invalid --authorization-webhook-version "${version}": want v1beta1 or v1`);
    flags.webhook = {
      configFile,
      version,
      authorizedTTLMs: duration("authorization-webhook-cache-authorized-ttl", 5 * 60_000),
      unauthorizedTTLMs: duration("authorization-webhook-cache-unauthorized-ttl", 30_000),
    };
  } else {
    const stray = webhookFlags.find((n) => values[n] !== undefined);
    if (stray) fail(`--${stray} needs --authorization-mode with Webhook`);
  }
  return flags;
}
