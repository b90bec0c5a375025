import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { OAuthError } from '../common/oauth-error.js';
import { parseCertificate, type Certificate } from '../x509/chain.js';
import { makeCertificate, type TestCertificate } from '../../test/support/x509-test-pki.js';
import { ClientAttestationsService } from './client-attestations.service.js';
import { type SpentProofs } from './spent-proofs.js';
import { type WalletAttestationSetting } from './wallet-attestation-policy.entity.js';
import { type WalletProviderCertificates } from './wallet-provider-certificates.js';
import { type WalletProviderRepository } from './wallet-provider.repository.js';

const audience = 'https://agent.example/ctrl/oid4vci/acme';
const now = Date.now();
const seconds = Math.floor(now / 1000);

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

/** The verifier with its tables faked: the tenant's providers, its setting, the spent ids. */
describe(ClientAttestationsService.name, () => {
  let root: TestCertificate;
  let leaf: TestCertificate;
  let otherRoot: TestCertificate;
  let otherLeaf: TestCertificate;
  let instance: KeyPair;
  let instanceJwk: JWK;
  let stranger: KeyPair;
  let providers: Certificate[];
  let setting: WalletAttestationSetting | null;
  let spent: Set<string>;
  let service: ClientAttestationsService;

  const parsed = (certificate: TestCertificate) => parseCertificate(certificate.pem) as Certificate;

  beforeAll(async () => {
    root = await makeCertificate('Wallet provider', { ca: true });
    leaf = await makeCertificate('Wallet attester', { issuer: root });
    otherRoot = await makeCertificate('Unknown provider', { ca: true });
    otherLeaf = await makeCertificate('Unknown attester', { issuer: otherRoot });
    instance = await generateKeyPair('ES256');
    instanceJwk = await exportJWK(instance.publicKey);
    stranger = await generateKeyPair('ES256');
  });

  beforeEach(() => {
    providers = [parsed(root)];
    setting = null;
    spent = new Set();
    const repository = {
      policyOf: () => Promise.resolve({ setting, listed: providers.length > 0 }),
    } as unknown as WalletProviderRepository;
    const certificates = {
      of: () => Promise.resolve(providers),
    } as unknown as WalletProviderCertificates;
    const spentProofs = {
      spend: ({ jti }: { jti: string }) => {
        const fresh = !spent.has(jti);
        spent.add(jti);
        return Promise.resolve(fresh);
      },
    } as unknown as SpentProofs;
    service = new ClientAttestationsService(repository, certificates, spentProofs);
  });

  async function attestation(
    options: {
      signer?: TestCertificate;
      chain?: TestCertificate[];
      typ?: string;
      claims?: Record<string, unknown>;
    } = {},
  ): Promise<string> {
    const signer = options.signer ?? leaf;
    const chain = options.chain ?? [leaf];
    return new SignJWT({
      iss: 'https://wallet-provider.example',
      sub: 'wallet-client',
      cnf: { jwk: instanceJwk },
      exp: seconds + 3600,
      iat: seconds,
      ...options.claims,
    })
      .setProtectedHeader({
        alg: 'ES256',
        typ: options.typ ?? 'oauth-client-attestation+jwt',
        x5c: chain.map((certificate) => certificate.base64),
      })
      .sign(signer.keys.privateKey);
  }

  let jtis = 0;
  async function pop(
    options: { key?: KeyPair; claims?: Record<string, unknown>; typ?: string } = {},
  ): Promise<string> {
    jtis += 1;
    return new SignJWT({ aud: audience, jti: `jti-${jtis}`, iat: seconds, ...options.claims })
      .setProtectedHeader({ alg: 'ES256', typ: options.typ ?? 'oauth-client-attestation-pop+jwt' })
      .sign((options.key ?? instance).privateKey);
  }

  const authenticate = (input: { attestation?: string; pop?: string; clientId?: string }) =>
    service.authenticate('acme', { ...input, audience, now });

  async function refusal(input: Parameters<typeof authenticate>[0]): Promise<string> {
    try {
      await authenticate(input);
    } catch (error) {
      if (error instanceof OAuthError && error.error === 'invalid_client' && error.status === 401)
        return error.description;
      throw error;
    }
    throw new Error('accepted');
  }

  it('accepts an attestation chained to a provider with its PoP, and answers its sub', async () => {
    await expect(
      authenticate({ attestation: await attestation(), pop: await pop() }),
    ).resolves.toEqual({
      clientId: 'wallet-client',
      attested: true,
    });
    await expect(
      authenticate({
        attestation: await attestation(),
        pop: await pop(),
        clientId: 'wallet-client',
      }),
    ).resolves.toEqual({ clientId: 'wallet-client', attested: true });
  });

  it('lets a request without attestation through only when the policy is optional', async () => {
    expect(await refusal({})).toMatch(/requires a wallet attestation/);
    setting = 'optional';
    await expect(authenticate({ clientId: 'c' })).resolves.toEqual({
      attested: false,
      clientId: 'c',
    });
    providers = [];
    setting = null;
    await expect(authenticate({})).resolves.toEqual({ attested: false });
    setting = 'required';
    expect(await refusal({})).toMatch(/requires a wallet attestation/);
  });

  it('refuses one header without the other', async () => {
    setting = 'optional';
    expect(await refusal({ attestation: await attestation() })).toMatch(/both/);
    expect(await refusal({ pop: await pop() })).toMatch(/both/);
  });

  it('refuses an attestation of the wrong typ, too long, or not a JWT', async () => {
    expect(
      await refusal({ attestation: await attestation({ typ: 'jwt' }), pop: await pop() }),
    ).toMatch(/typ oauth-client-attestation\+jwt/);
    expect(await refusal({ attestation: 'a.b.' + 'c'.repeat(70_000), pop: await pop() })).toMatch(
      /at most/,
    );
    expect(await refusal({ attestation: 'garbage', pop: await pop() })).toMatch(/compact JWT/);
  });

  it('refuses a chain to no provider of the tenant, and any chain when it lists none', async () => {
    const foreign = await attestation({ signer: otherLeaf, chain: [otherLeaf] });
    expect(await refusal({ attestation: foreign, pop: await pop() })).toMatch(/x5c chain refused/);
    providers = [];
    setting = 'optional';
    expect(await refusal({ attestation: await attestation(), pop: await pop() })).toMatch(
      /x5c chain refused/,
    );
  });

  it('refuses an attestation signed by another key than its leaf’s', async () => {
    const forged = await attestation({ signer: otherLeaf, chain: [leaf] });
    expect(await refusal({ attestation: forged, pop: await pop() })).toMatch(/signature/);
  });

  it('refuses an expired leaf certificate', async () => {
    const expired = await makeCertificate('Expired attester', {
      issuer: root,
      notBefore: new Date(now - 10 * 86_400_000),
      notAfter: new Date(now - 86_400_000),
    });
    const jwt = await attestation({ signer: expired, chain: [expired] });
    expect(await refusal({ attestation: jwt, pop: await pop() })).toMatch(/valid from/);
  });

  it('refuses an expired or not yet valid attestation, and one without exp or cnf.jwk', async () => {
    const expired = await attestation({ claims: { exp: seconds - 3600 } });
    expect(await refusal({ attestation: expired, pop: await pop() })).toMatch(/expired/);
    const early = await attestation({ claims: { nbf: seconds + 3600 } });
    expect(await refusal({ attestation: early, pop: await pop() })).toMatch(/not valid yet/);
    const noExp = await attestation({ claims: { exp: undefined } });
    expect(await refusal({ attestation: noExp, pop: await pop() })).toMatch(/exp/);
    const numericSub = await attestation({ claims: { sub: 7 } });
    expect(await refusal({ attestation: numericSub, pop: await pop() })).toMatch(/sub/);
    const noCnf = await attestation({ claims: { cnf: { jkt: 'x' } } });
    expect(await refusal({ attestation: noCnf, pop: await pop() })).toMatch(/cnf.jwk/);
  });

  it('refuses a PoP of the wrong typ, by another key, for another audience, stale or without jti', async () => {
    const jwt = await attestation();
    expect(await refusal({ attestation: jwt, pop: await pop({ typ: 'jwt' }) })).toMatch(/typ/);
    expect(await refusal({ attestation: jwt, pop: await pop({ key: stranger }) })).toMatch(
      /PoP .*signature/,
    );
    const elsewhere = await pop({ claims: { aud: 'https://other.example' } });
    expect(await refusal({ attestation: jwt, pop: elsewhere })).toMatch(/aud/);
    const stale = await pop({ claims: { iat: seconds - 301 } });
    expect(await refusal({ attestation: jwt, pop: stale })).toMatch(/iat/);
    const ahead = await pop({ claims: { iat: seconds + 120 } });
    expect(await refusal({ attestation: jwt, pop: ahead })).toMatch(/iat/);
    const noJti = await pop({ claims: { jti: undefined } });
    expect(await refusal({ attestation: jwt, pop: noJti })).toMatch(/jti/);
    const otherIss = await pop({ claims: { iss: 'someone-else' } });
    expect(await refusal({ attestation: jwt, pop: otherIss })).toMatch(/iss/);
  });

  it('refuses a PoP whose jti was used before', async () => {
    const jwt = await attestation();
    const once = await pop();
    await authenticate({ attestation: jwt, pop: once });
    expect(await refusal({ attestation: jwt, pop: once })).toMatch(/used before/);
  });

  it('refuses a client_id other than the attestation’s sub', async () => {
    expect(
      await refusal({ attestation: await attestation(), pop: await pop(), clientId: 'someone' }),
    ).toMatch(/client_id/);
  });
});
