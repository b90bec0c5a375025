import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../config/load-settings.js';
import { localModeBanner, publicOriginMismatch, startRecord } from './start-banner.js';

const dataDir = mkdtempSync(join(tmpdir(), 'agent-banner-'));
const settingsOf = (env: Record<string, string>) => loadSettings({ DATA_DIR: dataDir, ...env });

describe(publicOriginMismatch.name, () => {
  it('says nothing when the origin follows PORT', () => {
    expect(publicOriginMismatch(settingsOf({ PORT: '21080' }), 21080)).toBeUndefined();
  });

  it.each([
    ['http://localhost:8080', '8080'],
    ['http://127.0.0.1:9000', '9000'],
    ['http://[::1]:8080', '8080'],
    ['http://localhost', '80'],
  ])(
    'names both in local mode when PUBLIC_BASE_URL %s names this machine on another port',
    (origin, publicPort) => {
      const warning = publicOriginMismatch(
        settingsOf({ PORT: '21080', PUBLIC_BASE_URL: origin }),
        21080,
      );
      expect(warning).toContain(`PUBLIC_BASE_URL is ${origin}`);
      expect(warning).toContain('port 21080 (PORT=21080)');
      expect(warning).toContain(`name port ${publicPort}`);
    },
  );

  it('says nothing of an origin on another host (a tunnel or proxy) nor outside local mode', () => {
    const elsewhere = { PORT: '21080', PUBLIC_BASE_URL: 'https://agent.example.com' };
    expect(publicOriginMismatch(settingsOf(elsewhere), 21080)).toBeUndefined();
    const external = {
      PORT: '21080',
      PUBLIC_BASE_URL: 'http://localhost:8080',
      DATABASE_URL: 'postgres://agent@db/agent',
    };
    expect(publicOriginMismatch(settingsOf(external), 21080)).toBeUndefined();
  });
});

describe(localModeBanner.name, () => {
  const started = (env: Record<string, string>) => ({
    settings: settingsOf({ PORT: '21080', ...env }),
    port: 21080,
    metricsPort: 9464,
    tracing: false,
  });

  it('gives the links on the port the service listens on, the users and where the data lives', () => {
    const banner = localModeBanner(started({}));
    expect(banner).toContain('API explorer  http://localhost:21080/ctrl/swagger-ui/');
    expect(banner).toContain('http://localhost:21080/auth/realms/agent-cloud');
    expect(banner).toContain('admin / admin (agent-admin');
    expect(banner).toContain('demo / demo (agent-user, tenant "demo")');
    expect(banner).toContain(`Data          ${dataDir}`);
    expect(banner).toContain('port 9464, /metrics');
    expect(banner).not.toContain('8080');
  });

  it('never claims the default passwords when the variables replace them', () => {
    const banner = localModeBanner(
      started({ AGENT_ADMIN_PASSWORD: 'a-secret', AGENT_DEMO_PASSWORD: 'another' }),
    );
    expect(banner).toContain('admin / (AGENT_ADMIN_PASSWORD)');
    expect(banner).toContain('demo / (AGENT_DEMO_PASSWORD)');
    expect(banner).not.toMatch(/a-secret|another/);
  });
});

describe(startRecord.name, () => {
  it('is one record with the links as fields', () => {
    const record = startRecord({
      settings: settingsOf({ PORT: '21080' }),
      port: 21080,
      metricsPort: undefined,
      tracing: false,
    });
    expect(record).toMatchObject({
      event: 'service.started',
      port: 21080,
      apiExplorer: 'http://localhost:21080/ctrl/swagger-ui/',
      issuer: 'http://localhost:21080/auth/realms/agent-cloud',
    });
  });
});
