import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * `npm run lint` keeps the house's boundaries: these lint a changed copy of real files, as a developer's
 * edit would look, and expect the boundary rules to refuse it.
 */
describe('lint boundaries', () => {
  // The project's config without type information, which no boundary rule reads: a TypeScript program
  // per lint was most of this file's time. Every other rule still runs.
  const eslint = new ESLint({ overrideConfig: tseslint.configs.disableTypeChecked });

  async function ruleIdsFor(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath });
    return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
  }

  /** What the boundary rules say of a file: without type information, other rules may differ. */
  const boundaryRules = ['import-x/no-cycle', 'import-x/no-restricted-paths', 'house/'];
  async function boundaryFindings(filePath: string, code: string): Promise<string[]> {
    return (await ruleIdsFor(filePath, code)).filter((id) =>
      boundaryRules.some((rule) => id.startsWith(rule)),
    );
  }

  it('passes the files as they are', async () => {
    for (const filePath of [
      'src/tenancy/tenant.errors.ts',
      'src/common/logging.ts',
      'src/secrets/sealed-columns.ts',
    ]) {
      expect(await ruleIdsFor(filePath, readFileSync(filePath, 'utf8'))).toEqual([]);
    }
  }, 60_000);

  // Type-only imports are erased at run time, so they cannot make a cycle; value imports can.
  it('refuses an import cycle: tenant.errors.ts importing the tenants service, which imports it', async () => {
    const filePath = 'src/tenancy/tenant.errors.ts';
    const changed = `import { TenantsService } from '../tenants/tenants.service.js';\nexport const service = TenantsService;\n${readFileSync(filePath, 'utf8')}`;
    expect(await ruleIdsFor(filePath, changed)).toContain('import-x/no-cycle');
  }, 60_000);

  it('refuses a feature imported from common/', async () => {
    const filePath = 'src/common/logging.ts';
    const changed = `import { type Caller } from '../auth/caller.js';\nexport type Someone = Caller;\n${readFileSync(filePath, 'utf8')}`;
    expect(await ruleIdsFor(filePath, changed)).toContain('import-x/no-restricted-paths');
  }, 60_000);

  // By rule, not by list: every other folder of src/ is refused in common/, new ones included.
  it('refuses an import of any other folder from common/', async () => {
    const filePath = 'src/common/logging.ts';
    const folders = readdirSync('src', { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'common')
      .map((entry) => entry.name);
    expect(folders).toEqual(expect.arrayContaining(['credentials', 'webhooks', 'observability']));
    for (const folder of folders) {
      const file = readdirSync(`src/${folder}`).find(
        (name) => name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts'),
      );
      const module = `../${folder}/${file?.replace(/\.ts$/, '.js')}`;
      const changed = `import * as other from '${module}';\nexport const reached = other;\n${readFileSync(filePath, 'utf8')}`;
      expect([folder, await ruleIdsFor(filePath, changed)]).toEqual([
        folder,
        expect.arrayContaining(['import-x/no-restricted-paths']),
      ]);
    }
  }, 120_000);

  // The old way back: secrets/ listing a feature's columns itself instead of the feature registering them.
  it('refuses a feature imported from secrets/', async () => {
    const filePath = 'src/secrets/sealed-columns.ts';
    const changed = `import { webhookSealedColumns } from '../webhooks/webhook-subscription.sealed-columns.js';\nexport const known = webhookSealedColumns;\n${readFileSync(filePath, 'utf8')}`;
    expect(await ruleIdsFor(filePath, changed)).toContain('import-x/no-restricted-paths');
  }, 60_000);

  // Files can be free of cycles while their folders are not: tenants/ already imports did/.
  it('refuses a folder cycle: did/ importing tenants/, which depends on did/', async () => {
    const filePath = 'src/did/did.service.ts';
    const changed = `import { TenantsModule } from '../tenants/tenants.module.js';\nexport const tenants = TenantsModule;\n${readFileSync(filePath, 'utf8')}`;
    expect(await ruleIdsFor(filePath, changed)).toContain('house/no-folder-cycle');
  }, 60_000);

  // At any depth: credentials/sd-jwt/ already reads credentials/status/, so the way back is refused.
  it('refuses a cycle between sibling folders inside a feature: credentials/status/ importing credentials/sd-jwt/', async () => {
    const filePath = 'src/credentials/status/status-lists.service.ts';
    const changed = `import { RemoteTokenStatusLists } from '../sd-jwt/remote-token-status-lists.js';\nexport const lists = RemoteTokenStatusLists;\n${readFileSync(filePath, 'utf8')}`;
    expect(await ruleIdsFor(filePath, changed)).toContain('house/no-folder-cycle');
  }, 60_000);

  it('lets a type-only import through the folder cycle rule (erased at run time)', async () => {
    const filePath = 'src/did/did.service.ts';
    const changed = `import { type TenantsModule } from '../tenants/tenants.module.js';\nexport type Tenants = TenantsModule;\n${readFileSync(filePath, 'utf8')}`;
    expect(await ruleIdsFor(filePath, changed)).not.toContain('house/no-folder-cycle');
  }, 60_000);

  // A feature's tables have one owner: every entity of every folder is refused in every other folder.
  it("refuses an import of another folder's entity, for every entity", async () => {
    const entityFiles = readdirSync('src', { recursive: true, encoding: 'utf8' }).filter((path) =>
      path.endsWith('.entity.ts'),
    );
    expect(entityFiles.length).toBeGreaterThan(10);
    for (const entityFile of entityFiles) {
      const owner = entityFile.split('/')[0];
      const filePath =
        owner === 'audit' ? 'src/health/health.service.ts' : 'src/audit/audit-log.ts';
      const changed = `import * as entity from '../${entityFile.replace(/\.ts$/, '.js')}';\nexport const reached = entity;\n${readFileSync(filePath, 'utf8')}`;
      expect([entityFile, await ruleIdsFor(filePath, changed)]).toEqual([
        entityFile,
        expect.arrayContaining(['import-x/no-restricted-paths']),
      ]);
    }
  }, 120_000);

  it("refuses an import of another folder's repository", async () => {
    const filePath = 'src/webhooks/webhooks.service.ts';
    const changed = `import { TenantRepository } from '../tenants/tenant.repository.js';\nexport const reached = TenantRepository;\n${readFileSync(filePath, 'utf8')}`;
    expect(await ruleIdsFor(filePath, changed)).toContain('import-x/no-restricted-paths');
  }, 60_000);

  // Inside a feature too, at any depth: the wallet asks the offers folder's service, not its table.
  it("refuses, inside a feature, a sibling folder's repository or entity, type-only too", async () => {
    const filePath = 'src/oid4vci/wallet/token-endpoint.service.ts';
    for (const [module, line] of [
      ['../offers/offer.repository.js', 'import { OfferRepository } from'],
      ['../offers/offer.entity.js', 'import { type OfferEntity } from'],
      ['../../oid4vp/requests/presentation-request.repository.js', 'import * as other from'],
    ]) {
      const changed = `${line} '${module}';\nexport const reached = 1;\n${readFileSync(filePath, 'utf8')}`;
      expect([module, await ruleIdsFor(filePath, changed)]).toEqual([
        module,
        expect.arrayContaining([
          module.startsWith('../../') ? 'import-x/no-restricted-paths' : 'house/own-tables',
        ]),
      ]);
    }
    // What the rule allows: the folder's own files and descendants, and the feature's module.
    for (const allowed of [
      'src/oid4vci/offers/offer-grants.service.ts',
      'src/oid4vci/oid4vci.module.ts',
    ])
      expect([allowed, await boundaryFindings(allowed, readFileSync(allowed, 'utf8'))]).toEqual([
        allowed,
        [],
      ]);
  }, 60_000);

  // SQL too: another folder's part of a statement is a function or view its owner publishes.
  it("refuses SQL naming another folder's table, for every table, and passes the owners' own", async () => {
    const tables = readdirSync('src', { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.entity.ts'))
      .flatMap((path) =>
        [...readFileSync(`src/${path}`, 'utf8').matchAll(/@Entity\(\{ name: '(\w+)'/g)].map(
          ([, table]) => ({ table, owner: path.slice(0, path.lastIndexOf('/')) }),
        ),
      );
    expect(tables.length).toBeGreaterThan(15);
    const issuing = 'src/credentials/issuing/issued-credential.repository.ts';
    const webhooks = 'src/webhooks/webhook-event.repository.ts';
    for (const { table, owner } of tables) {
      const filePath = owner === 'credentials/issuing' ? webhooks : issuing;
      const changed = `${readFileSync(filePath, 'utf8')}\nexport const sql = \`WITH x AS (SELECT 1)\n  SELECT n FROM x, "${table}" t WHERE t.id = :id\`;\n`;
      expect([table, await boundaryFindings(filePath, changed)]).toEqual([
        table,
        ['house/own-sql'],
      ]);
    }
    // Outside SQL in capitals, a table right after its keyword, in any case; prose is not SQL.
    const lowercase = `${readFileSync(issuing, 'utf8')}\nexport const sql = 'delete from webhook_event';\n`;
    expect(await boundaryFindings(issuing, lowercase)).toEqual(['house/own-sql']);
    const prose = `${readFileSync(issuing, 'utf8')}\nexport const text = 'Not the tenant of this record.';\n`;
    expect(await boundaryFindings(issuing, prose)).toEqual([]);
    // The statements that reach another folder's tables through what it publishes, and folders
    // naming their own tables (status's lists read its entries, the claim joins webhooks' tables).
    for (const allowed of [
      issuing,
      webhooks,
      'src/credentials/status/status-list.repository.ts',
      'src/webhooks/webhook-delivery.statements.ts',
    ])
      expect([allowed, await boundaryFindings(allowed, readFileSync(allowed, 'utf8'))]).toEqual([
        allowed,
        [],
      ]);
  }, 120_000);

  it('refuses an import of an entry point or the composition root from a folder', async () => {
    const filePath = 'src/tenants/tenants.service.ts';
    for (const module of ['../app.module.js', '../entities.js', '../bootstrap/start-service.js']) {
      const changed = `import * as root from '${module}';\nexport const reached = root;\n${readFileSync(filePath, 'utf8')}`;
      expect([module, await ruleIdsFor(filePath, changed)]).toEqual([
        module,
        expect.arrayContaining(['import-x/no-restricted-paths']),
      ]);
    }
  }, 60_000);
  // Unit tests keep the boundaries: a spec is code of its folder that only runs under Jest.
  it("refuses, in a unit test too, another folder's repository and a feature in common/", async () => {
    const specPath = 'src/webhooks/webhooks.service.spec.ts';
    const repository = `import { TenantRepository } from '../tenants/tenant.repository.js';\nexport const reached = TenantRepository;\n${readFileSync(specPath, 'utf8')}`;
    expect(await ruleIdsFor(specPath, repository)).toContain('import-x/no-restricted-paths');
    const commonSpec = 'src/common/logging.spec.ts';
    const feature = `import { TenantsService } from '../tenants/tenants.service.js';\nexport const reached = TenantsService;\n${readFileSync(commonSpec, 'utf8')}`;
    expect(await ruleIdsFor(commonSpec, feature)).toContain('import-x/no-restricted-paths');
  }, 60_000);

  it('lets a unit test import the test helpers and what its folder lists for tests', async () => {
    for (const specPath of [
      'src/secrets/key-vault.spec.ts',
      'src/credentials/sd-jwt/sd-jwt-vc-verifier.spec.ts',
    ]) {
      expect([specPath, await boundaryFindings(specPath, readFileSync(specPath, 'utf8'))]).toEqual([
        specPath,
        [],
      ]);
    }
  }, 60_000);
});
