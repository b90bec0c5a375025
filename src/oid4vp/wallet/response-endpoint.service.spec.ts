import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, CompactEncrypt, importJWK, type JWK } from 'jose';
import { oid4vpSessionTranscript } from '../../mdoc/session-transcript.js';
import { type EntityManager } from 'typeorm';
import { OAuthError } from '../../common/oauth-error.js';
import { type ChangeStatement, type DomainEvent } from '../../events/event-outbox.js';
import {
  type PresentationCheck,
  type PresentationExpectation,
  type WalletPresentationsService,
} from '../../credentials/verifying/wallet-presentations.service.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { fakeOutbox, fakeTransactions, testClock } from '../../../test/support/service-fakes.js';
import { requestLimits } from '../requests/request-limits.js';
import {
  type Conclusion,
  type PresentationRequestEntity,
  type WalletRequests,
} from '../requests/wallet-requests.js';
import { tooManyRefusedAnswers } from './refused-answers.js';
import { type Settings } from '../../config/settings.js';
import { AnswerSettlement } from './answer-settlement.service.js';
import { ResponseEndpointService } from './response-endpoint.service.js';
import { type RequestSecrets } from '../requests/presentation-request.sealed-columns.js';
import { type TenantTrust } from '../../credentials/verifying/tenant-trust.js';

const start = Date.UTC(2026, 0, 1);
const vct = 'https://acme.example/badge';
const request = {
  id: 'request-1',
  tenantId: 'acme',
  status: 'pending',
  responseMode: 'direct_post',
  dcqlQuery: {
    credentials: [
      {
        id: 'badge',
        format: 'dc+sd-jwt',
        meta: { vct_values: [vct] },
        claims: [{ path: ['given_name'] }],
      },
    ],
  },
  nonce: 'request-nonce',
  clientId: 'decentralized_identifier:did:key:z6Mk',
  state: 'request-state',
  trustedIssuers: null,
  redirectUri: null,
  expiresAt: new Date(start + 600_000),
} as unknown as PresentationRequestEntity;

/** The same request answered by direct_post.jwt, to its P-256 response key (ref-jwt). */
const encryptedRequest = {
  ...request,
  responseMode: 'direct_post.jwt',
} as PresentationRequestEntity;
/** The same request of a same-device flow (ref-redirect): the caller gave a redirect URI. */
const redirectingRequest = {
  ...request,
  redirectUri: 'https://shop.example/done?cart=1',
} as PresentationRequestEntity;
const responseKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const encryptedSecrets = {
  reference: 'ref-jwt',
  responseKey: { ...responseKey.privateKey.export({ format: 'jwk' }), kid: 'enc-1' },
};

