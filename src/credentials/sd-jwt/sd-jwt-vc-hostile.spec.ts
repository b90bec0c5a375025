import fc from 'fast-check';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Settings } from '../../config/settings.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { type StatusListsService } from '../status/status-lists.service.js';
import { type PresentationCheck } from '../wallet-presentation.types.js';
import { walletKey, type WalletKey } from '../../../test/support/oid4vci-wallet.js';
import {
  didJwkIssuer,
  issueTestSdJwtVc,
  signedJwt,
  signWith,
  statusListTokenOf,
  testIssuer,
  type TestIssuer,
} from '../../../test/support/sd-jwt-wallet.js';
import { CredentialIssuerKeys } from './credential-issuer-keys.js';
import { RemoteTokenStatusLists } from './remote-token-status-lists.js';
import { SdJwtVcVerifier } from './sd-jwt-vc-verifier.js';

const nonce = 'n-0S6_WzA2Mj';
const clientId = 'decentralized_identifier:did:key:z6MkverifierExample';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const raw64 = (json: string) => Buffer.from(json).toString('base64url');
const sha = (text: string) => createHash('sha256').update(text).digest('base64url');
/** JSON nested `levels` deep: JSON.parse takes it, JSON.stringify and recursion overflow on it. */
const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

/** What a wallet, or anyone, may send: every answer is a PresentationCheck, never an exception. */
describe('SdJwtVcVerifier with hostile input', () => {
  const routes = new Map<string, string>();
  const server = createServer((request, response) => {
    const body = routes.get(request.url ?? '');
    if (body === undefined) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  let origin = '';
  let verifier: SdJwtVcVerifier;
  let holder: WalletKey;
  let issuer: TestIssuer;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settings = {
      statusListAllowPrivateTargets: 'loopback',
      PUBLIC_BASE_URL: 'http://localhost:1',
    } as unknown as Settings;
    const keys = new CredentialIssuerKeys(settings, {} as TenantKeys, new DidResolution());
    const ours = { listOfUrl: () => undefined } as unknown as StatusListsService;
    const lists = new RemoteTokenStatusLists(settings, keys, ours, () => Date.now());
    verifier = new SdJwtVcVerifier(keys, lists, () => Date.now());
    holder = await walletKey('ES256');
    issuer = await didJwkIssuer('ES256');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const check = (presentation: unknown, trusted?: ReadonlySet<string>) =>
    verifier.verify(
      {
        tenantId: 'acme',
        format: 'dc+sd-jwt',
        presentation,
        nonce,
        clientId,
        signal: AbortSignal.timeout(5_000),
      },
      trusted,
    );
  const failure = (result: PresentationCheck) =>
    result.verified ? 'verified' : `${result.code}: ${result.reason}`;
  /** The issuer-signed JWT of `payload` (raw JSON), by the did:jwk issuer. */
  const signedRaw = async (payload: string) => {
    const input = `${b64({ alg: 'ES256', typ: 'dc+sd-jwt', kid: issuer.kid })}.${raw64(payload)}`;
    return `${input}.${await signWith(issuer.key, input)}`;
  };
  const kbFor = (withoutKb: string) =>
    signedJwt(
      holder,
      { typ: 'kb+jwt' },
      { nonce, aud: clientId, iat: Math.floor(Date.now() / 1000), sd_hash: sha(withoutKb) },
    );

  it('names a deeply nested alg of the credential or of its KB-JWT by its kind', async () => {
    const header = raw64(`{"alg":${deep(20_000)},"typ":"dc+sd-jwt"}`);
    const unsigned = `${header}.${b64({ iss: issuer.iss, vct: 'x' })}.AA~`;
    expect(failure(await check(unsigned))).toBe(
      'signature_invalid: the credential is signed with an array, not one of ES256, EdDSA, Ed25519',
    );
    const bound = await issueTestSdJwtVc(issuer, { holder });
    const kb = `${raw64(`{"typ":"kb+jwt","alg":${deep(20_000)}}`)}.${b64({})}.AA`;
    expect(failure(await check(`${bound}${kb}`))).toBe(
      'key_binding_invalid: the key binding JWT is signed with an array, not one of ES256, EdDSA, Ed25519',
    );
  });

  it('refuses a deeply nested _sd_alg the issuer signed as disclosure_invalid', async () => {
    const jwt = await signedRaw(`{"iss":"${issuer.iss}","vct":"x","_sd_alg":${deep(20_000)}}`);
    expect(failure(await check(`${jwt}~`))).toBe(
      "disclosure_invalid: the payload's _sd_alg is an array, not sha-256",
    );
  });

  it('refuses issuer metadata whose key has a deeply nested kty or alg as issuer_unresolved', async () => {
    const nested = await testIssuer(`${origin}/issuers/nested`);
    routes.set(
      '/.well-known/jwt-vc-issuer/issuers/nested',
      `{"issuer":"${nested.iss}","jwks":{"keys":[{"kid":"key-1","kty":${deep(20_000)}}]}}`,
    );
    expect(failure(await check(await issueTestSdJwtVc(nested)))).toBe(
      "issuer_unresolved: the issuer's key could not be found: the key (an array no value) is not a public key for ES256",
    );
    const algs = await testIssuer(`${origin}/issuers/algs`);
    routes.set(
      '/.well-known/jwt-vc-issuer/issuers/algs',
      `{"issuer":"${algs.iss}","jwks":{"keys":[{"kid":"key-1","alg":${deep(20_000)}}]}}`,
    );
    expect(failure(await check(await issueTestSdJwtVc(algs)))).toBe(
      "issuer_unresolved: the issuer's key could not be found: the issuer's key is for an array, not 'ES256'",
    );
  });

  it('quotes at most 100 characters of an untrusted iss', async () => {
    const long = `https://issuer.example/${'a'.repeat(10_000)}`;
    const jwt = `${b64({ alg: 'ES256', typ: 'dc+sd-jwt' })}.${b64({ iss: long, vct: 'x' })}.AA`;
    const result = failure(await check(`${jwt}~`, new Set(['https://trusted.example'])));
    expect(result).toBe(
      `issuer_not_trusted: the issuer '${long.slice(0, 100)}…' is not in the trusted issuers list`,
    );
  });

  it('refuses a selectively disclosable status or a withheld-or-shown cnf: the holder cannot hide them', async () => {
    const uri = `${origin}/lists/hidden`;
    routes.set('/lists/hidden', await statusListTokenOf(issuer, uri, [0, 1]));
    const status = b64([
      randomBytes(16).toString('base64url'),
      'status',
      { status_list: { idx: 1, uri } },
    ]);
    const jwt = await signedJwt(
      issuer.key,
      { typ: 'dc+sd-jwt', kid: issuer.kid },
      {
        iss: issuer.iss,
        vct: 'x',
        _sd_alg: 'sha-256',
        _sd: [sha(status)],
        cnf: { jwk: holder.publicJwk },
      },
    );
    const withStatus = `${jwt}~${status}~`;
    expect(failure(await check(`${withStatus}${await kbFor(withStatus)}`))).toBe(
      'disclosure_invalid: a disclosure names the claim status, which may not be selectively disclosed',
    );
    const cnf = b64([randomBytes(16).toString('base64url'), 'cnf', { jwk: holder.publicJwk }]);
    const bound = await signedJwt(
      issuer.key,
      { typ: 'dc+sd-jwt', kid: issuer.kid },
      { iss: issuer.iss, vct: 'x', _sd: [sha(cnf)] },
    );
    const shown = `${bound}~${cnf}~`;
    expect(failure(await check(`${shown}${await kbFor(shown)}`))).toMatch(
      /^disclosure_invalid: .* cnf,/,
    );
  });

  it('answers presentation_malformed, not a rejection, when a check throws', async () => {
    const throwing = {
      keyFor: () => Promise.reject(new RangeError('Maximum call stack size exceeded')),
    } as unknown as CredentialIssuerKeys;
    const broken = new SdJwtVcVerifier(throwing, {} as RemoteTokenStatusLists, () => Date.now());
    const result = await broken.verify(
      {
        tenantId: 'acme',
        format: 'dc+sd-jwt',
        presentation: await issueTestSdJwtVc(issuer),
        nonce,
        clientId,
        signal: AbortSignal.timeout(5_000),
      },
      undefined,
    );
    expect(failure(result)).toBe('presentation_malformed: the presentation could not be checked');
  });

  /** Any JSON value, sometimes nested thousands deep: what a header or payload member may be. */
  const hostileJson = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
    fc.constantFrom(deep(12_000), `{"a":${deep(12_000)}}`, `"${'x'.repeat(5_000)}"`, '1e999'),
  );
  const member = (name: string) =>
    fc.option(
      hostileJson.map((json) => `"${name}":${json}`),
      { nil: undefined },
    );
  const object = (...names: string[]) =>
    fc
      .tuple(
        ...names.map(member),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })),
      )
      .map(([...parts]) => {
        const extra = parts.pop() as Record<string, unknown>;
        const named = (parts as (string | undefined)[]).filter((part) => part !== undefined);
        const rest = JSON.stringify(extra).slice(1, -1);
        return `{${[...named, ...(rest === '' ? [] : [rest])].join(',')}}`;
      });

  /** A JSON object's text with `members` (ending in a comma) put first. */
  const prefixed = (object: string, members: string) =>
    `{${members}${object.slice(1)}`.replace(/,}$/, '}');

  it('answers a PresentationCheck for random headers, payloads, disclosures and KB-JWTs', async () => {
    await fc.assert(
      fc.asyncProperty(
        object('alg', 'kid'),
        object('_sd', '_sd_alg', 'cnf', 'exp', 'nbf', 'status'),
        fc.array(fc.oneof(hostileJson.map(raw64), fc.base64String()), { maxLength: 3 }),
        fc.option(object('alg'), { nil: undefined }),
        fc.boolean(),
        async (header, payload, disclosures, kbHeader, sign) => {
          // Members that let the checks go on come first; a random member of that name overrides.
          const cnf =
            kbHeader === undefined ? '' : `"cnf":{"jwk":${JSON.stringify(holder.publicJwk)}},`;
          const claims = prefixed(payload, `"iss":"${issuer.iss}","vct":"x",${cnf}`);
          // Signed by a did:jwk issuer, the random payload reaches the disclosures, binding and dates.
          const jwt = sign
            ? await signedRaw(claims)
            : `${raw64(prefixed(header, '"typ":"dc+sd-jwt",'))}.${raw64(claims)}.AA`;
          const kb =
            kbHeader === undefined
              ? ''
              : `${raw64(prefixed(kbHeader, '"typ":"kb+jwt",'))}.${raw64(payload)}.AA`;
          const result = await check([jwt, ...disclosures, kb].join('~'));
          expect(typeof result.verified).toBe('boolean');
          if (result.verified) return;
          expect(result.reason.length).toBeLessThan(1_000);
          // The catch-all is a last resort: no input may reach it.
          expect(result.reason).not.toBe('the presentation could not be checked');
        },
      ),
      { numRuns: 200 },
    );
  });
});
