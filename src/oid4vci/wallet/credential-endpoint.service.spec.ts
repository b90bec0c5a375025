import { randomBytes } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { OAuthError } from '../../common/oauth-error.js';
import {
  type HolderIssuanceService,
  type HolderIssueRequest,
  type HolderKey,
} from '../../credentials/issuing/holder-issuance.service.js';
import { type StoredSigningKey } from '../../did/tenant-keys.service.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { fakeOutbox, fakeTransactions, testClock } from '../../../test/support/service-fakes.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { sealClaims } from '../offers/offer-claims.js';
import {
  type IssuableOffer,
  type OfferGrantsService,
  type TokenOffer,
} from '../offers/offer-grants.service.js';
import { secretHash } from '../offers/offer-secrets.js';
import {
  type CredentialRequestRepository,
  type CredentialRequestTake,
} from './credential-request.repository.js';
import { type SpentProofs, type ProofUse } from '../../wallet-providers/spent-proofs.js';
import { type KeyAttestationsService } from '../../wallet-providers/key-attestations.service.js';
import { KeyProofsService } from './key-proofs.service.js';
import { type NotificationsRepository } from './notifications.repository.js';
import {
  CredentialEndpointService,
  type Authorized,
  type ProtectedCall,
} from './credential-endpoint.service.js';

const issuer = 'https://agent.example/ctrl/oid4vci/acme';
const token = 'the-access-token';
const start = Date.UTC(2026, 0, 1);
const configuration = {
  format: 'dc+sd-jwt',
  vct: 'https://acme.example/badge',
  credentialDefinition: null,
  claims: [],
  display: [],
  selectivelyDisclosable: ['given_name'],
  expiresInSeconds: null,
  revocable: true,
  signingAlgorithm: 'ES256',
  cryptosuite: null,
} as unknown as ConfigurationDefinition;

/**
 * The credential and notification endpoints with every dependency faked: the offers folder's service
 * over one offer row, the nonces, the credentials feature's issuance, the outbox, the clock.
 */
