import fs from 'node:fs';
import path from 'node:path';
import js from '@eslint/js';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import ivory from './eslint-rules/no-import-cycle.js';

/**
 * Module boundaries (docs/decisions/0006-module-boundaries.md). A module is a
 * folder under src/ other than platform/; read at lint time, so a new module
 * is covered without editing this file.
 */
const modules = fs
  .readdirSync(path.join(import.meta.dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'platform')
  .map((entry) => entry.name);

const moduleZones = modules.map((module) => ({
  // Everywhere outside the module: the other modules, the composition root, platform.
  target: ['./src/*.ts', './src/platform/**', ...modules.filter((other) => other !== module).map((other) => `./src/${other}/**`)],
  from: `./src/${module}`,
  except: ['./index.ts'],
  message: `Reach ${module}/ only through its index.ts (ARCHITECTURE "Boundaries").`,
}));

const platformZone = {
  target: './src/platform',
  from: './src',
  except: ['./platform'],
  message: 'platform/ is the ground floor: it imports no module and not the composition root.',
};

export default tseslint.config(
  { ignores: ['dist/', 'dist-devnets/', 'data/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['bench/**', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX, ivory },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createNodeResolver({ extensions: ['.ts', '.js', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } }),
      ],
    },
    rules: {
      // Not `import-x/no-cycle`: it never counts `import type`, and a type-only cycle still ties modules together.
      'ivory/no-import-cycle': ['error', { root: path.join(import.meta.dirname, 'src') }],
      'import-x/no-restricted-paths': ['error', { zones: [...moduleZones, platformZone] }],
      // Type-only imports (`import type { ColumnType }` in a table declaration) build no SQL.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'kysely', message: 'Only *.repository.ts files and platform/database/ build SQL (STYLE "Habits" 4).', allowTypeImports: true }],
          patterns: [{ group: ['kysely/*'], message: 'Only *.repository.ts files and platform/database/ build SQL.', allowTypeImports: true }],
        },
      ],
    },
  },
  {
    files: ['src/**/*.repository.ts', 'src/platform/database/**'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
);
