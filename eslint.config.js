// Lint: typescript-eslint's recommended rules, no import cycles between the build's modules, and the
// build's layers (docs/ARCHITECTURE.md, Layout): a module imports from its own folder and the layers
// below, never from a layer above or from another folder of its own layer.
import fs from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

/** Every folder and file at the top of build/, by layer, highest first. */
const layers = [
  ['cli', 'launch.mjs', 'thread-entry.ts', 'thread.mjs'],
  ['diff'],
  ['tools', 'import'],
  ['pipeline'],
  ['output', 'site'],
  ['incremental'],
  ['schemas', 'report'],
  ['paths.ts', 'config.ts', 'tuning.ts', 'threads.ts', 'hash.ts', 'store.ts', 'api-types.ts', 'cache.mjs', 'guard.mjs', 'sources.mjs'],
];
const placed = new Set(layers.flat());
const unplaced = fs.readdirSync(new URL('build', import.meta.url)).filter((name) => !name.startsWith('.') && !placed.has(name));
if (unplaced.length) throw new Error(`eslint.config.js: place build/${unplaced.join(', build/')} in a layer of \`layers\``);

/** What each folder below the top layer may not import; the lowest layer's files, one zone, may import each other. */
const layerZones = layers.slice(1).flatMap((layer, i) => {
  const above = layers.slice(0, i + 1).flat();
  const lowest = i === layers.length - 2;
  const targets = lowest ? [layer] : layer.map((name) => [name]);
  return targets.map((target) => {
    const from = [...above, ...layer.filter((name) => !target.includes(name))];
    return {
      target: target.map((name) => `build/${name}`),
      from: from.map((name) => `build/${name}`),
      message: lowest
        ? 'the lowest layer of build/ imports nothing else of build/ (docs/ARCHITECTURE.md, Layout).'
        : `build/${target[0]} may import only from the layers below it (docs/ARCHITECTURE.md, Layout).`,
    };
  });
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      // Every output beside it, as .gitignore has them: the trees, and what npm start builds for another address.
      '.dist-*/**',
      'explorer/dist/**',
      'hosts/node_modules/**',
      'bench-results/**',
      '.crs-cache/**', // the build's cache where the data workflow keeps it (CRS_CACHE_DIR)
      'build/api-types.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.mjs', '.js'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts'] },
      'import-x/extensions': ['.ts', '.mts', '.mjs', '.js'],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones }],
      // Records are open JSON; `any` marks the few places that read them without a schema type.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Small functions: the build's code reads a screen at a time.
    files: ['build/**/*.ts', 'build/**/*.mjs'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
);
