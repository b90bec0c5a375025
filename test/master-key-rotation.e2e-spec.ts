import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DataSource as TypeOrmDataSource } from 'typeorm';
import { createDataSource, dataSourceOptions, migrations } from '../src/database/data-source.js';
import { offerClaimsPurpose } from '../src/oid4vci/offers/offer-claims.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { rewrap } from '../src/secrets/rewrap.js';
import { labelOf, registeredSealedColumns } from '../src/secrets/sealed-columns.js';
import { startForgingProvider } from './support/login-providers.js';
import { ConfigError } from '../src/config/load-settings.js';
import { alumniCredential, issue, verifyCredential } from './support/credentials-harness.js';
import { createEmptyDatabase, createTestDatabase, queryDatabase } from './support/database.js';
import { startTestService, type TestService } from './support/test-service.js';
import { didKeyPurpose } from '../src/did/did.sealed-columns.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { es256Jws, verifiedByJose } from './support/signing-keys.js';

interface Arrival {
  path: string;
  headers: Record<string, string>;
  body: string;
}

interface LogLine {
  level: string;
  msg?: string;
  event?: string;
  tenantId?: string;
  subscriptionId?: string;
  masterKeyId?: string;
  column?: string;
  count?: number;
}

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const vaultOf = (current: string, previous: string[] = []) =>
  new KeyVault(
    Buffer.from(current, 'base64'),
    previous.map((key) => Buffer.from(key, 'base64')),
  );
const idA = vaultOf(keyA).masterKeyId;
const offerClaims = { given_name: 'Ada', birthdate: '1815-12-10' };
const idB = vaultOf(keyB).masterKeyId;
const tenants = ['t-0', 't-1', 't-2', 't-3', 't-4', 't-5'];

/**
 * Rotating the master key on a live database: the service runs on a new key with the old one as a
 * previous key, the rewrap re-seals everything while credentials are issued, then the old key goes; a
 * box under a key the service lacks stops the start, unless that key is declared lost: then it is a
 * clear 503 for that tenant only, and a boot warning.
 */
