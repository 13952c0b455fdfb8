// The project's lint: the rules that need the type checker to see a lost promise (a step that returns before
// its write is durable), plus a few plain checks. The reasons and figures are in
// docs/decisions/2026-12-04-lint-and-format.md. Formatting is Biome's (biome.json), not ESLint's.
import tseslint from "typescript-eslint";

/** node:test's `describe`/`it` return promises the runner itself awaits. */
const NODE_TEST_CALLS = { from: "package", package: "node:test", name: ["describe", "it", "test", "suite", "before", "after", "beforeEach", "afterEach"] };

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "bin/**"] },
  {
    files: ["**/*.ts"],
    plugins: { "@typescript-eslint": tseslint.plugin },
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": ["error", { allowForKnownSafeCalls: [NODE_TEST_CALLS] }],
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-array-delete": "error",
      "@typescript-eslint/only-throw-error": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true }],
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "no-var": "error",
      "no-debugger": "error",
      "no-dupe-keys": "error",
      "no-self-compare": "error",
      "no-unreachable": "error",
      "no-unsafe-finally": "error",
    },
  },
);