/** The same requests asking for an mDL: the mdoc check needs their session transcript. */
const mdocQuery = {
  credentials: [
    { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' } },
  ],
};
const mdocOpens: Record<string, { request: PresentationRequestEntity; secrets: RequestSecrets }> = {
  'ref-mdoc': {
    request: { ...request, dcqlQuery: mdocQuery },
    secrets: { reference: 'ref-mdoc' },
  },
  'ref-mdoc-jwt': {
    request: { ...encryptedRequest, dcqlQuery: mdocQuery },
    secrets: { ...encryptedSecrets, reference: 'ref-mdoc-jwt' },
  },
};

const tenantTrust: TenantTrust = { issuers: ['https://acme.example'], anchors: [] };
const verified: PresentationCheck = {
  verified: true,
  presentation: {
    format: 'dc+sd-jwt',
    issuer: 'https://issuer.example',
    vct,
    claims: { vct, given_name: 'Erika' },
    holderKeyThumbprint: 'thumb',
    holderBinding: true,
    status: 'valid',
  },
};

/**
 * The response endpoint with every dependency faked: the requests folder's service over one pending
 * request (its refusals counted, its one conclusion kept), the credentials feature's verifier, the
 * outbox, the clock.
 */
function newTestService() {
  const time = testClock(start);
  const transactions = fakeTransactions();
  const outbox = fakeOutbox();
  const vault = new KeyVault(randomBytes(32));
  const fakes = {
    time,
    transactions,
    outbox,
    vault,
    check: verified as PresentationCheck | Error,
    expectations: [] as PresentationExpectation[],
    refusals: 0,
    /** Whether the request is still open when the answer's statement runs (false: another came first). */
    stillOpen: true,
    concluded: [] as { manager: EntityManager; conclusion: Conclusion }[],
    refusalManagers: [] as EntityManager[],
  };
  const findOpen = (tenantId: string, reference: string) =>
    Promise.resolve(
      tenantId === 'acme' && Object.hasOwn(mdocOpens, reference)
        ? mdocOpens[reference]
        : tenantId !== 'acme'
          ? undefined
          : reference === 'ref-1'
            ? { request, secrets: { reference: 'ref-1' } }
            : reference === 'ref-jwt'
              ? { request: encryptedRequest, secrets: encryptedSecrets }
              : reference === 'ref-redirect'
                ? { request: redirectingRequest, secrets: { reference } }
                : undefined,
    );
  const requests = {
    findOpenToAnswer: async (tenantId: string, reference: string) => {
      const open = await findOpen(tenantId, reference);
      return open === undefined ? undefined : { ...open, trust: tenantTrust };
    },
    now: () => new Date(time.clock()),
    countRefusal: (manager: EntityManager) => {
      fakes.refusalManagers.push(manager);
      if (!fakes.stillOpen) return Promise.resolve(undefined);
      fakes.refusals += 1;
      return Promise.resolve(fakes.refusals);
    },
    concludeStatement: (_tenantId: string, _id: string, conclusion: Conclusion) => ({
      sql: 'conclude',
      parameters: [conclusion],
    }),
  } as unknown as WalletRequests;
  // The request's closing statement answers its row only while the request is still open.
  const recordingChange = outbox.outbox.withChange.bind(outbox.outbox);
  outbox.outbox.withChange = <Row>(
    runner: Pick<EntityManager, 'query'>,
    change: ChangeStatement,
    event: DomainEvent,
  ): Promise<Row[]> => {
    if (change.sql === 'conclude') {
      if (!fakes.stillOpen) return Promise.resolve([]);
      fakes.stillOpen = false;
      const [conclusion] = change.parameters as [Conclusion];
      fakes.concluded.push({ manager: runner as EntityManager, conclusion });
    }
    return recordingChange<Row>(runner, change, event);
  };
  const presentations = {
    verify: (expectation: PresentationExpectation) => {
      fakes.expectations.push(expectation);
      return fakes.check instanceof Error
        ? Promise.reject(fakes.check)
        : Promise.resolve(fakes.check);
    },
  } as unknown as WalletPresentationsService;
  const service = new ResponseEndpointService(
    { PUBLIC_BASE_URL: 'https://agent.example' } as Settings,
    requests,
    new AnswerSettlement(transactions.dataSource, requests, presentations, outbox.outbox, vault),
  );
  return { service, fakes };
}

const form = (over: Record<string, string> = {}) => ({
  vp_token: JSON.stringify({ badge: 'sd-jwt~kb' }),
  state: 'request-state',
  ...over,
});

/** A direct_post.jwt answer as a wallet encrypts it to the request's key. */
async function encryptedForm(
  enc: 'A128GCM' | 'A256GCM',
  clearState?: string,
): Promise<Record<string, string>> {
  const publicJwk = responseKey.publicKey.export({ format: 'jwk' }) as JWK;
  const payload = { vp_token: { badge: ['sd-jwt~kb'] }, state: 'request-state' };
  const response = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: 'enc-1' })
    .encrypt(await importJWK(publicJwk, 'ECDH-ES'));
  return clearState === undefined ? { response } : { response, state: clearState };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) => (error instanceof OAuthError ? error.error : String(error)),
  );

