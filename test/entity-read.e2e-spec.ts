import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { createDataSource } from '../src/database/data-source.js';
import { EntityRead } from '../src/database/entity-read.js';
import { entities } from '../src/entities.js';
import { CredentialConfigurationEntity } from '../src/oid4vci/credential-configuration.entity.js';
import { PresentationRequestEntity } from '../src/oid4vp/requests/presentation-request.entity.js';
import { PresentationRequestRepository } from '../src/oid4vp/requests/presentation-request.repository.js';
import { TrustAnchorEntity } from '../src/trust-anchors/trust-anchor.entity.js';
import { TrustedIssuerEntity } from '../src/trusted-issuers/trusted-issuer.entity.js';
import { createTestDatabase, queryDatabase } from './support/database.js';

/**
 * The hot paths' reads written once from TypeORM's metadata (src/database/entity-read.ts) answer what
 * TypeORM's own find answers, column for column, nulls, JSON, bytes and times included.
 */
describe('EntityRead', () => {
  const db = {} as { dataSource: DataSource };
  let url: string;
  const plain = <T extends object>(entity: T | null) => (entity === null ? null : { ...entity });

  beforeAll(async () => {
    url = await createTestDatabase();
    await queryDatabase(url, "INSERT INTO tenant (id, label) VALUES ('reads', 'Reads')");
    db.dataSource = createDataSource(url, 'app', entities);
    await db.dataSource.initialize();
  });
  afterAll(() => db.dataSource?.destroy());

  it('reads a presentation request as findOneBy does, filled and with nulls', async () => {
    const repository = db.dataSource.getRepository(PresentationRequestEntity);
    const rows = [true, false].map((filled) => ({
      id: randomUUID(),
      tenantId: 'reads',
      status: filled ? ('verified' as const) : ('pending' as const),
      dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt' }] },
      responseMode: 'direct_post' as const,
      requestUriMethod: 'get' as const,
      trustedIssuers: filled ? ['https://issuer.example'] : null,
      clientId: 'x509_hash:abc',
      nonce: 'n',
      state: 's',
      referenceHash: Buffer.from(randomUUID()),
      secretsSealed: Buffer.from([1, 2, 3]),
      masterKeyId: filled ? 'mk' : null,
      presented: filled ? { pid: [] } : null,
      claimsErasedAt: filled ? new Date('2026-01-02T03:04:05.678Z') : null,
      refusedAnswers: filled ? 2 : 0,
      expiresAt: new Date('2030-01-01T00:00:00Z'),
    }));
    await repository.insert(rows);
    const read = new EntityRead(db.dataSource, PresentationRequestEntity, [
      'tenantId',
      'referenceHash',
    ]);
    for (const row of rows) {
      const key = { tenantId: 'reads', referenceHash: row.referenceHash };
      const found = await read.one(key);
      expect(found).not.toBeNull();
      expect(plain(found)).toEqual(plain(await repository.findOneBy(key)));
    }
    expect(await read.one({ tenantId: 'other', referenceHash: rows[0].referenceHash })).toBeNull();
  });

  it('reads a request with what its tenant trusts now, in the same statement, and no other tenant’s', async () => {
    const requests = new PresentationRequestRepository(db.dataSource);
    const referenceHash = Buffer.from(randomUUID());
    await queryDatabase(
      url,
      "INSERT INTO tenant (id, label) VALUES ('trusting', 'Trusting'), ('neighbour', 'Neighbour')",
    );
    const request = {
      id: randomUUID(),
      tenantId: 'trusting',
      status: 'pending' as const,
      dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt' }] },
      responseMode: 'direct_post' as const,
      requestUriMethod: 'get' as const,
      trustedIssuers: ['https://own-list.example'],
      clientId: 'x509_hash:abc',
      nonce: 'n',
      state: 's',
      referenceHash,
      secretsSealed: Buffer.from([1]),
      expiresAt: new Date('2030-01-01T00:00:00Z'),
    };
    await db.dataSource.getRepository(PresentationRequestEntity).insert(request);
    const found = async () => {
      const read = await requests.findByReferenceWithTrust('trusting', referenceHash);
      expect(plain(read?.request ?? null)).toEqual(
        plain(await requests.findByReference('trusting', referenceHash)),
      );
      return read?.trust;
    };
    expect(await found()).toEqual({ issuers: [], anchors: [] });

    const anchor = (tenantId: string, fingerprint: string) => ({
      id: randomUUID(),
      tenantId,
      label: null,
      fingerprint: fingerprint.repeat(64),
      certificate: `PEM ${fingerprint}`,
      subject: 'CN=Root',
      issuer: 'CN=Root',
      notBefore: new Date('2026-01-01T00:00:00Z'),
      notAfter: new Date('2036-01-01T00:00:00Z'),
      subjectKeyIdentifier: null,
    });
    await db.dataSource
      .getRepository(TrustAnchorEntity)
      .insert([anchor('trusting', 'b'), anchor('trusting', 'a'), anchor('neighbour', 'c')]);
    await db.dataSource.getRepository(TrustedIssuerEntity).insert([
      { id: randomUUID(), tenantId: 'trusting', issuer: 'https://issuer.example' },
      { id: randomUUID(), tenantId: 'neighbour', issuer: 'https://elsewhere.example' },
    ]);
    // Read again at once: a change is seen by the next answer, on every instance.
    expect(await found()).toEqual({
      issuers: ['https://issuer.example'],
      anchors: ['PEM a', 'PEM b'],
    });
    expect(await requests.findByReferenceWithTrust('neighbour', referenceHash)).toBeNull();

    // A further column may not stand in for one of the entity's own, quoted or not.
    for (const also of [`'verified' AS "status"`, `'verified' as Status`]) {
      const shadowing = new EntityRead(
        db.dataSource,
        PresentationRequestEntity,
        ['tenantId', 'referenceHash'],
        undefined,
        also,
      );
      await expect(shadowing.one({ tenantId: 'trusting', referenceHash })).rejects.toThrow(
        'PresentationRequestEntity.status is named again by a further column',
      );
    }
  });

  it('reads a credential configuration and a selection of columns', async () => {
    const configurations = db.dataSource.getRepository(CredentialConfigurationEntity);
    await configurations.insert({
      tenantId: 'reads',
      id: 'Diploma',
      format: 'dc+sd-jwt',
      vct: 'https://vct.example/diploma',
      credentialDefinition: null,
      claims: [{ path: ['given_name'], mandatory: true }],
      display: [{ name: 'Diploma', locale: 'en' }],
      selectivelyDisclosable: [['given_name']],
      expiresInSeconds: 3600,
      revocable: true,
      signingAlgorithm: 'ES256',
      cryptosuite: null,
    });
    const key = { tenantId: 'reads', id: 'Diploma' };
    const byId = new EntityRead(db.dataSource, CredentialConfigurationEntity, ['tenantId', 'id']);
    expect(plain(await byId.one(key))).toEqual(plain(await configurations.findOneBy(key)));

    const anchors = new EntityRead(
      db.dataSource,
      TrustAnchorEntity,
      ['tenantId'],
      ['fingerprint', 'certificate'],
    );
    expect(await anchors.all({ tenantId: 'reads' })).toEqual([]);
  });
});
