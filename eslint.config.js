// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Packages that may import `node:*`: everything else is pure, so it runs in any JavaScript runtime. */
const nodePackages = ["node", "store-etcd", "store-sqlite", "cli"];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", ".tsout/**", "docs/api/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: a promise nobody awaits or handles loses its rejection, and one passed
    // where a callback's result is ignored (an event listener, a void callback) does too.
    files: ["**/*.ts"],
    ignores: ["**/*.d.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-syntax": [
        "error",
        { selector: "ExportAllDeclaration", message: "Name every export: no `export *` (each src/index.ts lists its public surface)." },
      ],
    },
  },
  {
    files: ["packages/*/src/**/*.ts"],
    ignores: [...nodePackages.map((p) => `packages/${p}/**`), "packages/*/src/**/*.test.ts", "packages/*/src/**/*.bench.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^node:",
              message: "Pure packages run in any runtime: node:* belongs in @orch/node, @orch/store-etcd, @orch/store-sqlite or @orch/cli.",
            },
          ],
        },
      ],
    },
  },
);
