// Generates packages/client/src/generated/schema.ts, the types of the typed client (openapi-typescript), from the OpenAPI
// document of the service.
//
//   npm run client:generate                          from the document the built service (dist/) serves
//   node scripts/generate-client.mjs --document FILE --out FILE
//                                                    from a saved document, to another file (the test
//                                                    that the committed types are current uses this)
//
// Without --document the document is built the way the service builds it, but without a database: Nest's
// preview mode resolves the modules and reads the controllers' metadata without instantiating providers,
// so no connection is opened.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import * as prettier from 'prettier';

const root = fileURLToPath(new URL('..', import.meta.url));
const committedSchema = join(root, 'packages/client/src/generated/schema.ts');

const header = `/**
 * Types of the agent service's API, generated from its OpenAPI document by \`npm run client:generate\`
 * (openapi-typescript). Do not edit: change the controllers and DTOs, then generate again.
 */
`;

/** The OpenAPI document exactly as the service serves it at /ctrl/v3/api-docs, built from dist/. */
async function documentWithoutDatabase() {
  await import('reflect-metadata');
  const { NestFactory } = await import('@nestjs/core');
  const { Logger } = await import('@nestjs/common');
  const { AppModule } = await import('../dist/src/app.module.js');
  const { Metrics } = await import('../dist/src/observability/metrics.js');
  const { loadSettings } = await import('../dist/src/config/load-settings.js');
  const { KeyVault } = await import('../dist/src/secrets/key-vault.js');
  const { buildOpenApiDocument } = await import('../dist/src/common/openapi.js');
  Logger.overrideLogger(false);
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-openapi-'));
  try {
    const settings = loadSettings({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      // Never connected to (preview mode), but the settings must be complete.
      DATABASE_URL: 'postgres://agent@127.0.0.1:5432/agent',
      AGENT_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    const app = await NestFactory.create(
      AppModule.register(
        settings,
        settings.DATABASE_URL,
        new Metrics(),
        new KeyVault(randomBytes(32)),
      ),
      { preview: true, logger: false, bodyParser: false, abortOnError: false },
    );
    return buildOpenApiDocument(app, settings);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The source of schema.ts for a document, formatted as the repository formats TypeScript. */
async function clientSchemaSource(document) {
  const ast = await openapiTS(document, { alphabetize: false, exportType: false });
  const source = `${header}\n${astToString(ast)}`;
  const options = await prettier.resolveConfig(committedSchema);
  return prettier.format(source, { ...options, filepath: committedSchema });
}

const { values } = parseArgs({
  options: { document: { type: 'string' }, out: { type: 'string' } },
});
const document =
  values.document === undefined
    ? await documentWithoutDatabase()
    : JSON.parse(readFileSync(values.document, 'utf8'));
const out = values.out ?? committedSchema;
writeFileSync(out, await clientSchemaSource(document));
if (values.out === undefined) console.log(`wrote ${out}`);
process.exit(0);
