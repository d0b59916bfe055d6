// A module resolution hook that adds the workspace's `@orch/source` export condition, as
// `--conditions=@orch/source` does: `@orch/*` packages then resolve to their TypeScript sources.
export async function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes("@orch/source") ? context.conditions : [...context.conditions, "@orch/source"];
  return nextResolve(specifier, { ...context, conditions });
}
