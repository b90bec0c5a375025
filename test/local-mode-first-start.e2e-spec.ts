import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../src/bootstrap/start-service.js';
import { call, passwordGrant } from './support/test-service.js';

/**
 * Local mode's first start on an empty DATA_DIR makes the demo user's tenant and its two credential
 * configurations, and none of them is made again once deleted. The tests go on, in order, from one
 * first start (one initdb).
 */
describe('local mode, the first start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-local-first-'));
  chmodSync(dataDir, 0o755);
  const env = { NODE_ENV: 'test', PORT: '0', METRICS_PORT: '0', DATA_DIR: dataDir };
  const lines: string[] = [];
  let service: RunningService | undefined;
  const running = () => service!;
  const restart = async () => {
    await service?.close();
    service = undefined;
    service = await startService({ env, logLevel: 'silent' });
  };
  const tokenOf = async (user: 'admin' | 'demo') =>
    `Bearer ${(await passwordGrant(running().url, user, user)).access_token}`;
  const configurations = '/ctrl/api/v1.0/oid4vci/credential-configurations';

  beforeAll(async () => {
    service = await startService({
      env,
      logLevel: 'info',
      logDestination: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(() => service?.close());

  it("creates the demo user's tenant and says so", async () => {
    const did = await call<{ id: string }>(running().url, '/ctrl/api/v1.0/did', {
      headers: { 'x-tenant-id': 'demo', authorization: await tokenOf('demo') },
    });
    expect(did.status).toBe(200);
    expect(did.body.id).toMatch(/^did:key:z6Mk/);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ event: 'local-mode.tenant-created', tenantId: 'demo' }),
    );
  });

  it('gives the demo tenant three credential configurations, ready for an offer; a deleted one is not made again', async () => {
    const headers = { 'x-tenant-id': 'demo', authorization: await tokenOf('demo') };
    const ids = async () => {
      const page = await call<{ content: { id: string; format: string }[] }>(
        running().url,
        configurations,
        { headers, query: { sort: 'id,asc' } },
      );
      expect(page.status).toBe(200);
      return page.body.content.map(({ id, format }) => `${id} ${format}`);
    };
    expect(await ids()).toEqual([
      'DrivingLicence_mdoc mso_mdoc',
      'EmployeeBadge_ldp_vc ldp_vc',
      'EmployeeBadge_sd_jwt dc+sd-jwt',
    ]);
    const offer = await call<{ credentialOfferUri: string }>(
      running().url,
      '/ctrl/api/v1.0/oid4vci/offers',
      {
        method: 'POST',
        headers,
        body: {
          credentialConfigurationId: 'EmployeeBadge_sd_jwt',
          claims: { given_name: 'Erika', employee_id: 'E-1042' },
        },
      },
    );
    expect(offer.status).toBe(201);
    expect(offer.body.credentialOfferUri).toMatch(/^openid-credential-offer:/);

    const deleted = await call(running().url, `${configurations}/EmployeeBadge_ldp_vc/delete`, {
      method: 'POST',
      headers,
    });
    expect(deleted.status).toBe(204);
    await restart();
    expect(await ids()).toEqual(['DrivingLicence_mdoc mso_mdoc', 'EmployeeBadge_sd_jwt dc+sd-jwt']);
  });

  it('does not make the demo tenant again once it is deleted while another tenant exists', async () => {
    const admin = await tokenOf('admin');
    for (const [path, query] of [
      ['/ctrl/api/v1.0/tenants/create', { id: 'other', label: 'Other' }],
      ['/ctrl/api/v1.0/tenants/demo/delete', {}],
    ] as const) {
      const answer = await call(running().url, path, {
        method: 'POST',
        headers: { authorization: admin },
        query,
      });
      expect(answer.status).toBeLessThan(300);
    }
    await restart();
    const gone = await call(running().url, '/ctrl/api/v1.0/tenants/demo', {
      headers: { authorization: admin },
    });
    expect(gone.status).toBe(404);
  });
});