describe(ResponseEndpointService.name, () => {
  it('ends the request verified once, sealing the claims, with its event in the same statement', async () => {
    const { service, fakes } = newTestService();
    expect(await service.answer('acme', 'ref-1', form())).toEqual({});
    expect(fakes.expectations).toMatchObject([
      { tenantId: 'acme', format: 'dc+sd-jwt', presentation: 'sd-jwt~kb', nonce: 'request-nonce' },
    ]);
    // What the tenant trusts, read with the request: the verifier reads nothing more for it.
    expect(fakes.expectations[0].tenantTrust).toBe(tenantTrust);
    expect(fakes.concluded).toHaveLength(1);
    const [{ manager, conclusion }] = fakes.concluded;
    expect(manager).toBe(fakes.transactions.manager);
    expect(conclusion).toMatchObject({ status: 'verified', outcomeCode: null });
    // The summary names what was presented; the disclosed claims are only in the sealed box.
    expect(JSON.stringify(conclusion.presented)).not.toContain('Erika');
    expect(conclusion.claimsSealed?.includes('Erika')).toBe(false);
    const opened = fakes.vault.open('acme', conclusion.claimsSealed!, 'oid4vp-disclosed-claims');
    expect(JSON.parse(opened.toString('utf8'))).toEqual({ badge: [{ given_name: 'Erika' }] });
    expect(fakes.outbox.events).toEqual([
      { type: 'presentation.verified', tenantId: 'acme', data: { requestId: 'request-1' } },
    ]);
    expect(fakes.outbox.managers).toEqual([fakes.transactions.manager]);
    // One statement, no transaction of its own: its event is written by the same statement.
    expect(fakes.transactions.log).toEqual([]);
  });

  it('refuses a second answer that verifies: the first one’s conclusion stands, no second event', async () => {
    const { service, fakes } = newTestService();
    await service.answer('acme', 'ref-1', form());
    expect(await refusal(service.answer('acme', 'ref-1', form()))).toBe('invalid_request');
    expect(fakes.concluded).toHaveLength(1);
    expect(fakes.outbox.events).toHaveLength(1);
  });

  it('refuses an answer to no open request without counting, concluding or emitting', async () => {
    const { service, fakes } = newTestService();
    expect(await refusal(service.answer('acme', 'ref-2', form()))).toBe('invalid_request');
    expect(await refusal(service.answer('other', 'ref-1', form()))).toBe('invalid_request');
    expect(fakes.refusals).toBe(0);
    expect(fakes.expectations).toEqual([]);
    expect(fakes.transactions.log).toEqual([]);
  });

  it('counts an answer with another state as refused, and leaves the request open', async () => {
    const { service, fakes } = newTestService();
    expect(await refusal(service.answer('acme', 'ref-1', form({ state: 'guess' })))).toBe(
      'invalid_request',
    );
    expect(fakes.refusals).toBe(1);
    expect(fakes.expectations).toEqual([]);
    expect(fakes.concluded).toEqual([]);
    expect(fakes.outbox.events).toEqual([]);
  });

  it.each(['A128GCM', 'A256GCM'] as const)(
    'accepts a %s JWE alone or with the request’s state in the clear beside it',
    async (enc) => {
      for (const clearState of [undefined, 'request-state']) {
        const { service, fakes } = newTestService();
        expect(
          await service.answer('acme', 'ref-jwt', await encryptedForm(enc, clearState)),
        ).toEqual({});
        expect(fakes.concluded).toMatchObject([{ conclusion: { status: 'verified' } }]);
      }
    },
  );

  it('counts a JWE with another state in the clear beside it as refused, verifying nothing', async () => {
    const { service, fakes } = newTestService();
    const answer = service.answer('acme', 'ref-jwt', await encryptedForm('A256GCM', 'guess'));
    expect(await refusal(answer)).toBe('invalid_request');
    expect(fakes.refusals).toBe(1);
    expect(fakes.expectations).toEqual([]);
    expect(fakes.concluded).toEqual([]);
    expect(fakes.outbox.events).toEqual([]);
  });

  it('answers a same-device request’s redirect_uri with a fresh response code, keeping its SHA-256', async () => {
    const { service, fakes } = newTestService();
    const answer = await service.answer('acme', 'ref-redirect', form());
    const [, code] =
      /^https:\/\/shop\.example\/done\?cart=1&response_code=([A-Za-z0-9_-]{43})$/.exec(
        answer.redirect_uri,
      ) ?? [];
    expect(code).toBeDefined();
    expect(fakes.concluded[0].conclusion).toMatchObject({
      status: 'verified',
      responseCodeHash: createHash('sha256').update(code).digest(),
    });
  });

  it('gives no response code when a same-device answer fails or is refused', async () => {
    const { service, fakes } = newTestService();
    fakes.check = { verified: false, code: 'credential_revoked', reason: 'revoked', bound: true };
    expect(await refusal(service.answer('acme', 'ref-redirect', form()))).toBe('invalid_request');
    expect(fakes.concluded[0].conclusion).toMatchObject({
      status: 'failed',
      responseCodeHash: null,
    });
  });

  it('ends the request failed at the bound of refused answers, in the transaction that counts it', async () => {
    const { service, fakes } = newTestService();
    fakes.refusals = requestLimits.refusedAnswers - 1;
    expect(await refusal(service.answer('acme', 'ref-1', form({ state: 'guess' })))).toBe(
      'invalid_request',
    );
    expect(fakes.concluded).toMatchObject([
      { conclusion: { status: 'failed', outcomeCode: tooManyRefusedAnswers, claimsSealed: null } },
    ]);
    expect(fakes.concluded[0].manager).toBe(fakes.refusalManagers[0]);
    expect(fakes.outbox.events).toEqual([
      {
        type: 'presentation.failed',
        tenantId: 'acme',
        data: { requestId: 'request-1', code: tooManyRefusedAnswers },
      },
    ]);
  });

  it('ends the request failed when a presentation bound to it fails, with the code', async () => {
    const { service, fakes } = newTestService();
    fakes.check = { verified: false, code: 'credential_revoked', reason: 'revoked', bound: true };
    expect(await refusal(service.answer('acme', 'ref-1', form()))).toBe('invalid_request');
    expect(fakes.refusals).toBe(0);
    expect(fakes.concluded).toMatchObject([
      { conclusion: { status: 'failed', outcomeCode: 'credential_revoked', presented: null } },
    ]);
    expect(fakes.outbox.events).toMatchObject([
      { type: 'presentation.failed', data: { code: 'credential_revoked' } },
    ]);
  });

  it('only counts a failed presentation that is not bound to the request', async () => {
    const { service, fakes } = newTestService();
    fakes.check = { verified: false, code: 'nonce_mismatch', reason: 'another nonce' };
    expect(await refusal(service.answer('acme', 'ref-1', form()))).toBe('invalid_request');
    expect(fakes.refusals).toBe(1);
    expect(fakes.concluded).toEqual([]);
    expect(fakes.outbox.events).toEqual([]);
  });

  it('counts nothing when the verifier itself fails: an outage is not the wallet’s answer', async () => {
    const { service, fakes } = newTestService();
    fakes.check = new Error('status list host down');
    await expect(service.answer('acme', 'ref-1', form())).rejects.toBe(fakes.check);
    expect(fakes.refusals).toBe(0);
    expect(fakes.concluded).toEqual([]);
    expect(fakes.transactions.log).toEqual([]);
  });

  it('gives an mdoc the session transcript of this request: client id, nonce, key thumbprint or null, response URI', async () => {
    const { service, fakes } = newTestService();
    const doctype = 'org.iso.18013.5.1.mDL';
    const responseUri = (reference: string) =>
      `https://agent.example/ctrl/oid4vp/acme/requests/${reference}/response`;
    await refusal(
      service.answer('acme', 'ref-mdoc', {
        vp_token: JSON.stringify({ mdl: ['o2d2ZXJzaW9u'] }),
        state: 'request-state',
      }),
    );
    const publicJwk = responseKey.publicKey.export({ format: 'jwk' }) as JWK;
    const payload = { vp_token: { mdl: ['o2d2ZXJzaW9u'] }, state: 'request-state' };
    const response = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: 'enc-1' })
      .encrypt(await importJWK(publicJwk, 'ECDH-ES'));
    await refusal(service.answer('acme', 'ref-mdoc-jwt', { response }));
    const thumbprint = Buffer.from(await calculateJwkThumbprint(publicJwk, 'sha256'), 'base64url');
    expect(fakes.expectations).toEqual([
      expect.objectContaining({
        format: 'mso_mdoc',
        doctype,
        sessionTranscript: await oid4vpSessionTranscript({
          clientId: request.clientId,
          nonce: request.nonce,
          jwkThumbprint: null,
          responseUri: responseUri('ref-mdoc'),
        }),
      }),
      expect.objectContaining({
        format: 'mso_mdoc',
        doctype,
        sessionTranscript: await oid4vpSessionTranscript({
          clientId: request.clientId,
          nonce: request.nonce,
          jwkThumbprint: thumbprint,
          responseUri: responseUri('ref-mdoc-jwt'),
        }),
      }),
    ]);
    // Other formats get none.
    const { service: other, fakes: seen } = newTestService();
    await other.answer('acme', 'ref-1', form());
    expect(seen.expectations[0]).not.toHaveProperty('sessionTranscript');
  });

  it('refuses a vp_token naming a query the request does not ask, counting it', async () => {
    const { service, fakes } = newTestService();
    const other = form({ vp_token: JSON.stringify({ passport: 'x' }) });
    expect(await refusal(service.answer('acme', 'ref-1', other))).toBe('invalid_request');
    expect(fakes.expectations).toEqual([]);
    expect(fakes.refusals).toBe(1);
    expect(fakes.concluded).toEqual([]);
  });
});
