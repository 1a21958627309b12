import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'src/db/migrations/',
      'coverage/',
      'dist/',
      'dist.*/',
      'clients/typescript/dist/',
      'clients/typescript/src/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Fastify plugins and hooks are async by contract, awaiting or not.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // The public pages' scripts: plain JavaScript served to browsers as written (no build step).
    files: ['src/modules/pages/assets/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      sourceType: 'script',
      globals: Object.fromEntries(
        ['window', 'document', 'navigator', 'fetch', 'FormData', 'URLSearchParams', 'Image'].map((name) => [
          name,
          'readonly',
        ]),
      ),
    },
  },
  {
    // Form expressions: one plain module that the service imports and the public form page loads as is.
    files: ['src/lib/form-expressions.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      sourceType: 'module',
      globals: { window: 'readonly' },
    },
  },
  {
    // Build, start and CI scripts and the module-graph rules: plain JavaScript run by Node as written.
    files: ['scripts/**/*.mjs', '.dependency-cruiser.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false },
      globals: Object.fromEntries(
        ['process', 'console', 'performance', 'URL', 'module'].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // Tests read response bodies as untyped JSON.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
