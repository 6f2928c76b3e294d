// ESLint over the whole repository, as the Effect monorepo's packages have it: dprint's formatting
// (line width 120) through @effect/eslint-plugin, which also sorts the import declarations (a second
// sorter, eslint-plugin-simple-import-sort, fought its order), type imports consistent.
// `npm run lint`, and `npm run lint:fix` for what can be fixed by itself.
import * as effectEslint from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

// The categories an export's doc may name, and what the names used before them become.
const categories = [
  "constructors",
  "models",
  "schemas",
  "errors",
  "services",
  "layers",
  "combinators",
  "constants",
  "getters",
  "guards",
  "utils"
]
const renamed = {
  failures: "errors",
  outcomes: "constructors",
  parsing: "constructors",
  schedules: "constructors",
  commands: "constructors",
  presets: "constants",
  tables: "constants",
  steps: "combinators",
  checks: "guards",
  predicates: "guards",
  validation: "guards",
  lookups: "getters",
  location: "getters",
  references: "getters",
  formatting: "utils",
  classifying: "utils",
  masking: "utils",
  metrics: "constants",
  judging: "utils",
  turns: "utils",
  running: "utils",
  measuring: "utils",
  counting: "utils"
}

const docs = {
  rules: {
    category: {
      meta: { type: "suggestion", fixable: "code", schema: [] },
      create: (context) => ({
        Program: () => {
          for (const comment of context.sourceCode.getAllComments()) {
            if (comment.type !== "Block") continue
            for (const match of comment.value.matchAll(/@category (\S+)/g)) {
              const name = match[1]
              if (categories.includes(name)) continue
              const start = comment.range[0] + 2 + match.index + "@category ".length
              context.report({
                loc: context.sourceCode.getLocFromIndex(start),
                message: `@category ${name} is none of ${categories.join(", ")}`,
                fix: renamed[name] === undefined ?
                  null :
                  (fixer) => fixer.replaceTextRange([start, start + name.length], renamed[name])
              })
            }
          }
        }
      })
    }
  }
}

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/",
      "**/build/",
      "**/dist/",
      "**/docs/",
      "**/.cache/",
      ".ab/",
      "**/coverage/",
      "bench/*.bundle.mjs",
      "test/fixtures/",
      "packages/cli/bin/"
    ]
  },
  {
    files: ["**/*.ts", "**/*.mjs"],
    extends: [tseslint.configs.recommended, ...effectEslint.configs.dprint],
    plugins: {
      docs
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
      "docs/category": "error",
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
