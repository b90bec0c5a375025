import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import { readdirSync } from 'node:fs';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { noFolderCycle } from './eslint/no-folder-cycle.js';
import { ownSql } from './eslint/own-sql.js';
import { ownTables } from './eslint/own-tables.js';

/** Every folder of src/, read from the disk: a new feature folder is under the rules below at once. */
const sourceFolders = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Where processes start: they may import anything, and nothing imports them. */
const entryPoints = ['bootstrap', 'cli'];

/** The folders every feature builds on, and the only folders each of them may import. */
const foundations = {
  common: { may: [], message: 'common/ serves every folder and depends on none.' },
  tenancy: {
    may: ['common'],
    message:
      'tenancy/ is the leaf every feature shares (tenant id, not-found): it knows no feature.',
  },
  jose: {
    may: [],
    message:
      'jose/ is the JOSE toolbox every feature signs and verifies with: it depends on no folder.',
  },
  x509: {
    may: [],
    message:
      'x509/ is the X.509 toolbox (certificates, requests, authorities, chains, key identifiers, names): it depends on no folder.',
  },
  mdoc: {
    may: ['jose', 'x509'],
    message:
      'mdoc/ is the ISO mdoc and COSE toolbox (issue, verify, session transcripts, element values): it depends on jose/ and x509/ only.',
  },
  events: {
    may: [],
    message: 'events/ is the outbox port: features depend on it, it depends on none of them.',
  },
  database: {
    may: ['common', 'config'],
    message: 'database/ is the DataSource and its bounds: each feature registers its own entities.',
  },
  secrets: {
    may: ['common', 'config', 'database'],
    // Its property test draws owners as real tenant ids.
    specsMay: ['tenancy'],
    message:
      'secrets/ knows no feature: a feature registers its sealed columns (SecretsModule.forFeature).',
  },
};

/**
 * The folder boundaries, for the service's files and for the unit tests beside them alike; a test may
 * also import what its foundation lists as `specsMay`, each with its reason.
 */
const boundaryZones = (forSpecs) => [
  ...Object.entries(foundations).map(([folder, { may, specsMay = [], message }]) => ({
    target: `./src/${folder}`,
    from: sourceFolders
      .filter(
        (other) =>
          other !== folder && !may.includes(other) && !(forSpecs && specsMay.includes(other)),
      )
      .map((other) => `./src/${other}`),
    message,
  })),
  ...sourceFolders.map((owner) => ({
    target: sourceFolders.filter((other) => other !== owner).map((other) => `./src/${other}`),
    from: [`./src/${owner}/**/*.entity.ts`, `./src/${owner}/**/*.repository.ts`],
    message: `src/${owner}/ owns its tables: call its exported service, not its entities or repositories.`,
  })),
  {
    target: sourceFolders
      .filter((folder) => !entryPoints.includes(folder))
      .map((folder) => `./src/${folder}`),
    from: [...entryPoints.map((folder) => `./src/${folder}/**`), './src/*.ts'],
    message:
      'Start-up, the commands and the composition root (src/*.ts) are entry points: no folder imports them.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'packages/*/dist/**',
      'coverage/**',
      'node_modules/**',
      'eslint.config.js',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.jest },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        // Nest's DI reads constructor parameter types at run time: those imports must stay values.
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // The house's boundaries: no import cycles between files or folders, the foundations depend on no
    // feature, and a feature's tables are reached through its service, never its entities or repositories.
    files: ['src/**/*.ts'],
    plugins: {
      'import-x': importX,
      house: {
        rules: { 'no-folder-cycle': noFolderCycle, 'own-tables': ownTables, 'own-sql': ownSql },
      },
    },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'house/no-folder-cycle': 'error',
      'house/own-tables': ['error', { pending: [] }],
      'house/own-sql': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...boundaryZones(false),
            { target: './src', from: './test', message: 'The service never depends on its tests.' },
          ],
        },
      ],
    },
  },
  {
    // Unit tests beside the code keep the folder boundaries; they may also use the test helpers.
    files: ['src/**/*.spec.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: boundaryZones(true) }] },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ignores: ['bench/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The benchmark is JavaScript checked by TypeScript (tsconfig.bench.json): linted with types too.
    files: ['bench/*.mjs'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['./tsconfig.bench.json'] },
    },
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The benchmark's peers import the test suite's Credo helpers: typed by their own tsconfig.
    files: ['bench/peers/*.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: ['./tsconfig.peers.json'] },
    },
  },
  {
    // Generated from the OpenAPI document (npm run client:generate): a nullable reference comes out as
    // `X | (never | null)`, which is what openapi-typescript writes, not code to restyle.
    files: ['packages/client/src/generated/**/*.ts'],
    rules: {
      '@typescript-eslint/no-redundant-type-constituents': 'off',
      '@typescript-eslint/no-duplicate-type-constituents': 'off',
    },
  },
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
  prettier,
);
