import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { call } from './support/test-service.js';
import { ldpBadge, sdJwtBadge } from './support/oid4vci-fixtures.js';
import { offerRow } from './support/oid4vci-offers.js';
import { useWalletErrorsSuite } from './support/oid4vci-wallet-errors.js';
import { didJwkOf, dpopProof, keyProof, walletKey } from './support/oid4vci-wallet.js';

/** The credential endpoint's refusals, and hostile input at every wallet endpoint (as oid4vci-wallet-errors.e2e-spec.ts: OAuth errors, never a 5xx). */
describe('The OpenID4VCI credential endpoint refuses', () => {
  const suite = useWalletErrorsSuite();
  const {
    issuerOf,
    path,
    expectError,
    postToken,
    accessToken,
    nonce,
    postCredential,
    proofsOf,
    requestOf,
  } = suite;

  describe('at the credential endpoint', () => {
    it('no token, an unknown one, another tenant’s path, a wrong scheme', async () => {
      const { token } = await accessToken();
      const body = requestOf(await proofsOf([await walletKey()]));
      expectError(await postCredential(undefined, body), 401, 'invalid_token');
      expectError(
        await postCredential(randomBytes(32).toString('base64url'), body),
        401,
        'invalid_token',
      );
      expectError(await postCredential(token, body, { tenantId: 'other' }), 401, 'invalid_token');
      expectError(await postCredential(token, body, { scheme: 'Basic' }), 401, 'invalid_token');
      // A Bearer token sent as DPoP, with a proof of any key.
      const key = await walletKey();
      const dpop = await dpopProof(key, {
        htu: `${issuerOf('acme')}/credential`,
        accessToken: token,
      });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop }),
        401,
        'invalid_token',
      );
      // Still good after all of these.
      expect((await postCredential(token, body)).status).toBe(200);
    });

    it('an expired token', async () => {
      const { token } = await accessToken();
      suite.offset = 301_000;
      const key = await walletKey();
      const c = await nonce();
      const proof = await keyProof(key, {
        aud: issuerOf('acme'),
        nonce: c,
        iat: Math.floor((Date.now() + suite.offset) / 1000),
      });
      expectError(await postCredential(token, requestOf([proof])), 401, 'invalid_token');
    });

    it('a DPoP-bound token as Bearer, without a proof, with another key’s proof or a wrong ath', async () => {
      const dpopKey = await walletKey();
      const { token } = await accessToken(dpopKey);
      const htu = `${issuerOf('acme')}/credential`;
      const body = requestOf(await proofsOf([await walletKey()]));
      expectError(await postCredential(token, body), 401, 'invalid_token');
      expectError(await postCredential(token, body, { scheme: 'DPoP' }), 401, 'invalid_dpop_proof');
      const otherKey = await dpopProof(await walletKey(), { htu, accessToken: token });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop: otherKey }),
        401,
        'invalid_token',
      );
      const wrongAth = await dpopProof(dpopKey, { htu, accessToken: 'another' });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop: wrongAth }),
        401,
        'invalid_dpop_proof',
      );
      const wrongHtu = await dpopProof(dpopKey, {
        htu: `${issuerOf('acme')}/token`,
        accessToken: token,
      });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop: wrongHtu }),
        401,
        'invalid_dpop_proof',
      );
      const good = await dpopProof(dpopKey, { htu, accessToken: token });
      expect((await postCredential(token, body, { scheme: 'DPoP', dpop: good })).status).toBe(200);
    });

    it('requests of the wrong shape', async () => {
      const { token, offerId } = await accessToken();
      const proofs = await proofsOf([await walletKey()]);
      expectError(
        await postCredential(token, { credential_identifier: 'x', proofs: { jwt: proofs } }),
        400,
        'unknown_credential_identifier',
      );
      expectError(
        await postCredential(token, { proofs: { jwt: proofs } }),
        400,
        'invalid_credential_request',
      );
      expectError(
        await postCredential(token, requestOf(proofs, ldpBadge.id)),
        400,
        'unknown_credential_configuration',
      );
      expectError(
        await postCredential(token, { credential_configuration_id: sdJwtBadge.id }),
        400,
        'invalid_proof',
      );
      // The drafts' single proof is taken (a wallet may send it), but not beside proofs.
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proof: { proof_type: 'jwt', jwt: proofs[0] },
          proofs: { jwt: proofs },
        }),
        400,
        'invalid_credential_request',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proof: { proof_type: 'ldp_vp', jwt: proofs[0] },
        }),
        400,
        'invalid_proof',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proofs: { jwt: [] },
        }),
        400,
        'invalid_proof',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proofs: { jwt: [1] },
        }),
        400,
        'invalid_proof',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proofs: { ldp_vp: [{}] },
        }),
        400,
        'invalid_proof',
      );
      const three = await proofsOf([await walletKey(), await walletKey(), await walletKey()]);
      expectError(await postCredential(token, requestOf(three)), 400, 'invalid_credential_request');
      expectError(
        await postCredential(token, '{"credential_configuration_id":', {}),
        400,
        'invalid_credential_request',
      );
      expectError(await postCredential(token, '[]'), 400, 'invalid_credential_request');
      expectError(
        await postCredential(token, 'a=b', { contentType: 'application/x-www-form-urlencoded' }),
        400,
        'invalid_credential_request',
      );
      expectError(
        await postCredential(token, { pad: 'x'.repeat(40_000) }),
        400,
        'invalid_credential_request',
      );
      // Nothing issued; the token still works.
      expect((await offerRow(suite.service.dataSource, offerId)).status).toBe('accepted');
      expect((await postCredential(token, requestOf(proofs))).status).toBe(200);
    });

    it('bad proofs', async () => {
      const { token } = await accessToken();
      const key = await walletKey();
      const c = await nonce();
      const aud = issuerOf('acme');
      const bad = [
        await keyProof(key, { aud: issuerOf('other'), nonce: c }),
        await keyProof(key, { aud, nonce: c, header: { typ: 'JWT' } }),
        await keyProof(key, { aud, nonce: c, iat: Math.floor(Date.now() / 1000) - 3600 }),
        await keyProof(key, { aud, nonce: c, iat: Math.floor(Date.now() / 1000) + 3600 }),
        await keyProof(key, { aud, nonce: c, header: { jwk: { ...key.publicJwk, d: 'AAAA' } } }),
        await keyProof(key, { aud, nonce: c, header: { kid: `${didJwkOf(key)}#0` } }),
        await keyProof(key, { aud, nonce: c, header: { jwk: (await walletKey()).publicJwk } }),
        await keyProof(key, { aud }),
        // An sd-jwt configuration binds to JWKs only.
        await keyProof(key, {
          aud,
          nonce: c,
          header: { jwk: undefined, kid: `${didJwkOf(key)}#0` },
        }),
        'eyJhbGciOiJub25lIn0.e30.',
      ];
      for (const proof of bad)
        expectError(await postCredential(token, requestOf([proof])), 400, 'invalid_proof');
      const mixed = [
        await keyProof(key, { aud, nonce: c }),
        await keyProof(key, { aud, nonce: await nonce() }),
      ];
      expectError(await postCredential(token, requestOf(mixed)), 400, 'invalid_proof');
      expect(
        suite.issued.filter((entry) => entry.holders.some((h) => h.jwk.x === key.publicJwk.x)),
      ).toEqual([]);
      // The nonce was not spent by the refusals.
      expect(
        (await postCredential(token, requestOf([await keyProof(key, { aud, nonce: c })]))).status,
      ).toBe(200);
    });

    it('DID kids that are not did:key or did:jwk URLs of the signing key', async () => {
      const key = await walletKey();
      const { token } = await accessToken(undefined, true);
      const c = await nonce();
      const aud = issuerOf('acme');
      const bad = [
        `${didJwkOf(key)}`,
        `${didJwkOf(key)}#1`,
        `did:web:example.com#key-1`,
        `${didJwkOf(await walletKey())}#0`,
        `did:key:zDnaeWgbpcUat3VPa1GmjmUvJNvFE9mV6oXQzuhcWkGzLB9Hm#zDnaeWgbpcUat3VPa1GmjmUvJNvFE9mV6oXQzuhcWkGzLB9Hm`,
      ];
      for (const kid of [...bad, 42, { id: 'did:jwk:e30#0' }, null]) {
        const proof = await keyProof(key, { aud, nonce: c, header: { jwk: undefined, kid } });
        expectError(
          await postCredential(token, requestOf([proof], ldpBadge.id)),
          400,
          'invalid_proof',
        );
      }
    });

    it('an unknown, another tenant’s, expired or spent nonce', async () => {
      const key = await walletKey();
      const aud = issuerOf('acme');
      const { token } = await accessToken();
      const proofWith = (c: string) => keyProof(key, { aud, nonce: c });
      expectError(
        await postCredential(token, requestOf([await proofWith('unknown')])),
        400,
        'invalid_nonce',
      );
      expectError(
        await postCredential(token, requestOf([await proofWith(await nonce('other'))])),
        400,
        'invalid_nonce',
      );
      const stale = await nonce();
      // Aged in the table: moving the clock past it would expire the token first.
      await suite.service.dataSource.query(
        `UPDATE oid4vci_nonce SET expires_at = now() - interval '1 second' WHERE expires_at > now()`,
      );
      expectError(
        await postCredential(token, requestOf([await proofWith(stale)])),
        400,
        'invalid_nonce',
      );
      const c = await nonce();
      expect((await postCredential(token, requestOf([await proofWith(c)]))).status).toBe(200);
      const { token: second } = await accessToken();
      expectError(
        await postCredential(second, requestOf([await proofWith(c)])),
        400,
        'invalid_nonce',
      );
    });

    it('a token used once already', async () => {
      const { token } = await accessToken();
      expect(
        (await postCredential(token, requestOf(await proofsOf([await walletKey()])))).status,
      ).toBe(200);
      expectError(
        await postCredential(token, requestOf(await proofsOf([await walletKey()]))),
        401,
        'invalid_token',
      );
    });

    it('the second of two concurrent requests with one nonce', async () => {
      const [first, second] = [await accessToken(), await accessToken()];
      const c = await nonce();
      const before = suite.issued.length;
      const answers = await Promise.all(
        [first, second].map(async ({ token }) =>
          postCredential(token, requestOf(await proofsOf([await walletKey()], { nonce: c }))),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      expectError(
        answers.find((answer) => answer.status === 400)!,
        400,
        'invalid_nonce',
      );
      const statuses = await Promise.all(
        [first, second].map(
          async ({ offerId }) => (await offerRow(suite.service.dataSource, offerId)).status,
        ),
      );
      expect(statuses.sort()).toEqual(['accepted', 'issued']);
      // The losing request's issuance was rolled back with it, whether or not it got that far.
      expect(suite.issued.length - before).toBeGreaterThanOrEqual(1);
    });
  });

  describe('hostile input', () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    /** A JWS-shaped string with any header and payload, partly ours so that checks run deep. */
    const anyJwt = fc
      .tuple(
        fc.record(
          {
            alg: fc.oneof(fc.constantFrom('ES256', 'EdDSA', 'none', 'HS256'), fc.jsonValue()),
            typ: fc.oneof(fc.constantFrom('openid4vci-proof+jwt', 'dpop+jwt'), fc.jsonValue()),
            jwk: fc.oneof(
              fc.record({
                kty: fc.constantFrom('EC', 'OKP', 'RSA'),
                crv: fc.constantFrom('P-256', 'Ed25519', 'X25519'),
                x: fc.oneof(fc.string(), fc.base64String()),
                y: fc.string(),
              }),
              fc.jsonValue(),
            ),
            kid: fc.oneof(
              fc.constantFrom('did:key:z6Mk#z6Mk', 'did:jwk:e30#0', 'did:jwk:!!#0'),
              fc.jsonValue(),
            ),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue(),
        fc.string({ maxLength: 90 }),
      )
      .map(([header, payload, signature]) => `${b64(header)}.${b64(payload)}.${signature}`);

    it('never answers 5xx nor anything but an OAuth error, whatever the token request', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(
            fc.constantFrom('grant_type', 'pre-authorized_code', 'tx_code', 'x'),
            fc.string(),
          ),
          fc.option(anyJwt, { nil: undefined }),
          async (fields, dpop) => {
            const answer = await postToken(
              'acme',
              fields,
              dpop === undefined ? {} : { DPoP: dpop },
            );
            expect(answer.status).toBe(400);
            expect(answer.body).toEqual({
              error: expect.any(String),
              error_description: expect.any(String),
            });
          },
        ),
        { numRuns: 60 },
      );
    });

    it('never answers 5xx, and issues nothing, whatever the credential request', async () => {
      const { token, offerId } = await accessToken();
      const before = suite.issued.length;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue(),
            fc.record({
              credential_configuration_id: fc.oneof(fc.constant(sdJwtBadge.id), fc.jsonValue()),
              proofs: fc.oneof(
                fc.record({ jwt: fc.array(anyJwt, { maxLength: 3 }) }),
                fc.jsonValue(),
              ),
            }),
          ),
          async (body) => {
            const answer = await postCredential(token, JSON.stringify(body));
            expect(answer.status).toBe(400);
            expect(answer.body).toEqual({
              error: expect.any(String),
              error_description: expect.any(String),
            });
          },
        ),
        { numRuns: 80 },
      );
      expect(suite.issued.length).toBe(before);
      expect((await offerRow(suite.service.dataSource, offerId)).status).toBe('accepted');
    });

    it('never answers 5xx to any proof of an ldp_vc request, whose keys may be DIDs', async () => {
      const { token } = await accessToken(undefined, true);
      const before = suite.issued.length;
      await fc.assert(
        fc.asyncProperty(fc.array(anyJwt, { minLength: 1, maxLength: 2 }), async (proofs) => {
          const answer = await postCredential(token, requestOf(proofs, ldpBadge.id));
          expect(answer.status).toBe(400);
          expect(answer.body).toMatchObject({ error: 'invalid_proof' });
        }),
        { numRuns: 80 },
      );
      expect(suite.issued.length).toBe(before);
    });

    it('never answers 5xx, whatever the Authorization and DPoP headers', async () => {
      const dpopKey = await walletKey();
      const { token } = await accessToken(dpopKey);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.constant(`DPoP ${token}`),
            fc.constant(`Bearer ${token}`),
            fc.string().map((text) => `DPoP ${text}`),
            fc.string(),
          ),
          fc.option(anyJwt, { nil: undefined }),
          async (authorization, dpop) => {
            const answer = await call(suite.service.url, path('acme', 'credential'), {
              method: 'POST',
              headers: {
                authorization: authorization.replace(/[^\x20-\x7e]/g, ''),
                ...(dpop === undefined ? {} : { dpop }),
              },
              body: requestOf([]),
            });
            expect(answer.status).toBe(401);
          },
        ),
        { numRuns: 60 },
      );
    });
  });
});