function newTestService() {
  const time = testClock(start);
  const transactions = fakeTransactions();
  const outbox = fakeOutbox();
  const vault = new KeyVault(randomBytes(32));
  const offer: TokenOffer = {
    id: 'offer-1',
    tenantId: 'acme',
    status: 'accepted',
    configurationId: 'Badge',
    format: 'dc+sd-jwt',
    signingAlgorithm: 'ES256',
    expiresAt: new Date(start + 600_000),
    accessTokenExpiresAt: new Date(start + 300_000),
    dpopJkt: null,
    notificationId: null,
    credentialIds: [],
  };
  const fakes = {
    time,
    transactions,
    outbox,
    offer,
    /** What taking the offer answers: undefined once another request took it. */
    issuable: {
      configuration,
      claimsSealed: sealClaims(vault, offer.id, { given_name: 'Erika' }),
      claimsMasterKeyId: vault.masterKeyId,
      claimsUnsealed: null,
    } as IssuableOffer | undefined,
    /** The ES256 key row the statement reads with the offer, when asked for one. */
    key: { kid: 'es256-kid' } as unknown as StoredSigningKey,
    taken: [] as CredentialRequestTake[],
    spendable: new Set<string>(['n-1']),
    spent: [] as string[],
    issued: [] as {
      request: HolderIssueRequest;
      holders: HolderKey[];
      chain: readonly string[] | undefined;
      storedKey: StoredSigningKey | undefined;
    }[],
    /** The tenants whose chain was read, and what the transactions log held at each read. */
    chainReads: [] as { tenantId: string; log: string[]; read: unknown }[],
    /** The tenant's mdoc Document Signer chain; undefined without an authority. */
    documentSigner: ['ds-der'] as string[] | undefined,
    /** The tenants whose Document Signer chain was read, and what the transactions log held then. */
    signerReads: [] as { tenantId: string; log: string[] }[],
    /** The tenant's active certificate as the token's read finds it with the offer. */
    certificate: {
      x5c: ['leaf-der'],
      notBefore: new Date(start),
      notAfter: new Date(start + 86_400_000),
    },
    lookups: [] as Buffer[],
    /** The configuration the token's read finds with the offer. */
    configuration,
  };
  const offers = {
    findByAccessToken: (hash: Buffer) => {
      fakes.lookups.push(hash);
      return Promise.resolve(hash.equals(secretHash(token)) ? fakes.offer : undefined);
    },
    findForCredentialRequest: (hash: Buffer) => {
      fakes.lookups.push(hash);
      return Promise.resolve(
        hash.equals(secretHash(token))
          ? { ...fakes.offer, configuration: fakes.configuration, certificate: fakes.certificate }
          : undefined,
      );
    },
    notifyStatement: (id: string, notificationId: string, event: string) => ({
      sql: 'notify',
      parameters: [id, notificationId, event],
    }),
  } as unknown as OfferGrantsService;
  // One statement: without the nonce nothing taken; the nonce spent only with the offer taken.
  const requests = {
    take: (take: CredentialRequestTake) => {
      fakes.taken.push(take);
      const key = take.keyAlgorithm === 'ES256' ? fakes.key : undefined;
      const nonce = [...fakes.spendable].find((n) => secretHash(n).equals(take.nonceHash));
      if (nonce === undefined || fakes.issuable === undefined) {
        return Promise.resolve({
          nonceFound: nonce !== undefined,
          offer: undefined,
          key,
          taken: [],
        });
      }
      fakes.spendable.delete(nonce);
      fakes.spent.push(nonce);
      const taken = take.records.map(() => null);
      return Promise.resolve({ nonceFound: true, offer: fakes.issuable, key, taken });
    },
  } as unknown as CredentialRequestRepository;
  const holderIssuance = {
    documentSignerChain: (tenantId: string) => {
      fakes.signerReads.push({ tenantId, log: [...transactions.log] });
      return Promise.resolve(fakes.documentSigner);
    },
    issuerChain: (tenantId: string, read: unknown) => {
      fakes.chainReads.push({ tenantId, log: [...transactions.log], read });
      return Promise.resolve(['leaf-der', 'intermediate-der']);
    },
    prepare: (_request: HolderIssueRequest, holders: HolderKey[]) =>
      holders.map((holder) => ({ holder, issue: {} })),
    inStatement: (prepared: unknown[], statement: (records: unknown[]) => Promise<unknown[]>) =>
      statement(prepared.map(() => ({}))),
    sign: (
      request: HolderIssueRequest,
      prepared: { holder: HolderKey }[],
      _taken: unknown[],
      chain?: readonly string[],
      storedKey?: StoredSigningKey,
    ) => {
      const holders = prepared.map(({ holder }) => holder);
      fakes.issued.push({ request, holders, chain, storedKey });
      return Promise.resolve(
        holders.map((holder) => ({ credentialId: holder.credentialId, credential: 'sd-jwt~' })),
      );
    },
  } as unknown as HolderIssuanceService;
  const spentIds = new Set<string>();
  const spentProofs = {
    spend: ({ kind, keyThumbprint, jti }: ProofUse) => {
      const id = `${kind}:${keyThumbprint}:${jti}`;
      const fresh = !spentIds.has(id);
      spentIds.add(id);
      return Promise.resolve(fresh);
    },
  } as unknown as SpentProofs;
  const keyProofs = new KeyProofsService({} as KeyAttestationsService, time.clock);
  const recorded = new Set<string>();
  const notifications: Pick<NotificationsRepository, 'record'> = {
    record: (_manager: EntityManager, offerId: string, event: string) => {
      const fresh = !recorded.has(`${offerId}:${event}`);
      recorded.add(`${offerId}:${event}`);
      return Promise.resolve(fresh);
    },
  };
  const service = new CredentialEndpointService(
    transactions.dataSource,
    offers,
    requests,
    holderIssuance,
    outbox.outbox,
    time.clock,
    vault,
    spentProofs,
    keyProofs,
    notifications,
  );
  return { service, ...fakes, fakes };
}

const call: ProtectedCall = {
  tenantId: 'acme',
  issuer,
  authorization: `Bearer ${token}`,
  dpop: undefined,
  url: `${issuer}/credential`,
};

/** A holder's key proof (OpenID4VCI 1.0 Appendix F.1) with this nonce, made now. */
async function keyProof(nonce: string, alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return new SignJWT({ aud: issuer, iat: Math.floor(start / 1000), nonce })
    .setProtectedHeader({
      alg,
      typ: 'openid4vci-proof+jwt',
      jwk: await exportJWK(publicKey),
    })
    .sign(privateKey);
}

const oauthError = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error instanceof OAuthError ? error.error : String(error)),
  );

