import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './eslint-layers.js';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'test/cluster/control-plane/',
      'test/cluster/etcd/',
      'test/cluster/kube/',
    ],
  },
  js.configs.recommended,
  // The web console (web/src) runs in a browser; everything else on Node.
  { ignores: ['web/src/**'], languageOptions: { globals: globals.node } },
  { files: ['web/src/**'], languageOptions: { globals: globals.browser } },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      // Keep functions small enough to read in one go (see "How the code should feel").
      complexity: ['error', 15],
      'max-depth': ['error', 4],
      'max-lines': ['warn', { max: 300, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read the environment only in src/config.ts.' },
      ],
    },
  },
  {
    // One-way layers between the rooms of src/ (eslint-layers.js, docs/architecture.md).
    files: ['src/**/*.ts'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/one-way': 'error' },
  },
  {
    // The pure rooms do no I/O (docs/architecture.md): zod and each other only.
    files: ['src/model/**/*.ts', 'src/lifecycle/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.fixture.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?!zod$|\\.)', message: 'model/ and lifecycle/ are pure: no I/O, no packages but zod.' },
          ],
        },
      ],
    },
  },
  {
    // Tests and tooling start real processes and read their own settings.
    files: ['src/config.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**', '*.config.ts'],
    rules: { 'no-restricted-properties': 'off', 'max-lines': 'off' },
  },
);
