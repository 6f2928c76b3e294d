// ESLint over the whole repository, as the Effect monorepo's packages have it: dprint's formatting
// (line width 120) through @effect/eslint-plugin, imports sorted, type imports consistent.
// `npm run lint`, and `npm run lint:fix` for what can be fixed by itself.
import * as effectEslint from "@effect/eslint-plugin"
import simpleImportSort from "eslint-plugin-simple-import-sort"
import sortDestructureKeys from "eslint-plugin-sort-destructure-keys"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/",
      "**/build/",
      "**/dist/",
      "**/docs/",
      "**/.cache/",
      "**/coverage/",
      "bench/main.bundle.mjs",
      "test/fixtures/",
      "packages/cli/bin/"
    ]
  },
  {
    files: ["**/*.ts", "**/*.mjs"],
    extends: [tseslint.configs.recommended, ...effectEslint.configs.dprint],
    plugins: {
      "simple-import-sort": simpleImportSort,
      "sort-destructure-keys": sortDestructureKeys
    },
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "sort-imports": "off",
      "no-unused-vars": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "simple-import-sort/imports": "error",
      "simple-import-sort/exports": "off",
      "sort-destructure-keys/sort-destructure-keys": "off",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "separate-type-imports" }],
      "@typescript-eslint/no-import-type-side-effects": "error",
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-unsafe-function-type": "off",
      "@typescript-eslint/ban-ts-comment": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
)
