// ESLint for the whole workspace: typescript-eslint's recommended rules (syntax only, no type
// information, so a run stays fast on a 2-core machine), tuned where our code has a reason.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/coverage/**', '.run/**', '.local/**', '**/*.d.ts', '**/*.generated.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` says "deliberately unused" (a handler's unused argument, a destructured rest).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A closure that reads the variable before its single assignment (a service's own handle).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and test helpers read loosely typed JSON responses.
    files: ['**/*.test.ts', '**/test/**/*.ts', 'e2e/**/*.ts', 'packages/testkit/**/*.ts', 'bench/**'],
    languageOptions: { globals: { ...globals.jest } },
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Walks OpenAPI documents parsed from YAML, whose shape is only known at run time.
    files: ['packages/openapi/src/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