describe(CredentialEndpointService.name, () => {
  describe('authorize', () => {
    it('finds the offer by the token’s hash and answers it for a Bearer token', async () => {
      const { service, lookups } = newTestService();
      const authorized = await service.authorize(call, 'accepted');
      expect(authorized).toMatchObject({ scheme: 'Bearer', tokenHash: secretHash(token) });
      expect(authorized.offer.id).toBe('offer-1');
      expect(lookups).toEqual([secretHash(token)]);
    });

    it('refuses another tenant’s token, a token past its time, and one for another step', async () => {
      const { service, time, offer } = newTestService();
      expect(await oauthError(service.authorize({ ...call, tenantId: 'other' }, 'accepted'))).toBe(
        'invalid_token',
      );
      expect(await oauthError(service.authorize(call, 'issued'))).toBe('invalid_token');
      time.advance(offer.accessTokenExpiresAt.getTime() - start);
      expect(await oauthError(service.authorize(call, 'accepted'))).toBe('invalid_token');
    });

    it('refuses an accepted offer past its own time before the expiry job marks it', async () => {
      const { service, fakes } = newTestService();
      fakes.offer = { ...fakes.offer, expiresAt: new Date(start) };
      expect(await oauthError(service.authorize(call, 'accepted'))).toBe('invalid_token');
      // Once issued, the notification may still come after the offer's time.
      fakes.offer = { ...fakes.offer, status: 'issued' };
      await expect(service.authorize(call, 'issued')).resolves.toMatchObject({ scheme: 'Bearer' });
    });

    it('refuses a Bearer token sent as DPoP, and a DPoP-bound token sent as Bearer', async () => {
      const { service, fakes } = newTestService();
      const asDpop = { ...call, authorization: `DPoP ${token}`, dpop: 'proof' };
      expect(await oauthError(service.authorize(asDpop, 'accepted'))).toBe('invalid_token');
      fakes.offer = { ...fakes.offer, dpopJkt: 'thumbprint' };
      expect(await oauthError(service.authorize(call, 'accepted'))).toBe('invalid_token');
      expect(await oauthError(service.authorize({ ...asDpop, dpop: undefined }, 'accepted'))).toBe(
        'invalid_dpop_proof',
      );
    });

    it('refuses a missing or overlong token without a lookup', async () => {
      const { service, lookups } = newTestService();
      expect(
        await oauthError(service.authorize({ ...call, authorization: undefined }, 'accepted')),
      ).toBe('invalid_token');
      const long = { ...call, authorization: `Bearer ${'a'.repeat(257)}` };
      expect(await oauthError(service.authorize(long, 'accepted'))).toBe('invalid_token');
      expect(lookups).toEqual([]);
    });
  });

  describe('credential', () => {
    const request = async (service: CredentialEndpointService, body: Record<string, unknown>) =>
      service.credential(call, await service.authorize(call, 'accepted'), body);

    it('takes the offer, spends the nonce, records and reads the key in one statement, then signs one credential per key', async () => {
      const { service, transactions, taken, issued, spent, key } = newTestService();
      const proofs = [await keyProof('n-1'), await keyProof('n-1')];
      const answer = await request(service, {
        credential_configuration_id: 'Badge',
        proofs: { jwt: proofs },
      });
      // No transaction around the statement: it is atomic on its own.
      expect(transactions.log).toEqual([]);
      expect(taken).toHaveLength(1);
      expect(taken[0].records).toHaveLength(2);
      expect(taken[0]).toMatchObject({
        tenantId: 'acme',
        offerId: 'offer-1',
        tokenHash: secretHash(token),
        now: new Date(start),
        keyAlgorithm: 'ES256',
      });
      expect(spent).toEqual(['n-1']);
      // The key the statement read is the one signing: not read again in the issue.
      expect(issued[0].storedKey).toBe(key);
      // The ids marked on the offer are those of the credentials issued, and the notification id too.
      expect(issued).toHaveLength(1);
      expect(issued[0].holders.map((holder) => holder.credentialId)).toEqual(
        taken[0].credentialIds,
      );
      expect(issued[0].request).toMatchObject({
        tenantId: 'acme',
        offerId: 'offer-1',
        format: 'dc+sd-jwt',
        claims: { given_name: 'Erika' },
      });
      expect(answer).toEqual({
        credentials: [{ credential: 'sd-jwt~' }, { credential: 'sd-jwt~' }],
        notification_id: taken[0].notificationId,
      });
    });

    it('reads the ES256 chain before the statement and gives it to the signing', async () => {
      const { service, transactions, issued, chainReads, certificate } = newTestService();
      await request(service, {
        credential_configuration_id: 'Badge',
        proofs: { jwt: [await keyProof('n-1')] },
      });
      // Read with no transaction open: a first certificate is made on a connection of its own.
      // With the certificate the token's read found, which it need not read again.
      expect(chainReads).toEqual([{ tenantId: 'acme', log: [], read: certificate }]);
      expect(transactions.log).toEqual([]);
      expect(issued[0].chain).toEqual(['leaf-der', 'intermediate-der']);
    });

    it.each([
      ['an EdDSA SD-JWT VC', 'dc+sd-jwt', 'EdDSA'],
      ['a Data Integrity credential', 'ldp_vc', null],
    ])('reads no chain nor ES256 key for %s', async (_, format, signingAlgorithm) => {
      const { service, fakes, issued, chainReads, taken } = newTestService();
      fakes.offer = { ...fakes.offer, format, signingAlgorithm };
      await request(service, {
        credential_configuration_id: 'Badge',
        proofs: { jwt: [await keyProof('n-1')] },
      });
      expect(chainReads).toEqual([]);
      expect(issued[0].chain).toBeUndefined();
      expect(taken[0].keyAlgorithm).toBeNull();
      expect(issued[0].storedKey).toBeUndefined();
    });

    describe('for an mso_mdoc offer', () => {
      const mdocConfiguration = {
        ...configuration,
        format: 'mso_mdoc',
        vct: null,
        doctype: 'org.iso.18013.5.1.mDL',
        selectivelyDisclosable: null,
        expiresInSeconds: 3600,
      } as unknown as ConfigurationDefinition;
      const mdocService = () => {
        const test = newTestService();
        test.fakes.offer = { ...test.fakes.offer, format: 'mso_mdoc', signingAlgorithm: 'ES256' };
        test.fakes.issuable = { ...test.fakes.issuable!, configuration: mdocConfiguration };
        test.fakes.configuration = mdocConfiguration;
        return test;
      };
      const body = async (alg: 'ES256' | 'EdDSA' = 'ES256') => ({
        credential_configuration_id: 'Badge',
        proofs: { jwt: [await keyProof('n-1', alg)] },
      });

      it('reads the Document Signer chain before the statement, the ES256 key in it, and signs an mdoc', async () => {
        const { service, fakes, issued, chainReads, taken, key } = mdocService();
        await request(service, await body());
        expect(fakes.signerReads).toEqual([{ tenantId: 'acme', log: [] }]);
        expect(chainReads).toEqual([]);
        expect(taken[0].keyAlgorithm).toBe('ES256');
        expect(issued[0]).toMatchObject({ chain: ['ds-der'], storedKey: key });
        expect(issued[0].request).toMatchObject({
          format: 'mso_mdoc',
          doctype: 'org.iso.18013.5.1.mDL',
          expiresInSeconds: 3600,
          claims: { given_name: 'Erika' },
        });
      });

      it('refuses a key other than P-256 as invalid_proof before anything is read or taken', async () => {
        const { service, fakes, taken, issued } = mdocService();
        expect(await oauthError(request(service, await body('EdDSA')))).toBe('invalid_proof');
        expect([fakes.signerReads, taken, issued]).toEqual([[], [], []]);
      });

      it('refuses the request as credential_request_denied without a Document Signer, taking nothing', async () => {
        const { service, fakes, taken, issued, spent } = mdocService();
        fakes.documentSigner = undefined;
        expect(await oauthError(request(service, await body()))).toBe('credential_request_denied');
        expect([taken, issued, spent]).toEqual([[], [], []]);
      });
    });

    it('issues nothing when another request took the offer first: the statement’s answer decides, its nonce kept', async () => {
      const { service, fakes, issued, taken, spent } = newTestService();
      fakes.issuable = undefined;
      const body = {
        credential_configuration_id: 'Badge',
        proofs: { jwt: [await keyProof('n-1')] },
      };
      expect(await oauthError(request(service, body))).toBe('invalid_token');
      expect(issued).toEqual([]);
      expect(taken).toHaveLength(1);
      expect(spent).toEqual([]);
    });

    it('issues nothing for a spent nonce', async () => {
      const { service, taken, issued } = newTestService();
      const body = {
        credential_configuration_id: 'Badge',
        proofs: { jwt: [await keyProof('n-2')] },
      };
      expect(await oauthError(request(service, body))).toBe('invalid_nonce');
      expect(taken).toHaveLength(1);
      expect(issued).toEqual([]);
    });

    it.each([
      ['two nonces in one request', 'invalid_proof', ['n-1', 'n-2']],
      ['more keys than the batch size', 'invalid_credential_request', ['n-1', 'n-1', 'n-1']],
    ])('refuses %s before anything is taken', async (_, error, proofNonces) => {
      const { service, transactions } = newTestService();
      const jwts = await Promise.all(proofNonces.map((nonce) => keyProof(nonce)));
      const body = { credential_configuration_id: 'Badge', proofs: { jwt: jwts } };
      expect(await oauthError(request(service, body))).toBe(error);
      expect(transactions.log).toEqual([]);
    });

    it('refuses a configuration other than the offer’s, and a proof not signed by its key', async () => {
      const { service, transactions } = newTestService();
      const other = {
        credential_configuration_id: 'Other',
        proofs: { jwt: [await keyProof('n-1')] },
      };
      expect(await oauthError(request(service, other))).toBe('unknown_credential_configuration');
      const [header, payload] = (await keyProof('n-1')).split('.');
      const forged = `${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`;
      const body = { credential_configuration_id: 'Badge', proofs: { jwt: [forged] } };
      expect(await oauthError(request(service, body))).toBe('invalid_proof');
      expect(transactions.log).toEqual([]);
    });
  });

  describe('notify', () => {
    const issued = (fakes: ReturnType<typeof newTestService>['fakes']): Authorized => ({
      offer: {
        ...fakes.offer,
        status: 'issued',
        notificationId: 'note-1',
        credentialIds: ['urn:uuid:1'],
      },
      tokenHash: secretHash(token),
      scheme: 'Bearer',
    });

    it('records the notification with its event, in the one statement of the change', async () => {
      const { service, fakes, outbox } = newTestService();
      await service.notify(call, issued(fakes), {
        notification_id: 'note-1',
        event: 'credential_accepted',
      });
      expect(outbox.changes).toEqual([
        { sql: 'notify', parameters: ['offer-1', 'note-1', 'credential_accepted'] },
      ]);
      expect(outbox.events).toEqual([
        {
          type: 'oid4vci.credential.accepted',
          tenantId: 'acme',
          data: { offerId: 'offer-1', credentialIds: ['urn:uuid:1'] },
        },
      ]);
    });

    it('refuses another notification id without a change, and one the statement no longer finds', async () => {
      const { service, fakes, outbox } = newTestService();
      const wrong = { notification_id: 'note-2', event: 'credential_deleted' };
      expect(await oauthError(service.notify(call, issued(fakes), wrong))).toBe(
        'invalid_notification_id',
      );
      expect(outbox.changes).toEqual([]);
      outbox.rows = [];
      const gone = { notification_id: 'note-1', event: 'credential_deleted' };
      expect(await oauthError(service.notify(call, issued(fakes), gone))).toBe(
        'invalid_notification_id',
      );
      expect(outbox.events).toEqual([]);
    });

    it('refuses the same event a second time as invalid_notification_request, sending it once', async () => {
      const { service, fakes, outbox } = newTestService();
      const body = { notification_id: 'note-1', event: 'credential_accepted' };
      await service.notify(call, issued(fakes), body);
      expect(await oauthError(service.notify(call, issued(fakes), body))).toBe(
        'invalid_notification_request',
      );
      expect(outbox.events).toHaveLength(1);
      // Another event of the same credential is still told once.
      await service.notify(call, issued(fakes), { ...body, event: 'credential_deleted' });
      expect(outbox.events).toHaveLength(2);
    });

    it.each([
      ['an unknown event', { notification_id: 'note-1', event: 'credential_stolen' }],
      ['no notification id', { event: 'credential_accepted' }],
      [
        'a description with a quote',
        { notification_id: 'note-1', event: 'credential_failure', event_description: 'a"b' },
      ],
    ])('refuses %s as invalid_notification_request, changing nothing', async (_, body) => {
      const { service, fakes, outbox } = newTestService();
      expect(await oauthError(service.notify(call, issued(fakes), body))).toBe(
        'invalid_notification_request',
      );
      expect(outbox.changes).toEqual([]);
    });
  });
});
