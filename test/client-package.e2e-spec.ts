import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * The typed client as another service gets it: `npm pack` of packages/client (its prepack builds it),
 * the tarball installed into an empty project, and calls to the live service from plain ESM and from
 * TypeScript compiled with NodeNext resolution (api.md, Typed client).
 */

const root = join(import.meta.dirname, '..');
const packageDir = join(root, 'packages', 'client');
const run = promisify(execFile);

/** npm as a user runs it: without the variables `npm test` sets for the repository's own package. */
function npmEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^npm_(package_|lifecycle_|config_workspace|config_include_workspace)/.test(name),
    ),
  );
}

const esmProgram = `
import { AgentApiError, AgentClient } from '@agent-service/client';

const agent = new AgentClient({
  baseUrl: process.env.AGENT_URL,
  credentials: { clientId: 'agent-service', clientSecret: 'change-me' },
});
const tenant = await agent.createTenant({ id: 'packaged-esm', label: 'From the tarball' });
const did = await agent.getDid(tenant.id);
const missing = await agent.getTenant('nobody').catch((error) => error);
console.log(JSON.stringify({
  tenant,
  did,
  missing: { isApiError: missing instanceof AgentApiError, status: missing.status, code: missing.code },
  prototype: Object.getOwnPropertyNames(AgentClient.prototype),
}));
`;

const typeScriptProgram = `
import { AgentClient, type Did, type Tenant } from '@agent-service/client';

const agent = new AgentClient({
  baseUrl: process.env.AGENT_URL ?? '',
  credentials: { clientId: 'agent-service', clientSecret: 'change-me' },
});
const tenant: Tenant = await agent.createTenant({ id: 'packaged-ts', label: 'From TypeScript' });
// @ts-expect-error a tenant needs a label: the declarations are the API's, not \`any\`
export const refused = () => agent.createTenant({ id: 'no-label' });
const did: Did = await agent.getDid(tenant.id);
console.log(JSON.stringify({ tenant: tenant.id, did: did.id }));
`;

describe('the typed client as an npm package', () => {
  let service: TestService;
  const work = mkdtempSync(join(tmpdir(), 'agent-client-package-'));
  const project = join(work, 'consumer');
  let packed: string[];

  beforeAll(async () => {
    service = await startTestService();
    // Packed from a tree without a build: the tarball's dist/ can only come from prepack.
    rmSync(join(packageDir, 'dist'), { recursive: true, force: true });
    await run('npm', ['pack', '--pack-destination', work], {
      cwd: packageDir,
      env: npmEnvironment(),
    });
    const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack made no tarball');
    packed = (await run('tar', ['-tzf', join(work, tarball)])).stdout.trim().split('\n').sort();

    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball)],
      { cwd: project, env: npmEnvironment() },
    );
  }, 240_000);

  afterAll(async () => {
    await service?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('packs the built JavaScript and its declarations, not the sources or the tests', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/agent-client.js',
        'package/dist/generated/schema.d.ts',
      ]),
    );
    expect(packed.filter((file) => !file.startsWith('package/dist/'))).toEqual([
      'package/README.md',
      'package/package.json',
    ]);
    expect(packed.filter((file) => /\.spec\.|\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual(
      [],
    );
  });

  it('installs only itself and openapi-fetch, none of the server’s dependencies', () => {
    const installed = readdirSync(join(project, 'node_modules'))
      .filter((name) => !name.startsWith('.'))
      .sort();
    expect(installed).toEqual(['@agent-service', 'openapi-fetch', 'openapi-typescript-helpers']);
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules/@agent-service/client/package.json'), 'utf8'),
    ) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
  });

  it('calls the live service from plain ESM, and shows only API methods', async () => {
    writeFileSync(join(project, 'call.mjs'), esmProgram);
    const { stdout } = await run(process.execPath, ['call.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH, AGENT_URL: service.url },
    });
    const result = JSON.parse(stdout) as {
      tenant: { id: string; did: string };
      did: { id: string };
      missing: unknown;
      prototype: string[];
    };
    expect(result.tenant).toMatchObject({
      id: 'packaged-esm',
      did: expect.stringMatching(/^did:key:z6Mk/),
    });
    expect(result.did.id).toBe(result.tenant.did);
    expect(result.missing).toEqual({ isApiError: true, status: 404, code: 'TENANT_NOT_FOUND' });
    expect(result.prototype).toContain('createTenant');
    expect(result.prototype).not.toContain('result');
    expect(
      result.prototype.filter((name) => name !== 'constructor' && !/^[a-z]+[A-Z]\w*$/.test(name)),
    ).toEqual([]);
  });

  it('type-checks and runs as TypeScript with NodeNext resolution', async () => {
    writeFileSync(join(project, 'call.ts'), typeScriptProgram);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          outDir: 'out',
          // As most projects have it; the declarations themselves come from a checked build.
          skipLibCheck: true,
          // As a Node.js project has them (the repository's copy, not installed again).
          typeRoots: [join(root, 'node_modules/@types')],
          types: ['node'],
        },
        files: ['call.ts'],
      }),
    );
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
      cwd: project,
    }).catch((error: Error & { stdout?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? error.message}`);
    });
    const { stdout } = await run(process.execPath, ['out/call.js'], {
      cwd: project,
      env: { PATH: process.env.PATH, AGENT_URL: service.url },
    });
    const result = JSON.parse(stdout) as { tenant: string; did: string };
    expect(result.tenant).toBe('packaged-ts');
    expect(result.did).toMatch(/^did:key:z6Mk/);
  });
});
