import { defineConfig } from "vitest/config";

/** Tests run against the TypeScript sources through the `@orch/source` export condition. */
export default defineConfig({
  resolve: { conditions: ["@orch/source"] },
  ssr: { resolve: { conditions: ["@orch/source"], externalConditions: ["@orch/source"] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