describe('Master key rotation', () => {
  let databaseUrl: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-rotation-'));
  let service: TestService | undefined;
  let lines: string[] = [];
  let receiver: Server;
  let origin: string;
  const arrivals: Arrival[] = [];
  const secrets = new Map<string, { id: string; secret: string }>();

  const logged = () => lines.map((line) => JSON.parse(line) as LogLine);
  const running = () => service!;

  async function start(
    current: string,
    previous: string[] = [],
    extra: Record<string, string> = {},
  ): Promise<TestService> {
    await service?.close();
    service = undefined;
    lines = [];
    service = await startTestService({
      env: {
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        AGENT_MASTER_KEY: current,
        ...(previous.length > 0 ? { AGENT_PREVIOUS_MASTER_KEYS: previous.join(',') } : {}),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // t-0's login provider answers its discovery on loopback over http.
        STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '60000',
        ...extra,
      },
      logDestination: { write: (line) => lines.push(line) },
    });
    return service;
  }

  async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined): Promise<T> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Issues and verifies a credential as the tenant; the status code of the issue. */
  async function issues(tenantId: string): Promise<number> {
    const issued = await issue(running(), tenantId, alumniCredential());
    if (issued.status !== 201) return issued.status;
    const verified = await verifyCredential(running(), tenantId, issued.body.verifiableCredential);
    expect(verified.body.verified).toBe(true);
    return issued.status;
  }

  /** A tenant change reaches the tenant's receiver, signed with the secret the subscriber holds. */
  async function delivers(tenantId: string): Promise<void> {
    const before = arrivals.length;
    await running()
      .client()
      .updateTenant(tenantId, { label: `${tenantId} ${Date.now()}` });
    const arrival = await waitFor(() =>
      arrivals.slice(before).find((one) => one.path === `/${tenantId}`),
    );
    const { secret } = secrets.get(tenantId)!;
    expect(() =>
      new Webhook(secret).verify(arrival.body, {
        'webhook-id': arrival.headers['webhook-id'],
        'webhook-timestamp': arrival.headers['webhook-timestamp'],
        'webhook-signature': arrival.headers['webhook-signature'],
      }),
    ).not.toThrow();
  }

  const keyIds = async () =>
    queryDatabase<{ tenant_id: string; master_key_id: string }>(
      databaseUrl,
      'SELECT tenant_id, master_key_id FROM tenant_did ORDER BY tenant_id',
    );
  const signingKeyIds = async () =>
    queryDatabase<{ tenant_id: string; master_key_id: string }>(
      databaseUrl,
      'SELECT tenant_id, master_key_id FROM tenant_signing_key ORDER BY tenant_id',
    );

  /** The tenant's ES256 key signs, verified by jose under its public JWK; its kid. */
  async function signsEs256(tenantId: string): Promise<string> {
    const key = await running().app.get(TenantKeys).es256SigningKey(tenantId);
    const jws = await es256Jws(key, { sub: tenantId });
    expect(await verifiedByJose(jws, key.publicJwk)).toEqual({ sub: tenantId });
    return key.kid;
  }
  const es256Kids = new Map<string, string>();

  /** An offer's link, which its sealed secrets make: the QR code of it draws only if they open. */
  let offerId: string | undefined;
  const offerQrStatus = async () =>
    (
      await running().request(`/ctrl/api/v1.0/oid4vci/offers/${offerId}/qr.svg`, {
        headers: { 'x-tenant-id': 't-0' },
      })
    ).status;

  /** A presentation request's link, made from its sealed reference: its QR code draws only if it opens. */
  let requestId: string | undefined;
  const requestQrStatus = async () =>
    (
      await running().request(`/ctrl/api/v1.0/oid4vp/requests/${requestId}/qr.svg`, {
        headers: { 'x-tenant-id': 't-0' },
      })
    ).status;

  const secretKeyIds = async () =>
    queryDatabase<{ secret: string | null; previous: string | null }>(
      databaseUrl,
      `SELECT secret_master_key_id AS secret, previous_secret_master_key_id AS previous
         FROM webhook_subscription ORDER BY id`,
    );

  /** The built command, as an operator runs it; its output and exit status. */
  function runCli(
    env: Record<string, string>,
    args: string[] = [],
  ): Promise<{ code: number; output: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['dist/src/cli/rewrap-keys.js', ...args],
        {
          env: { PATH: process.env.PATH, NODE_ENV: 'test', DATA_DIR: dataDir, ...env },
          // Generous for a busy machine; a command killed for taking longer counts as failed (-1).
          timeout: 120_000,
        },
        (error, stdout, stderr) =>
          resolve({
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1,
            output: stdout + stderr,
          }),
      );
    });
  }

  beforeAll(async () => {
    receiver = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        arrivals.push({
          path: request.url ?? '',
          headers: request.headers as Record<string, string>,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    databaseUrl = await createTestDatabase();
  });

  afterAll(async () => {
    await service?.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('gives webhook secrets sealed before key ids were recorded the id their DIDs name', async () => {
    const url = await createEmptyDatabase();
    const upTo = async (name: string) => {
      const index = migrations.findIndex((migration) => migration.name === name);
      const partial = new TypeOrmDataSource({
        ...dataSourceOptions(url, 'migrations'),
        migrations: migrations.slice(0, index + 1),
      });
      await partial.initialize();
      await partial.runMigrations();
      await partial.destroy();
    };
    await upTo('Webhooks1795700000000');
    const vault = vaultOf(keyA);
    await queryDatabase(url, `INSERT INTO tenant (id, label) VALUES ('old', 'old')`);
    await queryDatabase(
      url,
      `INSERT INTO tenant_did (did, tenant_id, method, key_type, public_key, private_key_sealed, master_key_id)
       VALUES ('did:key:old', 'old', 'key', 'ed25519', $1, $1, $2)`,
      [Buffer.alloc(32), idA],
    );
    await queryDatabase(
      url,
      `INSERT INTO webhook_subscription (id, tenant_id, url, secret_sealed, previous_secret_sealed)
       VALUES (gen_random_uuid(), 'old', 'https://example.com/a', $1, NULL),
              (gen_random_uuid(), NULL, 'https://example.com/b', $1, $1)`,
      [vault.seal('x', Buffer.from('secret'), 'webhook-secret')],
    );
    await upTo('WebhookSecretKeyIds1795770000000');

    expect(
      await queryDatabase(
        url,
        `SELECT secret_master_key_id AS secret, previous_secret_master_key_id AS previous
           FROM webhook_subscription ORDER BY url`,
      ),
    ).toEqual([
      { secret: idA, previous: null },
      { secret: idA, previous: idA },
    ]);
  });

  // Features register their sealed columns: one the schema has and no feature registered would never rotate.
  it('rotates every sealed column of the schema: each is registered by its feature', async () => {
    const inSchema = await queryDatabase<{ label: string }>(
      databaseUrl,
      `SELECT table_name || '.' || column_name AS label FROM information_schema.columns
        WHERE table_schema = current_schema() AND data_type = 'bytea' AND column_name LIKE '%\\_sealed'`,
    );
    expect(inSchema.map(({ label }) => label).sort()).toEqual([
      'certificate_authority.private_key_sealed',
      'idempotency_key.answer_sealed',
      'oid4vci_authorization.claims_sealed',
      'oid4vci_authorization.login_sealed',
      'oid4vci_login_provider.client_secret_sealed',
      'oid4vci_offer.claims_sealed',
      'oid4vci_offer.secrets_sealed',
      'oid4vp_request.claims_sealed',
      'oid4vp_request.secrets_sealed',
      'tenant_did.private_key_sealed',
      'tenant_signing_key.private_key_sealed',
      'webhook_subscription.previous_secret_sealed',
      'webhook_subscription.secret_sealed',
    ]);
    expect(registeredSealedColumns().map(labelOf).sort()).toEqual(
      inSchema.map(({ label }) => label).sort(),
    );
  });

  it('keeps every DID signing and every webhook delivering with the old key as a previous key', async () => {
    await start(keyA);
    for (const id of tenants) await running().client().createTenant({ id, label: id });
    // t-2's subscription is made with an Idempotency-Key: its kept answer is sealed under A too.
    const keyed = (id: string) => (id === 't-2' ? { idempotencyKey: 'made-under-a' } : {});
    const subscribe = (id: string) =>
      running()
        .client()
        .createWebhook(id, { url: `${origin}/${id}`, events: ['tenant.updated'] }, keyed(id));
    for (const id of ['t-0', 't-1', 't-2']) {
      const created = await subscribe(id);
      secrets.set(id, { id: created.id, secret: created.secret });
    }
    // t-1 has a previous secret as well, sealed under A like its current one.
    const rotated = await running().client().rotateWebhookSecret('t-1', secrets.get('t-1')!.id);
    secrets.set('t-1', { id: secrets.get('t-1')!.id, secret: rotated.secret });
    // t-0 offers a credential: the offer's code and reference, and its claims, are sealed under A.
    await running().client().createCredentialConfiguration('t-0', {
      id: 'Badge',
      format: 'dc+sd-jwt',
      vct: 'https://t-0.example/badge',
    });
    offerId = (
      await running()
        .client()
        .createOffer('t-0', { credentialConfigurationId: 'Badge', claims: offerClaims })
    ).id;
    expect(await offerQrStatus()).toBe(200);
    // t-0 asks a wallet for proof: the request's reference and response key are sealed under A.
    requestId = (
      await running()
        .client()
        .createPresentationRequest('t-0', {
          responseMode: 'direct_post.jwt',
          expiresInSeconds: 3600,
          dcqlQuery: {
            credentials: [
              {
                id: 'badge',
                format: 'dc+sd-jwt',
                meta: { vct_values: ['https://t-0.example/badge'] },
              },
            ],
          },
        })
    ).id;
    expect(await requestQrStatus()).toBe(200);
    // t-0's people log in at a provider of its own: its client secret is sealed under A.
    const provider = await startForgingProvider();
    await running()
      .client()
      .setLoginProvider('t-0', { issuer: provider.issuer, clientId: 't-0', clientSecret: 's' });
    await provider.close();
    expect((await keyIds()).map((row) => row.master_key_id)).toEqual(tenants.map(() => idA));
    expect((await signingKeyIds()).map((row) => row.master_key_id)).toEqual(tenants.map(() => idA));
    expect(await secretKeyIds()).toEqual(
      expect.arrayContaining([
        { secret: idA, previous: null },
        { secret: idA, previous: idA },
      ]),
    );

    await start(keyB, [keyA]);
    // Each tenant's DID key and ES256 key, the five webhook and idempotency boxes, the offer's two,
    // the presentation request's, the development certificate authority's key, the login provider's secret.
    expect(logged()).toContainEqual(
      expect.objectContaining({
        event: 'master-key.previous-in-use',
        count: 2 * tenants.length + 10,
      }),
    );
    expect(await offerQrStatus()).toBe(200);
    expect(await requestQrStatus()).toBe(200);
    expect(await subscribe('t-2')).toMatchObject(secrets.get('t-2')!);
    for (const id of tenants) expect(await issues(id)).toBe(201);
    for (const id of tenants) es256Kids.set(id, await signsEs256(id));
    for (const id of ['t-0', 't-1']) await delivers(id);

    await running().client().createTenant({ id: 't-new', label: 'sealed under B' });
    expect((await keyIds()).find((row) => row.tenant_id === 't-new')?.master_key_id).toBe(idB);
    expect((await signingKeyIds()).find((row) => row.tenant_id === 't-new')?.master_key_id).toBe(
      idB,
    );
    es256Kids.set('t-new', await signsEs256('t-new'));
    expect(await issues('t-new')).toBe(201);
  });

  describe('the rewrap', () => {
    let dataSource: TypeOrmDataSource;
    const vault = vaultOf(keyB, [keyA]);

    beforeAll(async () => {
      dataSource = createDataSource(databaseUrl);
      await dataSource.initialize();
    });
    afterAll(async () => {
      await dataSource.destroy();
    });

    it('loses nothing when it stops after its first batch, and the next run continues', async () => {
      const printed: string[] = [];
      await expect(
        rewrap(dataSource, vault, {
          batchSize: 2,
          print: (line) => printed.push(line),
          afterBatch: () => {
            throw new Error('the process died');
          },
        }),
      ).rejects.toThrow('the process died');

      const ids = (await keyIds()).map((row) => row.master_key_id);
      // The first batch (two rows) committed; the rest waits under A.
      expect(ids.filter((id) => id === idB)).toHaveLength(3);
      expect(ids.filter((id) => id === idA)).toHaveLength(tenants.length - 2);
      expect(printed).toContain('tenant_did.private_key_sealed: 2 re-sealed (2 in all)');
      for (const id of tenants) expect(await issues(id)).toBe(201);
    });

    it('re-seals the rest while credentials are issued, and no request fails', async () => {
      let stop = false;
      const statuses: number[] = [];
      const load = Array.from({ length: 4 }, async (_worker, worker) => {
        for (let round = worker; !stop; round++) {
          statuses.push(await issues(tenants[round % tenants.length]));
        }
      });
      /** Resolves once `count` more issues have answered: requests fall between the batches. */
      const answered = async (count: number) => {
        const target = statuses.length + count;
        while (statuses.length < target) await new Promise((resolve) => setTimeout(resolve, 10));
      };
      await answered(4);
      const printed: string[] = [];
      const result = await rewrap(dataSource, vault, {
        batchSize: 2,
        print: (line) => printed.push(line),
        afterBatch: () => answered(2),
      });
      await answered(4);
      stop = true;
      await Promise.all(load);

      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
      expect(result).toMatchObject({ done: true, left: 0, unknown: [], refused: false });
      expect(result.resealed).toEqual({
        'tenant_did.private_key_sealed': { [idA]: tenants.length - 2 },
        'tenant_signing_key.private_key_sealed': { [idA]: tenants.length },
        'webhook_subscription.secret_sealed': { [idA]: 3 },
        'webhook_subscription.previous_secret_sealed': { [idA]: 1 },
        'idempotency_key.answer_sealed': { [idA]: 1 },
        'oid4vci_offer.secrets_sealed': { [idA]: 1 },
        'oid4vci_offer.claims_sealed': { [idA]: 1 },
        // No authorization code flow ran: no login or code is kept to re-seal.
        'oid4vci_authorization.login_sealed': {},
        'oid4vci_authorization.claims_sealed': {},
        'oid4vp_request.secrets_sealed': { [idA]: 1 },
        // No wallet answered: no disclosed claims are kept to re-seal.
        'oid4vp_request.claims_sealed': {},
        'certificate_authority.private_key_sealed': { [idA]: 1 },
        'oid4vci_login_provider.client_secret_sealed': { [idA]: 1 },
      });
      expect(printed.at(-1)).toBe(
        'No row is sealed under any previous key: AGENT_PREVIOUS_MASTER_KEYS can be emptied.',
      );
      expect(new Set((await keyIds()).map((row) => row.master_key_id))).toEqual(new Set([idB]));
      expect(new Set((await signingKeyIds()).map((row) => row.master_key_id))).toEqual(
        new Set([idB]),
      );
      expect(await secretKeyIds()).toEqual(
        expect.arrayContaining([
          { secret: idB, previous: null },
          { secret: idB, previous: idB },
        ]),
      );
    });

    it('as the built command, finds nothing left to do and prints no key', async () => {
      const { code, output } = await runCli({
        DATABASE_URL: databaseUrl,
        AGENT_MASTER_KEY: keyB,
        AGENT_PREVIOUS_MASTER_KEYS: keyA,
      });

      expect(output).toContain('tenant_did.private_key_sealed: nothing to re-seal');
      // It loads the module tree, so every feature's registration reached it, not only the DID's.
      for (const column of registeredSealedColumns()) {
        expect(output).toContain(`${labelOf(column)}: nothing to re-seal`);
      }
      expect(output).toContain(
        'No row is sealed under any previous key: AGENT_PREVIOUS_MASTER_KEYS can be emptied.',
      );
      expect(code).toBe(0);
      for (const key of [keyA, keyB]) {
        expect(output).not.toContain(key);
        expect(output).not.toContain(Buffer.from(key, 'base64').toString('hex'));
      }
    });
  });

  it('runs on the new key alone once everything is re-sealed', async () => {
    await start(keyB);
    expect(logged().filter((line) => line.event?.startsWith('master-key.'))).toEqual([]);
    for (const id of [...tenants, 't-new']) expect(await issues(id)).toBe(201);
    // The re-sealed ES256 keys sign on the new key alone, and are the keys they were.
    for (const id of [...tenants, 't-new']) expect(await signsEs256(id)).toBe(es256Kids.get(id));
    // The development certificate authority, re-sealed, still signs the tenants' certificates.
    expect(await running().client().issueCertificate('t-0')).toMatchObject({ status: 'active' });
    // The re-sealed offer and presentation request still open: their QR codes draw the links.
    expect(await offerQrStatus()).toBe(200);
    expect(await requestQrStatus()).toBe(200);
    // The offer's claims, re-sealed, open under the new key alone.
    const [offer] = await queryDatabase<{ claims_sealed: Buffer; claims_master_key_id: string }>(
      databaseUrl,
      'SELECT claims_sealed, claims_master_key_id FROM oid4vci_offer WHERE id = $1',
      [offerId],
    );
    expect(offer.claims_master_key_id).toBe(vaultOf(keyB).masterKeyId);
    const opened = vaultOf(keyB).open(offerId!, offer.claims_sealed, offerClaimsPurpose);
    expect(JSON.parse(opened.toString('utf8'))).toEqual(offerClaims);
    for (const id of ['t-0', 't-1', 't-2']) await delivers(id);
  });

  describe('a box under a key the service does not have', () => {
    beforeAll(async () => {
      await service?.close();
      service = undefined;
      // t-2's private key and webhook secret go back under A, as if A had been removed too early.
      const current = vaultOf(keyB);
      const old = vaultOf(keyA);
      const [did] = await queryDatabase<{ private_key_sealed: Buffer }>(
        databaseUrl,
        `SELECT private_key_sealed FROM tenant_did WHERE tenant_id = 't-2'`,
      );
      const seed = current.open('t-2', did.private_key_sealed, didKeyPurpose);
      await queryDatabase(
        databaseUrl,
        `UPDATE tenant_did SET private_key_sealed = $1, master_key_id = $2 WHERE tenant_id = 't-2'`,
        [old.seal('t-2', seed, didKeyPurpose), idA],
      );
      const subscription = secrets.get('t-2')!.id;
      await queryDatabase(
        databaseUrl,
        `UPDATE webhook_subscription SET secret_sealed = $1, secret_master_key_id = $2 WHERE id = $3`,
        [
          old.seal(subscription, Buffer.from(secrets.get('t-2')!.secret), 'webhook-secret'),
          idA,
          subscription,
        ],
      );
    });

    it('stops the start, naming the key id, the values under it and the fix', async () => {
      const refused = await startTestService({
        env: { DATABASE_URL: databaseUrl, DATA_DIR: dataDir, AGENT_MASTER_KEY: keyB },
      }).then(
        async (started) => {
          await started.close();
          return undefined;
        },
        (error: unknown) => error,
      );

      expect(refused).toBeInstanceOf(ConfigError);
      const message = (refused as Error).message;
      expect(message).toMatch(/^AGENT_MASTER_KEY: /);
      expect(message).toContain(
        `master key ${idA} (1 in tenant_did.private_key_sealed, 1 in webhook_subscription.secret_sealed)`,
      );
      expect(message).toContain('AGENT_PREVIOUS_MASTER_KEYS');
      expect(message).toContain('AGENT_LOST_MASTER_KEY_IDS');
      expect(message).not.toContain(keyA);
      expect(message).not.toContain(keyB);
    });

    it('starts when that key is declared lost, warning per key id at boot', async () => {
      await start(keyB, [], { AGENT_LOST_MASTER_KEY_IDS: idA });
      const warnings = logged().filter((line) => line.event === 'master-key.unknown');
      expect(warnings).toEqual([
        expect.objectContaining({
          level: 'warn',
          masterKeyId: idA,
          column: 'tenant_did.private_key_sealed',
          count: 1,
        }),
        expect.objectContaining({
          level: 'warn',
          masterKeyId: idA,
          column: 'webhook_subscription.secret_sealed',
          count: 1,
        }),
      ]);
      expect(warnings[0].msg).toContain('AGENT_LOST_MASTER_KEY_IDS');
    });

    it("answers a clear 503 for that tenant's signatures, logs the tenant and the key id, and serves the others", async () => {
      const records = async () =>
        await queryDatabase<{ n: string }>(
          databaseUrl,
          `SELECT count(*) AS n FROM issued_credential WHERE tenant_id = 't-2'`,
        );
      const before = await records();
      const refused = await issue(running(), 't-2', alumniCredential());
      const withoutEntry = await issue(running(), 't-2', alumniCredential(), {
        credentialStatus: [],
      });
      expect(withoutEntry.status).toBe(503);
      // The record written in the signature's transaction is rolled back with it.
      expect(await records()).toEqual(before);

      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect((refused.body as unknown as { detail: string }).detail).toContain('master key');
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.text).not.toContain(idA);
      expect(logged()).toContainEqual(
        expect.objectContaining({
          level: 'error',
          event: 'master-key.unknown',
          tenantId: 't-2',
          masterKeyId: idA,
        }),
      );
      expect(lines.join('')).not.toContain('Unhandled error');
      // The DID itself is public and needs no private key.
      const did = await running().request('/ctrl/api/v1.0/did', {
        headers: { 'x-tenant-id': 't-2' },
      });
      expect(did.status).toBe(200);
      for (const id of ['t-0', 't-1', 't-3']) expect(await issues(id)).toBe(201);
    });

    it('records a failed webhook attempt for that subscription instead of crashing, and delivers the others', async () => {
      const subscription = secrets.get('t-2')!.id;
      const before = arrivals.length;
      await running().client().updateTenant('t-2', { label: 'changed' });
      const [attempt] = await waitFor(async () => {
        const rows = await queryDatabase<{ error: string; status_code: number | null }>(
          databaseUrl,
          `SELECT a.error, a.status_code FROM webhook_attempt a
             JOIN webhook_delivery d ON d.id = a.delivery_id
            WHERE d.subscription_id = $1 AND a.status_code IS NULL`,
          [subscription],
        );
        return rows.length > 0 ? rows : undefined;
      });

      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toContain('master key');
      expect(attempt.error).not.toContain(idA);
      expect(logged()).toContainEqual(
        expect.objectContaining({
          event: 'master-key.unknown',
          subscriptionId: subscription,
          masterKeyId: idA,
        }),
      );
      expect(arrivals.slice(before).filter((one) => one.path === '/t-2')).toEqual([]);
      await delivers('t-0');
    });

    it('makes the command refuse, naming the key id, unless told to skip those rows', async () => {
      const env = { DATABASE_URL: databaseUrl, AGENT_MASTER_KEY: keyB };

      const refused = await runCli(env);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(
        `tenant_did.private_key_sealed: 1 sealed under master key ${idA}, which is not configured`,
      );
      expect(refused.output).toContain('Refusing to re-seal');

      const skipped = await runCli(env, ['--skip-unknown', '--batch-size', '2']);
      expect(skipped.code).toBe(1);
      expect(skipped.output).toContain(`1 still under master key ${idA}, which is not configured`);
      expect(skipped.output).not.toContain('can be emptied');

      // With the key back as a previous key, the last row is re-sealed and the key can go.
      const fixed = await runCli({ ...env, AGENT_PREVIOUS_MASTER_KEYS: keyA });
      expect(fixed.code).toBe(0);
      expect(fixed.output).toContain(`tenant_did.private_key_sealed: 1 from ${idA}`);
      expect(new Set((await keyIds()).map((row) => row.master_key_id))).toEqual(new Set([idB]));
    });
  });
});
